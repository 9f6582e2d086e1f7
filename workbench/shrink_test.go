package workbench

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// recheck runs the smallest failing case's own parameters, as its permalink carries them, and
// the same with one job fewer (a stream without the case's one crash survives by definition, and
// is not run).
func recheck(t *testing.T, src string, s *Smallest) (at, shorter Result) {
	t.Helper()
	raw, err := url.ParseQuery(s.Query)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(raw)
	if err != nil {
		t.Fatalf("the case's query %q: %v", s.Query, err)
	}
	if p != s.Params {
		t.Errorf("the query %q reads back as %+v, not the case's %+v", s.Query, p, s.Params)
	}
	if at, err = Check(context.Background(), src, p); err != nil {
		t.Fatal(err)
	}
	shorter.Verdict.Survives = true
	if p.Jobs > 1 && p.OnlyCrash < p.Jobs-1 {
		p.Jobs--
		if shorter, err = Check(context.Background(), src, p); err != nil {
			t.Fatal(err)
		}
	}
	return at, shorter
}

// TestSmallestIsOneCrash: the smallest failing case of each design that breaks keeps one crash
// (or none, for a lease that runs out by itself), its query reproduces exactly that case, and a
// stream one job shorter survives it.
func TestSmallestIsOneCrash(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		jobs, only  int64
		text        string
	}{
		// A stream of one job: the sentence agrees with its one subject.
		{"acks-only", "", 1, NoOnlyCrash, "The stream's first job breaks the handler with no crash at all: job 0 is lost."},
		{"ack-after-work", "", 17, 16, "The first 17 jobs of the stream, in which only job 16's worker crashes (it dies after `db.apply(job.id)`), break the handler: job 16 is applied more than once."},
		{"ack-before-work", "", 17, 16, "job 16 is lost."},
		// Block 4's window: every crash of the stream used to stay in (20 of 1,017 jobs).
		{"window", "key_window=1000", 1017, 16, "only job 16's worker crashes (it dies after `tx.commit()`)"},
		{"lease-no-renewal", "crash_rate=0", 8, NoOnlyCrash, "The first 8 jobs of the stream break the handler with no crash at all: job 7 is applied more than once."},
		{"dual-write-db-first", "world=producer", 6, 5, "only job 5's request crashes as the stream draws it, break the handler: job 5's effect is committed and its event is lost."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, ok := LookupTemplate(tc.name)
			if !ok {
				tp.Source = "def handle(job, queue, db, bus):\n    queue.ack()\n"
			}
			raw, _ := url.ParseQuery(tc.query)
			p, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), tp.Source, p)
			if err != nil {
				t.Fatal(err)
			}
			s := res.Smallest
			if s == nil {
				t.Fatal("no smallest case")
			}
			if s.Params.Jobs != tc.jobs || s.Params.OnlyCrash != tc.only || !s.Exact || s.Note != "" || !strings.Contains(s.Text, tc.text) {
				t.Errorf("%d jobs, only crash %d, exact %v: %s %s; want %d jobs, only %d, %q", s.Params.Jobs, s.Params.OnlyCrash, s.Exact, s.Text, s.Note, tc.jobs, tc.only, tc.text)
			}
			at, shorter := recheck(t, tp.Source, s)
			if at.Verdict.Survives {
				t.Errorf("the case's own parameters survive: %+v", at.Points)
			}
			if !shorter.Verdict.Survives {
				t.Errorf("one job fewer breaks too: %s", shorter.Verdict.Text)
			}
			if crashes := at.Points[0].Crashed; tc.only >= 0 && crashes != 1 {
				t.Errorf("the case crashes %d deliveries, want the one", crashes)
			}
		})
	}
}

// nonMonotone breaks with job 16's crash alone in streams of 51 to 100 jobs (its redelivery,
// after the end, finds key 50 and not 100) and from 1,001 jobs on (it finds key 1000), and
// survives in between: a bisection alone would answer 1,001.
const nonMonotone = `def handle(job, queue, db, bus):
    if job.id in (50, 100, 1000):
        db.remember(job.id)
    if job.attempt > 1:
        if (db.seen(50) and not db.seen(100)) or db.seen(1000):
            db.apply(job.id)
        queue.ack()
        return
    db.apply(job.id)
    queue.ack()
`

// TestSmallestWhereBreakingIsNotMonotone: the search runs the lengths the bisection skipped and
// finds the shortest that breaks.
func TestSmallestWhereBreakingIsNotMonotone(t *testing.T) {
	p := DefaultParams()
	p.Jobs, p.CrashPoint = 2000, 1
	res, err := Check(context.Background(), nonMonotone, p)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Smallest
	if s == nil || s.Params.Jobs != 51 || s.Params.OnlyCrash != 16 || !s.Exact {
		t.Fatalf("smallest %+v, want 51 jobs with job 16's crash alone, exact", s)
	}
	at, shorter := recheck(t, nonMonotone, s)
	if at.Verdict.Survives || !shorter.Verdict.Survives {
		t.Errorf("at 51 jobs %q, at 50 %q", at.Verdict.Text, shorter.Verdict.Text)
	}
}

// TestSmallestSaysWhenItStoppedEarly: a window of 5,000 keys needs a stream thousands of jobs long
// to break, longer than the search's budget lets it try every length below: the case says so,
// and still breaks.
func TestSmallestSaysWhenItStoppedEarly(t *testing.T) {
	tp, _ := LookupTemplate("window")
	p := DefaultParams()
	p.KeyWindow, p.MaxDelay, p.CrashPoint = 5000, 10_000, 4
	res, err := Check(context.Background(), tp.Source, p)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Smallest
	if s == nil || s.Exact || !strings.Contains(s.Note, "stopped at its budget") || !strings.Contains(s.Note, "a shorter stream may break too") {
		t.Fatalf("smallest %+v, want a case that says the search stopped early", s)
	}
	if at, _ := recheck(t, tp.Source, s); at.Verdict.Survives {
		t.Errorf("the case survives its own parameters: %s", s.Query)
	}
}

// TestOnlyCrash: only_crash keeps one drawn crash; a job the stream does not crash is refused by
// name, with jobs that do crash.
func TestOnlyCrash(t *testing.T) {
	tp, _ := LookupTemplate("ack-after-work")
	p := DefaultParams()
	p.OnlyCrash = 16
	res, err := Check(context.Background(), tp.Source, p)
	if err != nil {
		t.Fatal(err)
	}
	if pt := res.Points[1]; pt.Crashed != 1 || pt.Duplicated != 1 || pt.IDs[OutcomeDuplicated][0] != 16 {
		t.Errorf("point 1 with only job 16's crash: %d crashed, %d duplicated", pt.Crashed, pt.Duplicated)
	}
	p.OnlyCrash = 17
	_, err = Check(context.Background(), tp.Source, p)
	if fe, ok := err.(interface{ For(string) string }); !ok || !strings.Contains(fe.For("only_crash"), "job 17 does not crash in this stream") ||
		!strings.Contains(fe.For("only_crash"), "the first that do are 16, 102") {
		t.Errorf("only_crash=17: %v", err)
	}
}

// TestProducerWorld: a request that crashed before its change committed failed in front of its
// caller: counted as failed, not lost, so a row that survives loses nothing; a crash point other
// than all is refused there, since the world draws its own.
func TestProducerWorld(t *testing.T) {
	p := DefaultParams()
	p.World = WorldProducer
	for _, tc := range []struct {
		name     string
		survives bool
	}{{"outbox", true}, {"dual-write-db-first", false}} {
		tp, _ := LookupTemplate(tc.name)
		res, err := Check(context.Background(), tp.Source, p)
		if err != nil {
			t.Fatal(err)
		}
		pt := res.Points[0]
		if pt.Lost != 0 || pt.Failed == nil || *pt.Failed != 406 || len(pt.IDs[OutcomeFailed]) != 406 || pt.ExactlyOnce != 19_594 ||
			pt.Survives != tc.survives || res.Verdict.Survives != tc.survives {
			t.Errorf("%s: lost %d, failed %v, once %d, survives %v (verdict %v)", tc.name, pt.Lost, pt.Failed, pt.ExactlyOnce, pt.Survives, res.Verdict.Survives)
		}
		if got := pt.Jobs(OutcomeExactlyOnce, p.Jobs); int64(len(got)) != pt.ExactlyOnce {
			t.Errorf("%s: %d jobs listed as exactly once, counted %d", tc.name, len(got), pt.ExactlyOnce)
		}
	}
	tp, _ := LookupTemplate("outbox")
	p.CrashPoint = 3
	_, err := Check(context.Background(), tp.Source, p)
	if fe, ok := err.(interface{ For(string) string }); !ok || !strings.Contains(fe.For("crash_point"), "choose all") {
		t.Errorf("crash_point=3 in the producer's world: %v", err)
	}
}
