package experiments

import (
	"cmp"
	"context"
	"fmt"
	"slices"
)

// The lease's counts at one timeout are four renewal policies over the same jobs, so a job's story
// depends on the policy: Trace takes the outcome (a policy's count name) to pick it, no_renewal
// when none is given. A job that ran once under the policy has the outcome "once". Steps are
// seconds since the job was first taken.

var leaseOutcomes = []string{"no_renewal", "renew_third", "renew_double", "renew_double_real", "once"}

// maxBeats bounds the heartbeats a trace lists: a slow job under a short lease sends thousands,
// and the ones that decide its fate are the first, the lost and the late.
const maxBeats = 40

func leaseTracer() *tracer {
	return typedTracer("s", leaseOutcomes,
		func(p LeaseParams) []pointAt {
			var out []pointAt
			for _, t := range p.Timeouts {
				out = append(out, swept(t))
			}
			return out
		},
		func(p LeaseParams) int64 { return p.Jobs },
		classifyLease, traceLease)
}

// leasePolicy returns the walk of a model policy at the timeout, with its own loss stream, as
// Lease sets it up; nil for the policies that are not walked.
func leasePolicy(p LeaseParams, t float64, policy string) *renewal {
	var pl renewal
	switch policy {
	case "renew_third":
		pl = renewal{timeout: t, every: t / 3, cover: 3}
	case "renew_double":
		pl = renewal{timeout: t, every: 2 * t, cover: 0}
	default:
		return nil
	}
	if p.HeartbeatLoss > 0 {
		pl.rng = newPyRandom(p.LossSeed)
	}
	return &pl
}

// leaseDoubled decides one job under the policy with the same functions Lease counts with.
func leaseDoubled(ctx context.Context, p LeaseParams, pl *renewal, policy string, t, work float64) (bool, error) {
	switch policy {
	case "renew_third", "renew_double":
		return pl.lapses(ctx, work, p.HeartbeatLoss)
	case "renew_double_real":
		return lateRenewalLapses(work, 2*t, t), nil
	}
	return work > t, nil
}

func classifyLease(ctx context.Context, p LeaseParams, pt int, outcome string, found func(int64)) error {
	t := p.Timeouts[pt]
	policy := outcome
	if policy == "once" {
		// "once" lists the jobs that end within the lease without any renewal, the story a trace
		// tells when no policy is named.
		policy = "no_renewal"
	}
	pl := leasePolicy(p, t, policy)
	rng := newPyRandom(p.Seed)
	for j := range p.Jobs {
		if err := cancelled(ctx, j); err != nil {
			return err
		}
		work := drawWork(rng, p)
		doubled, err := leaseDoubled(ctx, p, pl, policy, t, work)
		if err != nil {
			return err
		}
		if doubled == (outcome != "once") {
			found(j)
		}
	}
	return nil
}

func traceLease(ctx context.Context, p LeaseParams, pt int, outcome string, id int64) (string, []Event, error) {
	t := p.Timeouts[pt]
	policy := outcome
	if policy == "" || policy == "once" {
		policy = "no_renewal"
	}
	pl := leasePolicy(p, t, policy)
	rng := newPyRandom(p.Seed)
	var work float64
	for j := int64(0); j <= id; j++ {
		if err := cancelled(ctx, j); err != nil {
			return "", nil, err
		}
		work = drawWork(rng, p)
		if j < id && pl != nil && p.HeartbeatLoss > 0 {
			// Earlier jobs' heartbeats use up the policy's loss stream before this job's.
			if _, err := pl.lapses(ctx, work, p.HeartbeatLoss); err != nil {
				return "", nil, err
			}
		}
	}
	var r recorder
	r.add(0, EventStarted, fmt.Sprintf("Worker 1 takes job %d, whose work lasts %s s; its lease of %s s runs out at %s s unless renewed.",
		id, seconds(work), seconds(t), seconds(t)))
	// end is when worker 1 reports the job done. A real queue hears it the moment the work ends;
	// the document's models (renew every t/3, every 2t) hear it only on a heartbeat tick, so a
	// short job still holds its lease for a whole interval (see renewal). The story keeps the two
	// apart: the work ends at work, the report comes at end.
	var expiry, end float64
	var doubled bool
	switch policy {
	case "no_renewal":
		doubled, expiry, end = work > t, t, work
	case "renew_double_real":
		doubled, expiry = leaseRealWalk(&r, work, t)
		end = work
	default:
		doubled, expiry = leaseModelWalk(&r, pl, work, p.HeartbeatLoss)
		end = max(work, pl.every)
	}
	if !doubled {
		if end > work {
			r.add(work, EventFinished, fmt.Sprintf("Worker 1's work ends at %s s; this model has it report completion only on its next heartbeat tick, at %s s.",
				seconds(work), seconds(end)))
			r.add(end, EventAcked, fmt.Sprintf("At %s s the report arrives while the lease still holds; the ack removes the job from the queue: it ran once.", seconds(end)))
		} else {
			r.add(end, EventFinished, fmt.Sprintf("Worker 1 finishes at %s s, while its lease still holds.", seconds(end)))
			r.add(end, EventAcked, "Its ack removes the job from the queue: it ran once.")
		}
		sortEvents(r.events)
		return "once", r.events, nil
	}
	if work > expiry {
		r.add(expiry, EventLeaseExpired, fmt.Sprintf("The lease runs out at %s s while worker 1 is still busy: its work lasts until %s s.",
			seconds(expiry), seconds(work)))
	} else {
		// Only the document's renew-at-2t model gets here: the work is over, but its report waits
		// for a heartbeat tick that comes after the lease.
		r.add(expiry, EventLeaseExpired, fmt.Sprintf("The lease runs out at %s s. Worker 1's work is over, but it has not reported it yet (that waits for its heartbeat tick at %s s), so the queue still counts the job as running.",
			seconds(expiry), seconds(end)))
	}
	r.add(expiry, EventRedelivered, "The queue sees an expired lease, not a slow worker, and hands the job to worker 2, which starts it again.")
	if end > work {
		r.add(work, EventFinished, fmt.Sprintf("Worker 1's work ends at %s s; the document's model has it report completion only on its first heartbeat tick, at %s s.",
			seconds(work), seconds(end)))
		r.add(end, EventHeartbeatLate, fmt.Sprintf("Worker 1's heartbeat at %s s reports the job done, but its lease ran out at %s s: the job is already worker 2's.",
			seconds(end), seconds(expiry)))
	} else {
		r.add(work, EventFinished, fmt.Sprintf("Worker 1 finishes at %s s; its lease had already run out at %s s.", seconds(work), seconds(expiry)))
	}
	again := fmt.Sprintf("Worker 2 runs the job again for the same %s s and finishes at %s s: the job was executed twice.",
		seconds(work), seconds(expiry+work))
	if end > work {
		again = fmt.Sprintf("Worker 2 runs the job again for the same %s s, so its work ends at %s s (it reports on its own heartbeat tick, at %s s): the job was executed twice.",
			seconds(work), seconds(expiry+work), seconds(expiry+end))
	}
	r.add(expiry+work, EventFinished, again)
	sortEvents(r.events)
	return policy, r.events, nil
}

// leaseModelWalk records lapses' walk of one job's heartbeats (see renewal.lapses), drawing from
// the policy's loss stream exactly as it does, and returns whether the lease lapsed and when.
func leaseModelWalk(r *recorder, pl *renewal, work, loss float64) (bool, float64) {
	rr, t := pl.every, pl.timeout
	h := max(work, rr)
	var last int64
	lapsed := false
	shown, hidden := 0, 0
	note := func(step float64, kind EventKind, detail string) {
		if shown < maxBeats {
			r.add(step, kind, detail)
			shown++
			return
		}
		hidden++
	}
	var expiry float64
	for k := int64(1); float64(k)*rr < h; k++ {
		at := float64(k) * rr
		lost := loss > 0 && pl.rng.random() < loss
		switch {
		case lapsed:
		case k-last > pl.cover:
			lapsed = true
			expiry = float64(last)*rr + t
			note(at, EventHeartbeatLate, fmt.Sprintf("Heartbeat %d arrives at %s s, after the lease ran out at %s s: it renews nothing.",
				k, seconds(at), seconds(expiry)))
		case lost:
			note(at, EventHeartbeatLost, fmt.Sprintf("Heartbeat %d, sent at %s s, is lost.", k, seconds(at)))
		default:
			last = k
			note(at, EventRenewed, fmt.Sprintf("Heartbeat %d at %s s renews the lease to %s s.", k, seconds(at), seconds(at+t)))
		}
	}
	if hidden > 0 {
		r.add(h, EventRenewed, fmt.Sprintf("%d more heartbeats follow, not listed one by one.", hidden))
	}
	if lapsed {
		return true, expiry
	}
	expiry = float64(last)*rr + t
	return expiry < h, expiry
}

// leaseRealWalk records lateRenewalLapses: heartbeats every 2t, and only one arriving by the
// current expiry renews, so none ever does.
func leaseRealWalk(r *recorder, work, t float64) (bool, float64) {
	every, expiry := 2*t, t
	for k := 1.0; k*every < work && k*every <= expiry; k++ {
		expiry = k*every + t
		r.add(k*every, EventRenewed, fmt.Sprintf("A heartbeat at %s s renews the lease to %s s.", seconds(k*every), seconds(expiry)))
	}
	if work > expiry && every < work {
		r.add(every, EventHeartbeatLate, fmt.Sprintf("The first heartbeat comes at %s s, after the lease ran out at %s s: a real queue ignores it.",
			seconds(every), seconds(expiry)))
	}
	return work > expiry, expiry
}

// sortEvents puts a trace in step order, keeping the order of events at the same step.
func sortEvents(ev []Event) {
	slices.SortStableFunc(ev, func(a, b Event) int { return cmp.Compare(a.Step, b.Step) })
}

// seconds writes a time for a sentence: to the millisecond, trailing zeros dropped.
func seconds(s float64) string {
	return FormatFloat(float64(int64(s*1000+0.5)) / 1000)
}
