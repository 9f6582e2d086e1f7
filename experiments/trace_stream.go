package experiments

import (
	"context"
	"strconv"
)

// The stream designs (assembly, keys, orderings) and the crash sweep tell a job's story from two
// facts, its index and whether its worker crashed, so one function per experiment writes the
// events and the outcome is read off them: a listed job and its trace cannot disagree. Steps are
// job indexes; the details are fixed sentences, so that classifying a stream of ten million jobs
// allocates nothing per job.

// streamOutcomes replays the stream and calls found for each job whose events, written by story
// into a reused recorder, give the outcome.
func streamOutcomes(ctx context.Context, p StreamParams, outcome string, found func(int64),
	story func(r *recorder, j int64, crashed bool) string) error {
	s, err := drawStream(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		return err
	}
	var r recorder
	for j, crashed := range s.crashed {
		if err := cancelled(ctx, int64(j)); err != nil {
			return err
		}
		r.events = r.events[:0]
		if story(&r, int64(j), crashed) == outcome {
			found(int64(j))
		}
	}
	return nil
}

// streamStory tells one job's story: only the draws up to the job decide whether it crashed.
func streamStory(ctx context.Context, p StreamParams, id int64,
	story func(r *recorder, j int64, crashed bool) string) (string, []Event, error) {
	s, err := drawStream(ctx, id+1, p.CrashRate, p.Seed)
	if err != nil {
		return "", nil, err
	}
	var r recorder
	got := story(&r, id, s.crashed[id])
	return got, r.events, nil
}

func streamIDs(p StreamParams) int64 { return p.Jobs }

func designPoints(StreamParams) []pointAt {
	var out []pointAt
	for _, d := range Designs() {
		out = append(out, named(string(d)))
	}
	return out
}

func assemblyTracer() *tracer {
	return typedTracer("job", []string{"lost", "exactly_once", "duplicated"}, designPoints, streamIDs,
		func(ctx context.Context, p StreamParams, pt int, o string, found func(int64)) error {
			return streamOutcomes(ctx, p, o, found, func(r *recorder, j int64, c bool) string { return assemblyJob(r, pt, j, c) })
		},
		func(ctx context.Context, p StreamParams, pt int, _ string, id int64) (string, []Event, error) {
			return streamStory(ctx, p, id, func(r *recorder, j int64, c bool) string { return assemblyJob(r, pt, j, c) })
		})
}

// assemblyJob is one job under the assembly's design number kind (its index in Designs()).
func assemblyJob(r *recorder, kind int, j int64, crashed bool) string {
	t := float64(j)
	r.add(t, EventDelivered, "The queue hands the job to a worker (attempt 1).")
	switch kind {
	case 0: // at-most-once
		r.add(t, EventAcked, "The worker acks first, before doing any work, so the queue forgets the job.")
		if crashed {
			r.add(t, EventCrashed, "The worker dies after the ack and before the work: nothing was applied and nobody will retry.")
			break
		}
		r.add(t, EventApplied, "The worker does the work and the effect lands.")
	case 1: // at-least-once
		r.add(t, EventApplied, "The worker does the work first and the effect lands.")
		if crashed {
			r.add(t, EventCrashed, "The worker dies after the effect and before the ack.")
			r.add(t, EventRedeliveryScheduled, "No ack arrived, so the queue will hand the job out again.")
			r.add(t, EventRedelivered, "A second worker receives the same job (attempt 2).")
			r.add(t, EventApplied, "Nothing tells it the work was done, so the effect lands a second time.")
		}
		r.add(t, EventAcked, "The worker acks after the work.")
	case 2, 3: // dedup, key outside or inside the effect's transaction
		r.add(t, EventDedupMiss, "The dedup check does not find the job's key.")
		r.add(t, EventApplied, "The effect lands.")
		if kind == 2 {
			r.add(t, EventKeyWritten, "The key is written as a separate write, apart from the effect.")
		} else {
			r.add(t, EventKeyWritten, "The key commits in the same transaction as the effect.")
		}
		if !crashed {
			r.add(t, EventAcked, "The worker acks.")
			break
		}
		r.add(t, EventCrashed, "The worker dies before the ack.")
		if kind == 2 {
			r.add(t, EventKeyLost, "The separate key write had not become durable, so the crash loses it; the effect stays.")
		}
		r.add(t, EventRedeliveryScheduled, "No ack arrived, so the queue will hand the job out again.")
		r.add(t, EventRedelivered, "A second worker receives the same job (attempt 2).")
		if kind == 2 {
			r.add(t, EventDedupMiss, "The key is gone, so the check lets the attempt through.")
			r.add(t, EventApplied, "The effect lands a second time.")
			r.add(t, EventKeyWritten, "The key is written again.")
		} else {
			r.add(t, EventDedupHit, "The key committed with the effect is there, so the attempt changes nothing.")
		}
		r.add(t, EventAcked, "The second worker acks.")
	}
	return byApplications(r.applied())
}

func keysTracer() *tracer {
	points := func(StreamParams) []pointAt {
		var out []pointAt
		for _, k := range KeyKinds() {
			out = append(out, named(string(k)))
		}
		return out
	}
	return typedTracer("job", []string{"duplicated", "caught", "delivered_once"}, points, streamIDs,
		func(ctx context.Context, p StreamParams, pt int, o string, found func(int64)) error {
			return streamOutcomes(ctx, p, o, found, func(r *recorder, j int64, c bool) string { return keysJob(r, pt, j, c) })
		},
		func(ctx context.Context, p StreamParams, pt int, _ string, id int64) (string, []Event, error) {
			return streamStory(ctx, p, id, func(r *recorder, j int64, c bool) string { return keysJob(r, pt, j, c) })
		})
}

// keysJob is one job deduplicated with the key number kind (its index in KeyKinds()).
func keysJob(r *recorder, kind int, j int64, crashed bool) string {
	t := float64(j)
	r.add(t, EventDelivered, "The queue hands the job to a worker (attempt 1).")
	r.add(t, EventDedupMiss, "Its key has not been seen before.")
	r.add(t, EventApplied, "The effect lands.")
	r.add(t, EventKeyWritten, "The key is recorded.")
	if !crashed {
		r.add(t, EventAcked, "The worker acks; the job is never delivered again.")
		return "delivered_once"
	}
	r.add(t, EventCrashed, "The worker dies after the effect and the key, before the ack.")
	r.add(t, EventRedeliveryScheduled, "No ack arrived, so the queue will hand the job out again.")
	r.add(t, EventRedelivered, "A second worker receives the same job (attempt 2).")
	outcome := "caught"
	switch kind {
	case 0:
		r.add(t, EventDedupHit, "The key is the job id, the same as on attempt 1, so the check finds it and skips the work.")
	case 1:
		r.add(t, EventDedupMiss, "The key includes the attempt number, so attempt 2 brings a key never seen.")
	default:
		r.add(t, EventDedupMiss, "The key is a fresh id minted for this attempt, so it was never seen.")
	}
	if kind != 0 {
		r.add(t, EventApplied, "The effect lands a second time.")
		r.add(t, EventKeyWritten, "The new key is recorded, which will never match anything.")
		outcome = "duplicated"
	}
	r.add(t, EventAcked, "The second worker acks.")
	return outcome
}

func orderingsTracer() *tracer {
	points := func(StreamParams) []pointAt {
		var out []pointAt
		for _, o := range Orders() {
			out = append(out, named(string(o)))
		}
		return out
	}
	return typedTracer("job", []string{"lost", "duplicated", "exactly_once"}, points, streamIDs,
		func(ctx context.Context, p StreamParams, pt int, o string, found func(int64)) error {
			return streamOutcomes(ctx, p, o, found, func(r *recorder, j int64, c bool) string { return orderingsJob(r, pt, j, p.Jobs, c) })
		},
		func(ctx context.Context, p StreamParams, pt int, _ string, id int64) (string, []Event, error) {
			return streamStory(ctx, p, id, func(r *recorder, j int64, c bool) string { return orderingsJob(r, pt, j, p.Jobs, c) })
		})
}

// orderingsJob is one job under the ordering number kind (its index in Orders()). Redeliveries
// come after the first pass over all jobs, as the document's second loop does them, so they
// happen at step jobs.
func orderingsJob(r *recorder, kind int, j, jobs int64, crashed bool) string {
	t, late := float64(j), float64(jobs)
	r.add(t, EventDelivered, "The queue hands the job to a worker (attempt 1).")
	r.add(t, EventDedupMiss, "The dedup table has no key for it yet.")
	switch kind {
	case 0: // key, then effect
		r.add(t, EventKeyWritten, "The worker writes the key first.")
		if crashed {
			r.add(t, EventCrashed, "The worker dies between the key and the effect: the job is marked done but never ran.")
			break
		}
		r.add(t, EventApplied, "The effect lands.")
	case 1: // effect, then key
		r.add(t, EventApplied, "The worker applies the effect first.")
		if crashed {
			r.add(t, EventCrashed, "The worker dies between the effect and the key: the effect is there, the key is not.")
			break
		}
		r.add(t, EventKeyWritten, "The key is written after the effect.")
	default: // one transaction
		if crashed {
			r.add(t, EventCrashed, "The worker dies inside the transaction, so neither the key nor the effect commits.")
			break
		}
		r.add(t, EventApplied, "The effect commits in one transaction with the key.")
		r.add(t, EventKeyWritten, "The key commits with the effect.")
	}
	if !crashed {
		r.add(t, EventAcked, "The worker acks.")
		return byApplications(r.applied())
	}
	r.add(t, EventRedeliveryScheduled, "No ack arrived; the crashed jobs come back after the first pass over the stream.")
	r.add(late, EventRedelivered, "After the first pass over the stream, a second worker receives the job (attempt 2).")
	switch kind {
	case 0:
		r.add(late, EventDedupHit, "The key says done, so the worker skips a job whose effect never happened.")
	case 1:
		r.add(late, EventDedupMiss, "No key was written, so the worker goes ahead.")
		r.add(late, EventApplied, "The effect lands a second time.")
		r.add(late, EventKeyWritten, "The key is written at last.")
	default:
		r.add(late, EventDedupMiss, "The rolled-back transaction left no key, so the worker goes ahead.")
		r.add(late, EventApplied, "The effect commits, once, with the key.")
		r.add(late, EventKeyWritten, "The key commits with the effect.")
	}
	r.add(late, EventAcked, "The second worker acks.")
	return byApplications(r.applied())
}

func crashSweepTracer() *tracer {
	points := func(p CrashSweepParams) []pointAt {
		var out []pointAt
		for _, r := range p.CrashRates {
			out = append(out, swept(r))
		}
		return out
	}
	crashes := func(p CrashSweepParams, pt int, i int64) bool {
		return float64((i*7919)%100000) < p.CrashRates[pt]*100000
	}
	return typedTracer("job", []string{"lost", "duplicated", "ack_after_duplicated"}, points,
		func(p CrashSweepParams) int64 { return p.Jobs },
		func(ctx context.Context, p CrashSweepParams, pt int, o string, found func(int64)) error {
			var r recorder
			for i := range p.Jobs {
				if err := cancelled(ctx, i); err != nil {
					return err
				}
				r.events = r.events[:0]
				if crashSweepJob(&r, o == "ack_after_duplicated", i, crashes(p, pt, i)) == o {
					found(i)
				}
			}
			return nil
		},
		func(ctx context.Context, p CrashSweepParams, pt int, o string, id int64) (string, []Event, error) {
			var r recorder
			got := crashSweepJob(&r, o == "ack_after_duplicated", id, crashes(p, pt, id))
			return got, r.events, nil
		})
}

// crashSweepJob is one job of the sweep: acked before the work, as the sweep runs it, or after
// it, the column that says what moving the ack would do to the same crashes.
func crashSweepJob(r *recorder, ackAfter bool, i int64, crashed bool) string {
	t := float64(i)
	residue := "Its residue (" + strconv.FormatInt(i, 10) + " × 7919) mod 100000 is " + strconv.FormatInt((i*7919)%100000, 10)
	r.add(t, EventDelivered, "The queue hands the job to a worker (attempt 1).")
	if !ackAfter {
		r.add(t, EventAcked, "The worker acks before the work.")
		if crashed {
			r.add(t, EventCrashed, residue+", below the crash threshold: the worker dies before the work, and no error is raised.")
			return "lost"
		}
		r.add(t, EventApplied, "The effect lands.")
		return "exactly_once"
	}
	r.add(t, EventApplied, "With the ack moved after the work, the effect lands first.")
	if !crashed {
		r.add(t, EventAcked, "The worker acks.")
		return "exactly_once"
	}
	r.add(t, EventCrashed, residue+", below the crash threshold: the worker dies before the ack.")
	r.add(t, EventRedeliveryScheduled, "No ack arrived, so the queue will hand the job out again.")
	r.add(t, EventRedelivered, "A second worker receives the same job (attempt 2).")
	r.add(t, EventApplied, "The effect lands a second time.")
	r.add(t, EventAcked, "The second worker acks.")
	return "ack_after_duplicated"
}
