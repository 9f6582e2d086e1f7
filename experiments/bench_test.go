package experiments

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkWindowMillion holds the window sweep's speed target: the document's six windows over a
// million jobs in at most 130 ms on the 2-core machine the site is built on (the document's
// Python is O(jobs x queue) and would take minutes).
func BenchmarkWindowMillion(b *testing.B) {
	p := DefaultWindowParams()
	p.Jobs = 1_000_000
	ctx := context.Background()
	for b.Loop() {
		if _, err := Window(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefaults runs every experiment at the documents' parameters, as a first page view does;
// each should stay within 5 ms.
func BenchmarkDefaults(b *testing.B) {
	ctx := context.Background()
	for _, e := range All() {
		b.Run(e.Name, func(b *testing.B) {
			p := e.Defaults()
			for b.Loop() {
				if _, err := e.Run(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRandom is the generator every experiment spends most of its time in. Each op is 65,536
// draws, so that -benchtime 20x still measures something; ns/draw is the figure to read.
func BenchmarkRandom(b *testing.B) {
	r := newPyRandom(13)
	var s float64
	for b.Loop() {
		for range 1 << 16 {
			s += r.random()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<16), "ns/draw")
	_ = s
}

// BenchmarkExpovariate includes pyLog, the correctly rounded logarithm; 65,536 draws an op.
func BenchmarkExpovariate(b *testing.B) {
	r := newPyRandom(31)
	var s float64
	for b.Loop() {
		for range 1 << 16 {
			s += r.expovariate(0.5)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N<<16), "ns/draw")
	_ = s
}

// worstFlag turns on BenchmarkWorstAccepted, which takes about a second per run and would make
// "go test -bench ." take minutes: go test -run x -bench WorstAccepted -benchtime 1x -worst
var worstFlag = flag.Bool("worst", false, "run BenchmarkWorstAccepted")

// worstAccepted are runs near MaxCost in the shapes that cost the most per unit: a 50% crash rate
// (unpredictable branches), redeliveries scattered over the whole stream, many timeouts, and
// heartbeat walks. BenchmarkWorstAccepted times them; each should end within about two seconds.
var worstAccepted = []struct {
	name  string
	query map[string][]string
	// byFields marks a run bounded by the fields' own limits rather than by the budget.
	byFields bool
}{
	{name: "assembly", query: q("jobs", "10000000", "crash_rate", "0.5")},
	{name: "keys", query: q("jobs", "10000000", "crash_rate", "0.5")},
	{name: "orderings", query: q("jobs", "10000000", "crash_rate", "0.5")},
	{name: "crash-sweep", query: q("jobs", "10000000", "crash_rates", ratesList(50)), byFields: true},
	{name: "window", query: q("jobs", "10000000", "max_delay", "10000000", "windows", "100,1000,10000,100000,1000000,2000000,3000000,4000000,5000000,10000000")},
	{name: "window", query: q("jobs", "10000000", "crash_rate", "1", "max_delay", "10000000", "windows", "10000000")},
	{name: "window", query: q("jobs", "10000000", "crash_rate", "1", "max_delay", "10000000", "windows", "100000")},
	{name: "window", query: q("jobs", "10000000", "windows", windowsList(15))},
	{name: "window-grid", query: q("jobs", "10000000", "windows", "500,2000,10000")},
	{name: "window-grid", query: q("jobs", "1000000", "crash_rate", "1", "max_delays", "5000000,10000000", "windows", "100,1000,10000,100000,1000000,2000000")},
	{name: "lease", query: q("jobs", "10000000", "timeouts", windowsList(20))},
	{name: "lease", query: q("jobs", "5000000", "timeouts", windowsList(50))},
	{name: "lease", query: q("jobs", "250000", "heartbeat_loss", "0.01", "timeouts", "0.1,0.2,0.5,1,2")},
	{name: "lease", query: q("jobs", "600", "heartbeat_loss", "0.5", "timeouts", "0.01", "slow_fraction", "1", "slow_mean_s", "200")},
	{name: "claims", query: q("jobs", "5500000")},
	{name: "claims", query: q("jobs", "1200000", "crash_rate", "1", "max_delay", "10000000")},
	{name: "outbox", query: q("events", "10000000", "crash_rate", "0.5")},
}

func ratesList(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = FormatFloat(float64(i+1) / float64(n))
	}
	return strings.Join(s, ",")
}

func BenchmarkWorstAccepted(b *testing.B) {
	if !*worstFlag {
		b.Skip("needs -worst")
	}
	ctx := context.Background()
	for _, w := range worstAccepted {
		e, ok := Lookup(w.name)
		if !ok {
			b.Fatalf("no experiment %s", w.name)
		}
		p, err := e.Parse(w.query)
		if err != nil {
			b.Fatalf("%s %v: %v", w.name, w.query, err)
		}
		b.Run(fmt.Sprintf("%s/cost=%d", w.name, e.Cost(p)), func(b *testing.B) {
			for b.Loop() {
				if _, err := e.Run(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestWorstAcceptedIsAccepted keeps BenchmarkWorstAccepted honest: every run it times must be one
// Parse accepts, and within a factor of two of the budget, or it is not measuring the worst case.
func TestWorstAcceptedIsAccepted(t *testing.T) {
	for _, w := range worstAccepted {
		e, _ := Lookup(w.name)
		p, err := e.Parse(w.query)
		if err != nil {
			t.Errorf("%s %v refused: %v", w.name, w.query, err)
			continue
		}
		if c := e.Cost(p); c < MaxCost/2 && !w.byFields {
			t.Errorf("%s %v costs %d, under half the budget", w.name, w.query, c)
		}
	}
}
