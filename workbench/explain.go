package workbench

import (
	"context"
	"fmt"
	"strings"

	"effectivelyonce/experiments"
)

// explain fills in a failing point's explanation and timeline, told for its first failing job.
func (c *checker) explain(pt *Point) error {
	job, outcome := int64(-1), ""
	for _, o := range []string{OutcomeDuplicated, OutcomeLost, OutcomeEventsLost, OutcomeEventsPhantom} {
		if c.e.producer && o == OutcomeLost {
			continue
		}
		if ids := pt.IDs[o]; len(ids) > 0 && (job < 0 || ids[0] < job) {
			job, outcome = ids[0], o
		}
	}
	if job < 0 {
		return nil
	}
	t, err := c.traced(pt.CrashPoint, int(c.p.Jobs), int32(job))
	if err != nil {
		return err
	}
	pt.Job, pt.Timeline = &job, t.events
	pt.Explanation = c.sentence(t, int32(job), outcome, pt.CrashPoint)
	return nil
}

// traced reruns a point with one job's life recorded.
func (c *checker) traced(k, n int, job int32) (*tracer, error) {
	t := newTracer(job, c.rt, c.e.in)
	c.e.w.tr = t
	defer func() { c.e.w.tr = nil }()
	if err := c.pass(run{point: k, n: n}); err != nil {
		return nil, err
	}
	return t, nil
}

// TraceJob tells one job's life at one crash point (AllPoints is refused) as events, in the
// shape of the experiments' timelines. Like Check, it runs the handler in this process.
func TraceJob(ctx context.Context, src string, p Params, point int, job int64) (experiments.Trace, error) {
	c, err := start(ctx, src, p)
	if err != nil {
		return experiments.Trace{}, err
	}
	defer c.stop()
	if job < 0 || job >= p.Jobs {
		return experiments.Trace{}, experiments.FieldErrors{{Field: "id", Message: fmt.Sprintf("%s is not a job of this stream; it must be a whole number from 0 to %s", thousands(job), thousands(p.Jobs-1))}}
	}
	if err := c.pass(run{point: -1, n: c.e.jobs}); err != nil {
		return experiments.Trace{}, err
	}
	t, err := c.traced(point, c.e.jobs, int32(job))
	if err != nil {
		return experiments.Trace{}, err
	}
	pt := c.tally(point, c.e.jobs)
	outcome := OutcomeExactlyOnce
	for _, o := range []string{OutcomeLost, OutcomeDuplicated} {
		if contains(pt.IDs[o], job) {
			outcome = o
		}
	}
	unit := "job"
	if c.e.lease {
		unit = "s"
	}
	return experiments.Trace{ID: job, Outcome: outcome, Point: pt.Label, StepUnit: unit, Events: t.events}, nil
}

func contains(ids []int64, j int64) bool {
	for _, x := range ids {
		if x == j {
			return true
		}
	}
	return false
}

// isRead reports whether an operation asks the dedup table something.
func isRead(k opKind) bool {
	return k == opSeen || k == opRemember || k == opTxSeen || k == opTxRemember
}

// applies reports whether the delivery's operations put the job's effect in the sink.
func applies(ops []op, job int32) bool {
	pending := map[int32]bool{}
	for _, o := range ops {
		switch o.kind {
		case opApply:
			if o.arg == job {
				return true
			}
		case opTxApply:
			if o.arg == job {
				pending[o.tx] = true
			}
		case opCommit:
			if o.res && pending[o.tx] {
				return true
			}
		}
	}
	return false
}

// sentence explains one failing job in the reader's terms.
func (c *checker) sentence(t *tracer, job int32, outcome string, k int) string {
	if len(t.facts) == 0 {
		return ""
	}
	f0 := t.facts[0]
	var b strings.Builder
	what := map[string]string{
		OutcomeLost:          fmt.Sprintf("Job %d was lost", job),
		OutcomeDuplicated:    fmt.Sprintf("Job %d was applied %s", job, times(c.e.w.applied[job])),
		OutcomeEventsLost:    fmt.Sprintf("Job %d's effect was committed, but no event about it was ever published", job),
		OutcomeEventsPhantom: fmt.Sprintf("An event about job %d was published, but its effect never committed", job),
	}[outcome]
	b.WriteString(what)
	if !f0.crashed {
		if c.e.lease && f0.expired {
			fmt.Fprintf(&b, ": it took %s s, longer than its %s s lease", seconds(f0.work), seconds(c.p.LeaseTimeout))
			if r := renewOf(f0.ops); r > c.p.LeaseTimeout {
				fmt.Fprintf(&b, ", and a heartbeat every %s s comes after a %s s lease has already run out", seconds(r), seconds(c.p.LeaseTimeout))
			} else if r == 0 {
				b.WriteString(", and nothing renewed it")
			}
			b.WriteString(". " + handovers(t.facts))
			if outcome == OutcomeDuplicated {
				b.WriteString(", " + appliedBy(len(t.facts), int(c.e.w.applied[job])) + ".")
			} else {
				b.WriteString(".")
			}
			return b.String()
		}
		b.WriteString(". No worker died on it; its deliveries are in the timeline.")
		return b.String()
	}
	// The crash, and the durable state it left.
	switch {
	case c.e.producer:
		nth := map[int]string{1: "first", 2: "second"}[f0.beforeWrite]
		if nth == "" {
			nth = "next"
		}
		fmt.Fprintf(&b, ": the producer died at its %s write", nth)
		if len(f0.ops) > 0 {
			o := f0.ops[len(f0.ops)-1]
			fmt.Fprintf(&b, ", right after %s", t.label(&o))
		}
	case len(f0.ops) == 0:
		b.WriteString(": the worker died before doing anything")
	default:
		o := f0.ops[len(f0.ops)-1]
		fmt.Fprintf(&b, ": the worker died right after %s", t.label(&o))
	}
	// The producer's world has no queue: a request is handled once, so there is no ack to tell of.
	var state []string
	if !c.e.producer {
		state = append(state, "the ack "+yes(f0.acked, "had been sent", "had not been sent"))
	}
	state = append(state, "the effect "+yes(f0.applied > 0, "was committed", "was not committed"))
	if c.e.keyed {
		state = append(state, yes(f0.keysHeld, "its key was committed", "no key of it was committed"))
	}
	if c.e.published {
		state = append(state, "its event "+yes(f0.published > 0, "had been published", "had not been published"))
	}
	b.WriteString(". At that moment " + andList(state))
	b.WriteString(". ")
	if c.e.producer {
		b.WriteString("Its caller does not retry, so nothing ever completed the change.")
		return b.String()
	}
	if len(t.facts) < 2 {
		if f0.acked {
			b.WriteString("The queue had already forgotten the job, so it never came back")
		} else {
			b.WriteString("It never came back")
		}
		if f0.applied == 0 {
			b.WriteString(", and its effect never happened.")
		} else {
			b.WriteString(".")
		}
		return b.String()
	}
	f1 := t.facts[1]
	when := ""
	switch {
	case c.e.lease:
		when = fmt.Sprintf(" at %s s, when the lease ran out", seconds(f1.at))
	case f0.late:
		when = " after the stream's last job"
	default:
		when = fmt.Sprintf(" %s jobs later", thousands(int64(f1.at-f0.at)))
	}
	fmt.Fprintf(&b, "The redelivery came%s", when)
	read := -1
	for i, o := range f1.ops {
		if isRead(o.kind) {
			read = i
			break
		}
	}
	again := applies(f1.ops, job)
	if read < 0 {
		b.WriteString(", checked no key")
	} else {
		o := f1.ops[read]
		found := o.res == (o.kind == opSeen || o.kind == opTxSeen)
		key := t.in.text(o.arg)
		if found {
			fmt.Fprintf(&b, " and found the key %s at %s", key, t.label(&o))
		} else {
			fmt.Fprintf(&b, ", found no key %s at %s", key, t.label(&o))
			b.WriteString(c.missingKeyReason(t, f0, o.arg))
		}
	}
	republished := false
	for _, o := range f1.ops {
		if o.kind == opPublish || o.kind == opTxOutbox {
			republished = true
		}
	}
	switch {
	case outcome == OutcomeEventsLost && !republished:
		b.WriteString(", and published no event either, so none was ever sent.")
	case again:
		fmt.Fprintf(&b, ", and applied job %d again.", job)
	case outcome == OutcomeLost:
		b.WriteString(", and skipped the job, whose effect had never happened.")
	default:
		b.WriteString(", and did not apply it again.")
	}
	return b.String()
}

// missingKeyReason says why a redelivery did not find a key.
func (c *checker) missingKeyReason(t *tracer, f0 deliveryFacts, looked int32) string {
	wrote := int32(-1)
	for _, k := range t.keys {
		wrote = k
		break
	}
	switch {
	case t.evictions > 0 && wrote == looked:
		return fmt.Sprintf(", because the key window had forgotten it: it keeps the last %s keys, and a key of job %d pushed this one out", thousands(c.p.KeyWindow), t.evictedBy)
	case wrote >= 0 && wrote != looked:
		return fmt.Sprintf(", because it looked for a different key than the %s the first delivery wrote: a key that changes between attempts never matches", t.in.text(wrote))
	case pendingKey(f0.ops):
		return ", because the key was written in a transaction the crash left uncommitted"
	default:
		return ", because the first delivery died before its key was written"
	}
}

// pendingKey reports whether the operations staged a key in a transaction they never committed.
func pendingKey(ops []op) bool {
	staged := map[int32]bool{}
	for _, o := range ops {
		switch o.kind {
		case opTxRemember:
			if o.res {
				staged[o.tx] = true
			}
		case opCommit, opRollback:
			delete(staged, o.tx)
		}
	}
	return len(staged) > 0
}

func renewOf(ops []op) float64 {
	for _, o := range ops {
		if o.kind == opWork {
			return o.renew
		}
	}
	return 0
}

// handovers says when a lease that ran out handed a job to another worker, from the deliveries'
// facts: the first delivery's, then one for each handover.
func handovers(facts []deliveryFacts) string {
	var at []string
	for _, f := range facts[1:] {
		at = append(at, seconds(f.at)+" s")
	}
	if len(at) == 1 {
		return fmt.Sprintf("At %s the queue handed the job to another worker while the first was still working", at[0])
	}
	when := andList(at)
	if len(at) > 4 {
		when = fmt.Sprintf("%s, %s, … and %s (%d times)", at[0], at[1], at[len(at)-1], len(at))
	}
	return fmt.Sprintf("At %s the queue handed the job to yet another worker, each time while the ones before were still working", when)
}

// appliedBy says how many of a job's deliveries applied its effect.
func appliedBy(deliveries, applied int) string {
	switch {
	case deliveries == 2 && applied == 2:
		return "and both applied its effect"
	case applied == deliveries:
		return fmt.Sprintf("and all %d applied its effect", applied)
	}
	return fmt.Sprintf("and %d of its %d deliveries applied its effect", applied, deliveries)
}

// andList joins clauses as a sentence does: "a", "a and b", "a, b and c".
func andList(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func yes(b bool, t, f string) string {
	if b {
		return t
	}
	return f
}

func times(n uint16) string {
	if n == 2 {
		return "twice"
	}
	return thousands(int64(n)) + " times"
}
