package workbench

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestExplanations: a failing point is explained from the durable state at one job's crash and
// what its redelivery did, naming the job; its timeline is in the experiments' vocabulary.
func TestExplanations(t *testing.T) {
	for _, tc := range []struct {
		name, query string
		point       int
		want        []string
		kinds       []experiments.EventKind
	}{
		{"ack-before-work", "", 1, []string{"Job 16 was lost", "right after `queue.ack()` (line 5)", "the ack had been sent", "never came back"},
			[]experiments.EventKind{experiments.EventDelivered, experiments.EventAcked, experiments.EventCrashed}},
		{"dedup-outside-tx", "", 2, []string{"Job 16 was applied twice", "no key of it was committed", "found no key 16", "died before its key was written", "applied job 16 again"},
			[]experiments.EventKind{experiments.EventDedupMiss, experiments.EventApplied, experiments.EventCrashed, experiments.EventRedeliveryScheduled, experiments.EventRedelivered}},
		{"key-then-effect", "", 1, []string{"Job 16 was lost", "its key was committed", "found the key 16", "skipped the job, whose effect had never happened"}, nil},
		{"key-job-attempt", "", 4, []string{"looked for a different key than the (16, 1)"}, nil},
		{"window", "key_window=1000", 4, []string{"the key window had forgotten it", "keeps the last 1,000 keys", "a key of job 1016 pushed this one out"},
			[]experiments.EventKind{experiments.EventEvicted}},
		{"lease-no-renewal", "crash_rate=0", 0, []string{"longer than its 5 s lease", "nothing renewed it", "At 5 s and 10 s the queue handed the job", "all 3 applied its effect"},
			[]experiments.EventKind{experiments.EventStarted, experiments.EventLeaseExpired, experiments.EventRedelivered, experiments.EventFinished}},
		{"dual-write-db-first", "", 4, []string{"no event about it was ever published", "published no event either"}, nil},
		{"dual-write-db-first", "world=producer", AllPoints, []string{"Job 5's effect was committed", "the producer died at its second write, right after `tx.commit()` (line 9)",
			"At that moment the effect was committed, its key was committed and its event had not been published", "Its caller does not retry"}, nil},
		{"dual-write-publish-first", "world=producer", AllPoints, []string{"the producer died at its second write, right after `tx.apply(job.id)` (line 8)", "its event had been published"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, _ := LookupTemplate(tc.name)
			raw, _ := url.ParseQuery(tc.query)
			p, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			p.CrashPoint = int64(tc.point)
			res, err := Check(context.Background(), tp.Source, p)
			if err != nil {
				t.Fatal(err)
			}
			pt := res.Points[0]
			if pt.Survives || pt.Job == nil {
				t.Fatalf("point %d survives: %+v", tc.point, pt)
			}
			for _, w := range tc.want {
				if !strings.Contains(pt.Explanation, w) {
					t.Errorf("explanation lacks %q:\n%s", w, pt.Explanation)
				}
			}
			// The producer's world has no queue, so its sentences speak of no ack.
			if p.World == WorldProducer && strings.Contains(pt.Explanation, "ack") {
				t.Errorf("a producer's explanation speaks of an ack:\n%s", pt.Explanation)
			}
			// A crash says an open transaction died only when one was open.
			for _, e := range pt.Timeline {
				if e.Kind == experiments.EventCrashed && strings.Contains(e.Detail, "transaction") && !strings.Contains(tp.Source, "db.begin()") {
					t.Errorf("the crash of a handler with no transaction tells of one: %s", e.Detail)
				}
			}
			kinds := map[experiments.EventKind]bool{}
			for _, e := range pt.Timeline {
				kinds[e.Kind] = true
			}
			for _, k := range tc.kinds {
				if !kinds[k] {
					t.Errorf("timeline lacks %s: %+v", k, pt.Timeline)
				}
			}
			if !slices.ContainsFunc([]string{OutcomeLost, OutcomeDuplicated, OutcomeEventsLost, OutcomeEventsPhantom}, func(o string) bool { return contains(pt.IDs[o], *pt.Job) }) {
				t.Errorf("job %d is behind none of the point's counts", *pt.Job)
			}
		})
	}
}

func TestCrashAgain(t *testing.T) {
	tp, _ := LookupTemplate("key-job-attempt")
	p := DefaultParams()
	p.CrashPoint, p.CrashAgain = 4, true
	res, err := Check(context.Background(), tp.Source, p)
	if err != nil {
		t.Fatal(err)
	}
	pt := res.Points[0]
	// The crashed jobs are delivered three times and applied three times; the dedup-in-tx design
	// is unmoved by a second crash.
	if pt.Duplicated != 398 || pt.Deliveries != 20_000+2*398 || !strings.Contains(pt.Explanation, "applied 3 times") {
		t.Errorf("crash again: %d duplicated, %d deliveries; %s", pt.Duplicated, pt.Deliveries, pt.Explanation)
	}
	tp, _ = LookupTemplate("dedup-in-tx")
	res, err = Check(context.Background(), tp.Source, p)
	if err != nil || !res.Verdict.Survives {
		t.Errorf("dedup-in-tx with a second crash: %v %+v", err, res.Verdict)
	}
}

func TestTraceJob(t *testing.T) {
	tp, _ := LookupTemplate("ack-after-work")
	tr, err := TraceJob(context.Background(), tp.Source, DefaultParams(), 1, 16)
	if err != nil {
		t.Fatal(err)
	}
	if tr.ID != 16 || tr.Outcome != OutcomeDuplicated || tr.StepUnit != "job" || len(tr.Events) < 6 || tr.Events[0].Kind != experiments.EventDelivered {
		t.Errorf("trace %+v", tr)
	}
	if _, err := TraceJob(context.Background(), tp.Source, DefaultParams(), 1, 20_000); err == nil {
		t.Error("a job past the stream was traced")
	}
}

func TestParse(t *testing.T) {
	p, err := Parse(url.Values{"jobs": {"2,000"}, "crash_point": {"all"}, "crash_again": {"yes"}, "world": {"producer"}, "format": {"json"}}, "format")
	if err != nil || p.Jobs != 2000 || p.CrashPoint != AllPoints || !p.CrashAgain || p.World != WorldProducer {
		t.Fatalf("%+v %v", p, err)
	}
	if q := p.Query(); q != "jobs=2000&crash_again=yes&world=producer" {
		t.Errorf("query %q", q)
	}
	back, err := url.ParseQuery(p.Query())
	if err != nil {
		t.Fatal(err)
	}
	if again, err := Parse(back); err != nil || again != p {
		t.Errorf("the permalink does not carry the parameters back: %+v %v", again, err)
	}
	for _, tc := range []struct{ field, value, want string }{
		{"only_crash", "many", `"many" is not a number; it must be "none" or a whole number from 0 to 99,999`},
		{"jobs", "0", "0 is out of range; it must be a whole number from 1 to 100,000"},
		{"crash_point", "last", `"last" is not a number; it must be "all" or a whole number from 0 to 100`},
		{"world", "mars", `"mars" is not accepted; it must be one of "consumer", "producer"`},
		{"crash_again", "maybe", `it must be one of "no", "yes"`},
		{"windows", "5", "a check has no parameter of this name"},
	} {
		_, err := Parse(url.Values{tc.field: {tc.value}})
		fe, ok := err.(experiments.FieldErrors)
		if !ok || !strings.Contains(fe.For(tc.field), tc.want) {
			t.Errorf("%s=%s: %v, want %q", tc.field, tc.value, err, tc.want)
		}
	}
}

// TestCrashEventTellsOfOpenTransactions: the crash after a commit leaves no transaction open, and
// the crash inside one says it dies uncommitted.
func TestCrashEventTellsOfOpenTransactions(t *testing.T) {
	tp, _ := LookupTemplate("dedup-in-tx")
	crashed := func(point int) string {
		t.Helper()
		p := DefaultParams()
		p.Jobs = 40
		tr, err := TraceJob(context.Background(), tp.Source, p, point, 16)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tr.Events {
			if e.Kind == experiments.EventCrashed {
				return e.Detail
			}
		}
		t.Fatalf("no crash at point %d: %+v", point, tr.Events)
		return ""
	}
	if d := crashed(2); !strings.Contains(d, "its open transaction dies with it") {
		t.Errorf("inside the transaction: %q", d)
	}
	if d := crashed(4); strings.Contains(d, "transaction") {
		t.Errorf("after the commit: %q", d)
	}
}

// TestQueryOver: a link over a template's parameters carries every value that differs from the
// template's, a default included, so the template's own value cannot come back underneath.
func TestQueryOver(t *testing.T) {
	tmpl, _ := Parse(url.Values{"world": {"producer"}, "key_window": {"1000"}})
	p := DefaultParams()
	p.Jobs = 6
	q := p.QueryOver(tmpl)
	if q != "jobs=6&key_window=0&world=consumer" {
		t.Errorf("over the template: %q", q)
	}
	raw, _ := url.ParseQuery("world=producer&key_window=1000")
	over, _ := url.ParseQuery(q)
	for k, v := range over {
		raw[k] = v
	}
	if again, err := Parse(raw); err != nil || again != p {
		t.Errorf("the template's query under the link gives %+v, %v; want %+v", again, err, p)
	}
}
