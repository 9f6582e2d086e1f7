package experiments

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestEveryDefinitionIsWhole: every experiment of the catalog gives every part of its definition.
// The lacks of all experiments are said in one failure, so a new experiment learns at once all it
// still needs rather than one part per run.
func TestEveryDefinitionIsWhole(t *testing.T) {
	if msg := lacksOf(All()); msg != "" {
		t.Fatalf("definitions that are not whole (each part goes in the experiment's xxxExperiment function):\n%s", msg)
	}
	for _, id := range []string{"q1", "q2", "q3", "q4", "q5"} {
		if _, ok := Answering(id); !ok {
			t.Errorf("no experiment answers %s", id)
		}
	}
	// The questions come in the order content/predictions.md asks them, q1 first.
	for i, q := range Questions() {
		if want := fmt.Sprintf("q%d", i+1); q.ID != want {
			t.Errorf("question %d of the catalog is %s, want %s: the catalog and the definitions list them in the order they are asked", i+1, q.ID, want)
		}
	}
}

// TestLacksSaysEveryMissingPart: a definition with only its spec is told every part it lacks in
// one message, and a part given for other types is named too.
func TestLacksSaysEveryMissingPart(t *testing.T) {
	bare := define("bare", "Bare", "A definition with nothing but its spec.", streamFields,
		DefaultStreamParams, Assembly, streamCost).build()
	msg := lacksOf([]*Experiment{bare})
	for _, want := range []string{"bare lacks", "a memory estimate", "its counts", "a tracer", "a headline"} {
		if !strings.Contains(msg, want) {
			t.Errorf("lacks = %q, want it to mention %q", msg, want)
		}
	}
	if n := strings.Count(msg, "\n"); n != 0 {
		t.Errorf("lacks of one experiment took %d lines, want one: %q", n+1, msg)
	}
	crossed := define("crossed", "Crossed", "A tracer of another experiment.", streamFields,
		DefaultStreamParams, Assembly, streamCost).
		memory(streamMemory).counts(NamedRows, assemblyCounts).traced(windowTracer()).headline(headlineAssembly).build()
	if got := crossed.Lacks(); len(got) != 1 || !strings.Contains(got[0], "WindowParams") {
		t.Errorf("crossed lacks %q, want only its tracer's wrong type named", got)
	}
	// A verifier's searches and the run its culprits are traced in come together: either alone
	// is named.
	searchOnly := define("search-only", "Search only", "Searches with no run to trace culprits in.", Verifier().Fields,
		DefaultClaimsParams, Claims, claimsCost).
		memory(claimsMemory).counts(NamedRows, claimsCounts).untraced(notJobs).shrinks(claimsShrinks).headline(headlineClaims).build()
	if got := searchOnly.Lacks(); len(got) != 1 || !strings.Contains(got[0], ".culprits") {
		t.Errorf("search-only lacks %q, want only the run its culprits are traced in", got)
	}
	tracesOnly := define("traces-only", "Traces only", "A culprit run with no searches.", Verifier().Fields,
		DefaultClaimsParams, Claims, claimsCost).
		memory(claimsMemory).counts(NamedRows, claimsCounts).untraced(notJobs).culprits(claimsCulpritRun).headline(headlineClaims).build()
	if got := tracesOnly.Lacks(); len(got) != 1 || !strings.Contains(got[0], ".shrinks") {
		t.Errorf("traces-only lacks %q, want only the searches", got)
	}
	if whole, _ := Lookup("assembly"); whole.Lacks() != nil {
		t.Errorf("assembly lacks %q", whole.Lacks())
	}
}

// TestAnswersAtTheDefaults pins the five prediction questions at the document's values, each
// measured by the experiment that answers it.
func TestAnswersAtTheDefaults(t *testing.T) {
	for _, tc := range []struct {
		id, experiment string
		want           int64
	}{
		{"q1", "assembly", 398}, {"q2", "assembly", 398}, {"q3", "assembly", 0},
		{"q4", "window", 195}, {"q5", "lease", 2448},
	} {
		e, ok := Answering(tc.id)
		if !ok || e.Name != tc.experiment {
			t.Fatalf("%s answered by %v, want %s", tc.id, e, tc.experiment)
		}
		res, err := e.Run(context.Background(), e.Defaults())
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := e.Answer(tc.id, e.Defaults(), res); !ok || got != tc.want {
			t.Errorf("%s = %d, %v; want %d", tc.id, got, ok, tc.want)
		}
	}
	w, _ := Lookup("window")
	if _, ok := w.Answer("q1", w.Defaults(), WindowResult{}); ok {
		t.Error("window answered q1")
	}
	if _, ok := w.Answer("q4", w.Defaults(), AssemblyResult{}); ok {
		t.Error("window answered q4 from a result of another type")
	}
}

// TestMemoryEstimates runs each experiment that keeps a slot per job at a million jobs, with few
// and with all jobs crashing and the widest windows, and checks that its Memory is at least what
// the run allocated in all (an upper bound of what it holds at once), and not so far above it that
// admission would turn runs away for nothing.
func TestMemoryEstimates(t *testing.T) {
	for _, tc := range []struct {
		name  string
		query map[string][]string
	}{
		{"assembly", q("jobs", "1000000")},
		{"assembly", q("jobs", "1000000", "crash_rate", "1")},
		{"keys", q("jobs", "1000000", "crash_rate", "1")},
		{"orderings", q("jobs", "1000000", "crash_rate", "0.5")},
		{"claims", q("jobs", "1000000")},
		{"window", q("jobs", "1000000", "crash_rate", "1", "max_delay", "1000000", "windows", "1000000")},
		{"window", q("jobs", "1000000", "crash_rate", "0.3", "max_delay", "100", "windows", "100,200")},
		{"window-grid", q("jobs", "1000000", "crash_rate", "1", "max_delays", "100,1000000", "windows", "1000000")},
		{"lease", q("jobs", "1000000")},
		{"outbox", q("events", "1000000", "crash_rate", "0.5")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, ok := Lookup(tc.name)
			if !ok {
				t.Fatalf("no experiment %q", tc.name)
			}
			p, err := e.Parse(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			if _, err := e.Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			used := int64(after.TotalAlloc - before.TotalAlloc)
			est := e.Memory(p)
			t.Logf("%v: allocated %d KB, estimate %d KB", tc.query, used>>10, est>>10)
			if est < used {
				t.Errorf("estimate %d KB is below the %d KB the run allocated", est>>10, used>>10)
			}
			if est > 3*used+smallRun {
				t.Errorf("estimate %d KB is over three times the %d KB the run allocated", est>>10, used>>10)
			}
		})
	}
}
