package experiments

// The mechanisms, written plainly. The experiments the pages run are tuned for ten million jobs
// (bitmaps, counting sorts, closed forms, context checks), and that tuning hides how little each
// mechanism is. Each function here is the same mechanism in a dozen lines of maps and loops, for a
// page to show beside the fast one; TestMechanismsMatchExperiments checks that both give the same
// counts on small streams. They take the stream as plain values: crashed[i] says whether the worker
// holding job i dies mid-job, work[i] is job i's duration in seconds.

// AckBeforeWork is at-most-once (block 1). The queue forgets a job as soon as a worker takes it,
// so a worker that dies before the effect takes its job down with it: no redelivery, no error.
func AckBeforeWork(crashed []bool) (lost, once, dup int) {
	applied := map[int]int{}
	for job, dies := range crashed {
		// The ack went out when the job was taken: from here on, the queue has no copy.
		if dies {
			continue
		}
		applied[job]++
	}
	return tally(applied, len(crashed))
}

// AckAfterWork is at-least-once (block 2). The worker acks only once the effect is done, so a
// worker that dies in between leaves the job unacked; the queue hands it out again and the effect
// happens a second time.
func AckAfterWork(crashed []bool) (lost, once, dup int) {
	applied := map[int]int{}
	for job, dies := range crashed {
		applied[job]++ // the effect
		if dies {
			applied[job]++ // no ack arrived, so the queue delivers the job again
		}
	}
	return tally(applied, len(crashed))
}

// DedupAtSink is at-least-once delivery made harmless (block 3). The sink keeps the ids of the
// jobs it has applied, in the same place as the effect, so the second delivery of a crashed job
// finds its id and changes nothing. The job is still delivered twice; it takes effect once.
func DedupAtSink(crashed []bool) (lost, once, dup int) {
	applied, seen := map[int]int{}, map[int]bool{}
	apply := func(job int) {
		if !seen[job] {
			seen[job] = true
			applied[job]++
		}
	}
	for job, dies := range crashed {
		apply(job)
		if dies {
			apply(job) // the redelivery: its id is already there
		}
	}
	return tally(applied, len(crashed))
}

// WindowedDedup is the bounded dedup of block 4. The sink remembers only the last window ids it
// applied (a queue of ids beside the set; the oldest is forgotten first), and a crashed job comes
// back delay[job] jobs later rather than at once. It returns how many redeliveries arrived after
// their id was forgotten, and so applied the effect again.
func WindowedDedup(crashed []bool, delay []int, window int) (escaped int) {
	seen, order := map[int]bool{}, []int{}
	apply := func(job int) bool {
		if seen[job] {
			return false
		}
		seen[job], order = true, append(order, job)
		if len(order) > window {
			delete(seen, order[0]) // forget the oldest id
			order = order[1:]
		}
		return true
	}
	type redelivery struct{ job, wait int }
	var queue []redelivery
	for job, dies := range crashed {
		apply(job)
		if dies {
			queue = append(queue, redelivery{job, delay[job]})
		}
		var later []redelivery
		for _, r := range queue { // one job has passed: every wait shrinks, and the due ones arrive
			if r.wait--; r.wait > 0 {
				later = append(later, r)
			} else if apply(r.job) {
				escaped++
			}
		}
		queue = later
	}
	for _, r := range queue { // the stream has ended; what is still queued arrives now
		if apply(r.job) {
			escaped++
		}
	}
	return escaped
}

// DualWrite is the dual write of block 5: the dedup key and the effect are two writes, and the
// worker may die between them. order says which is written first, or that one transaction commits
// both. After the stream, every crashed job is delivered again and skipped if its key is there.
func DualWrite(crashed []bool, order Order) (lost, dup int) {
	applied, keys := map[int]int{}, map[int]bool{}
	for job, dies := range crashed {
		switch order {
		case OrderKeyThenEffect: // dying in between marks done a job that never ran
			keys[job] = true
			if !dies {
				applied[job]++
			}
		case OrderEffectThenKey: // dying in between leaves a job done but unmarked
			applied[job]++
			if !dies {
				keys[job] = true
			}
		case OrderOneTransaction: // both writes land, or neither does
			if !dies {
				applied[job]++
				keys[job] = true
			}
		}
	}
	for job, dies := range crashed {
		if dies && !keys[job] {
			applied[job]++ // the redelivery finds no key and applies the effect
		}
	}
	lost, _, dup = tally(applied, len(crashed))
	return lost, dup
}

// LeaseWithoutRenewal is a visibility timeout with no heartbeat (block 6): the queue gives a worker
// timeout seconds, then hands the job to someone else, so every job that runs longer than the
// timeout is executed twice, whether or not its first worker was alive.
func LeaseWithoutRenewal(work []float64, timeout float64) (doubled int) {
	for _, w := range work {
		if w > timeout {
			doubled++
		}
	}
	return doubled
}

// LeaseWithRenewal adds the heartbeat (block 6): every `every` seconds while the job runs, the
// worker pushes its lease out to a full timeout from that moment. A heartbeat that comes after the
// lease has run out renews nothing, as the job already belongs to another worker, and the worker
// acks the moment its job ends. With every = timeout/3 no job is doubled however long it runs;
// with every = 2*timeout the first heartbeat is always late, and it doubles what no renewal does.
func LeaseWithRenewal(work []float64, timeout, every float64) (doubled int) {
	for _, w := range work {
		expires := timeout
		for beat := every; beat < w && beat <= expires; beat += every {
			expires = beat + timeout
		}
		if w > expires {
			doubled++
		}
	}
	return doubled
}

// tally reads per-job application counts as the documents report them: jobs never applied,
// applied once, and applied more than once.
func tally(applied map[int]int, jobs int) (lost, once, dup int) {
	for job := range jobs {
		switch n := applied[job]; {
		case n == 0:
			lost++
		case n == 1:
			once++
		default:
			dup++
		}
	}
	return lost, once, dup
}
