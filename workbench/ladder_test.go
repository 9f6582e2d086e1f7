package workbench

import (
	"context"
	"net/url"
	"testing"
)

// TestLadderHasAnswers holds every rung to an answer: the start (its template at the template's
// parameters) breaks, and a reference answer survives there; for the window, the smallest window
// that survives is the answer, so one key less must break.
func TestLadderHasAnswers(t *testing.T) {
	dedupInTx, _ := LookupTemplate("dedup-in-tx")
	outbox, _ := LookupTemplate("outbox")
	answers := map[string]struct {
		source string
		set    func(*Params)
		// below, when set, is a change that one step short of the answer breaks again.
		below func(*Params)
	}{
		"ack-after-work": {source: dedupInTx.Source},
		"window": {set: func(p *Params) { p.KeyWindow = 1998 },
			below: func(p *Params) { p.KeyWindow = 1997 }},
		"dual-write-db-first": {source: outbox.Source},
	}
	ladder := Ladder()
	if len(ladder) != len(answers) {
		t.Fatalf("%d rungs, %d answers", len(ladder), len(answers))
	}
	check := func(src string, p Params) Result {
		t.Helper()
		res, err := Check(context.Background(), src, p)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, r := range ladder {
		t.Run(r.Template, func(t *testing.T) {
			tp, ok := LookupTemplate(r.Template)
			if !ok {
				t.Fatalf("the rung %q starts from no template", r.Title)
			}
			raw, _ := url.ParseQuery(tp.Query)
			p, err := Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if res := check(tp.Source, p); res.Verdict.Survives {
				t.Errorf("the start already survives: %s", res.Verdict.Text)
			}
			a, ok := answers[r.Template]
			if !ok {
				t.Fatalf("no reference answer for %q", r.Title)
			}
			if ref, _ := LookupTemplate(r.Answer); a.source != "" && ref.Source != a.source || a.source == "" && r.Answer != r.Template {
				t.Errorf("the rung names %q as its answer, which is not the answer this test holds it to", r.Answer)
			}
			if ReferenceFor(r.Template) != r.Answer {
				t.Errorf("a handler round from %s would show %q as its reference, not the rung's answer %q", r.Template, ReferenceFor(r.Template), r.Answer)
			}
			src := tp.Source
			if a.source != "" {
				src = a.source
			}
			ap := p
			if a.set != nil {
				a.set(&ap)
			}
			if res := check(src, ap); !res.Verdict.Survives {
				t.Errorf("the reference answer breaks: %s", res.Verdict.Text)
			}
			if a.below != nil {
				bp := p
				a.below(&bp)
				if res := check(src, bp); res.Verdict.Survives {
					t.Errorf("one step short of the answer survives too, so the answer is not the smallest")
				}
			}
		})
	}
}

// TestNoHandlerSurvivesAShortWindow tries the handlers a reader might write against a window
// shorter than the delays: keys in the effect's transaction, keys written apart, a key per
// attempt, keys only on a first delivery. Each breaks, as Ladder's comment argues they must.
func TestNoHandlerSurvivesAShortWindow(t *testing.T) {
	p := DefaultParams()
	p.KeyWindow, p.Jobs = 1000, 6000
	for name, src := range map[string]string{
		"in the transaction":    "def handle(job, queue, db, bus):\n    tx = db.begin()\n    if tx.remember(job.id):\n        tx.apply(job.id)\n    tx.commit()\n    queue.ack()\n",
		"seen, then remember":   "def handle(job, queue, db, bus):\n    if db.seen(job.id):\n        queue.ack()\n        return\n    tx = db.begin()\n    tx.remember(job.id)\n    tx.apply(job.id)\n    tx.commit()\n    queue.ack()\n",
		"key only when retried": "def handle(job, queue, db, bus):\n    tx = db.begin()\n    if job.attempt == 1 or tx.remember(job.id):\n        tx.apply(job.id)\n    if job.attempt == 1:\n        tx.remember(job.id)\n    tx.commit()\n    queue.ack()\n",
	} {
		res, err := Check(context.Background(), src, p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Verdict.Survives {
			t.Errorf("%s survives a window of 1,000 keys against delays of 2,000 jobs", name)
		}
	}
}

// TestReferenceForEveryTemplate: every template has a reference a handler round can show, one of
// the templates, and it survives at the template's own parameters.
func TestReferenceForEveryTemplate(t *testing.T) {
	for _, tp := range Templates() {
		ref, ok := LookupTemplate(ReferenceFor(tp.Name))
		if !ok {
			t.Errorf("%s: the reference %q is no template", tp.Name, ReferenceFor(tp.Name))
			continue
		}
		raw, _ := url.ParseQuery(tp.Query)
		p, err := Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if tp.Name == "window" {
			p.KeyWindow = p.MaxDelay // the rung's answer is a window, not another handler
		}
		p.Jobs = 2000
		res, err := Check(context.Background(), ref.Source, p)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Verdict.Survives {
			t.Errorf("%s: its reference %s breaks at the template's parameters: %s", tp.Name, ref.Name, res.Verdict.Text)
		}
	}
}
