package workbench

import (
	"context"
	"net/url"
	"testing"

	"effectivelyonce/experiments"
)

// checkTemplate runs a template at the documents' defaults, changed by query, at one crash point.
func checkTemplate(t *testing.T, name, query string, point int) Point {
	t.Helper()
	tp, ok := LookupTemplate(name)
	if !ok {
		t.Fatalf("no template %q", name)
	}
	raw, err := url.ParseQuery(query)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p.CrashPoint = int64(point)
	res, err := Check(context.Background(), tp.Source, p)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Points) != 1 {
		t.Fatalf("%s: %d points, want 1", name, len(res.Points))
	}
	return res.Points[0]
}

func experiment[P, R any](t *testing.T, f func(context.Context, P) (R, error), p P) R {
	t.Helper()
	r, err := f(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestTemplatesMatchTheAssembly: the assembly's four rows, and blocks 1, 2, 3 and 5, at the
// documents' crash point, digit for digit from the experiments' own engine.
func TestTemplatesMatchTheAssembly(t *testing.T) {
	asm := experiment(t, experiments.Assembly, experiments.DefaultStreamParams())
	for i, name := range []string{"ack-before-work", "ack-after-work", "dedup-outside-tx", "dedup-in-tx"} {
		tp, _ := LookupTemplate(name)
		pt := checkTemplate(t, name, "", tp.Point)
		row := asm.Rows[i]
		if pt.Lost != row.Lost || pt.Duplicated != row.Duplicated || pt.ExactlyOnce != row.ExactlyOnce || pt.Deliveries != row.Deliveries {
			t.Errorf("%s at %q: lost %d, once %d, dup %d, deliveries %d; the assembly's %s: %d, %d, %d, %d",
				name, pt.Label, pt.Lost, pt.ExactlyOnce, pt.Duplicated, pt.Deliveries, row.Design, row.Lost, row.ExactlyOnce, row.Duplicated, row.Deliveries)
		}
	}
	if asm.Rows[0].Lost != 398 || asm.Rows[1].Duplicated != 398 || asm.Rows[2].Duplicated != 398 || asm.Rows[3].Lost+asm.Rows[3].Duplicated != 0 {
		t.Errorf("the assembly itself moved: %+v", asm.Rows)
	}
}

func TestTemplatesMatchTheOrderings(t *testing.T) {
	ord := experiment(t, experiments.Orderings, experiments.DefaultStreamParams())
	for i, name := range []string{"key-then-effect", "dedup-outside-tx", "dedup-in-tx"} {
		tp, _ := LookupTemplate(name)
		pt := checkTemplate(t, name, "", tp.Point)
		if row := ord.Rows[i]; pt.Lost != row.Lost || pt.Duplicated != row.Duplicated {
			t.Errorf("%s: %d lost, %d duplicated; orderings' %s: %d, %d", name, pt.Lost, pt.Duplicated, row.Order, row.Lost, row.Duplicated)
		}
	}
}

func TestTemplatesMatchTheKeys(t *testing.T) {
	keys := experiment(t, experiments.Keys, experiments.DefaultStreamParams())
	for i, name := range []string{"key-job-id", "key-job-attempt", "key-uuid"} {
		tp, _ := LookupTemplate(name)
		pt := checkTemplate(t, name, "", tp.Point)
		if row := keys.Rows[i]; pt.Duplicated != row.Duplicated || pt.Deliveries != row.Deliveries {
			t.Errorf("%s: %d duplicated over %d deliveries; keys' %s: %d over %d", name, pt.Duplicated, pt.Deliveries, row.Key, row.Duplicated, row.Deliveries)
		}
	}
	if keys.Rows[0].Duplicated != 0 || keys.Rows[1].Duplicated != 398 || keys.Rows[2].Duplicated != 398 {
		t.Errorf("the keys experiment moved: %+v", keys.Rows)
	}
}

func TestWindowTemplateMatchesBlock4(t *testing.T) {
	win := experiment(t, experiments.Window, experiments.DefaultWindowParams())
	want := []int64{380, 300, 195, 104, 0, 0}
	for i, w := range win.Points {
		pt := checkTemplate(t, "window", "key_window="+experiments.FormatFloat(float64(w.Window)), 4)
		if pt.Duplicated != w.Escaped || pt.Duplicated != want[i] {
			t.Errorf("window %d: %d duplicated; the window experiment %d, the document %d", w.Window, pt.Duplicated, w.Escaped, want[i])
		}
	}
}

func TestLeaseTemplatesMatchBlock6(t *testing.T) {
	lease := experiment(t, experiments.Lease, experiments.DefaultLeaseParams())
	want := []int64{2448, 715, 499, 233, 0}
	for i, lp := range lease.Points {
		q := "crash_rate=0&lease_timeout=" + experiments.FormatFloat(lp.TimeoutS)
		if pt := checkTemplate(t, "lease-no-renewal", q, 0); pt.Duplicated != lp.NoRenewal || pt.Duplicated != want[i] || pt.Lost != 0 {
			t.Errorf("no renewal at %v s: %d duplicated, %d lost; the lease experiment %d, the document %d", lp.TimeoutS, pt.Duplicated, pt.Lost, lp.NoRenewal, want[i])
		}
		if pt := checkTemplate(t, "lease-heartbeat", q, 0); pt.Duplicated != lp.RenewThird || pt.Duplicated != 0 {
			t.Errorf("renewal at t/3, %v s: %d duplicated; the lease experiment %d", lp.TimeoutS, pt.Duplicated, lp.RenewThird)
		}
		if pt := checkTemplate(t, "lease-late-heartbeat", q, 0); pt.Duplicated != lp.RenewDoubleReal {
			t.Errorf("renewal at 2t, %v s: %d duplicated; the lease experiment's real queue %d", lp.TimeoutS, pt.Duplicated, lp.RenewDoubleReal)
		}
	}
}

// TestOutboxTemplatesMatchTheOutboxExperiment: in the producer's world, the three producer
// designs give the outbox experiment's rows. The workbench counts the copies the second system
// received, which is what a consumer without dedup applies; a consumer that dedups applies none
// twice, and the experiment's dedup rows say 0.
//
// The rows with consumer dedup have no template of their own, because the workbench's world cannot
// hold both halves. A check runs one handler. In the producer's world it is the producer, and the
// second system its events reach, with whatever consumer reads them there, is the world's: the
// reader writes no code for it, so a template "outbox plus a consumer that dedups by event id"
// would be the outbox template again, and its 0 would be the world's doing, not the handler's.
// In the consumer's world the handler is the consumer, and one that dedups by event id is
// dedup-in-tx; but its duplicates come from its own worker's crashes and the redelivery delays
// (Random(13), Random(17)), where the experiment's come from the relay dying between publishing a
// row and marking it sent (the outbox draws, three or more per event from one Random(13)), so no
// handler there meets the row's numbers. A template for that row needs a third world that hands
// the consumer each event as many times as the relay published it.
func TestOutboxTemplatesMatchTheOutboxExperiment(t *testing.T) {
	ob := experiment(t, experiments.Outbox, experiments.DefaultOutboxParams())
	names := map[experiments.OutboxDesign]string{experiments.DualWriteDBFirst: "dual-write-db-first",
		experiments.DualWritePublishFirst: "dual-write-publish-first", experiments.TransactionalOutbox: "outbox"}
	for _, row := range ob.Rows {
		if row.ConsumerDedup {
			if row.DuplicateApplications != 0 {
				t.Errorf("%s with consumer dedup applies %d twice", row.Design, row.DuplicateApplications)
			}
			continue
		}
		pt := checkTemplate(t, names[row.Design], "world=producer", AllPoints)
		if pt.EventsLost == nil || *pt.EventsLost != row.Lost || *pt.EventsPhantom != row.Phantom || *pt.ExtraEvents != row.DuplicateApplications {
			t.Errorf("%s: %+v; the outbox experiment's row: %+v", row.Design, pt, row)
		}
		if pt.Duplicated != 0 {
			t.Errorf("%s applied %d jobs twice in the producer's world", row.Design, pt.Duplicated)
		}
	}
}
