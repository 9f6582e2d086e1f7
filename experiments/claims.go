package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// ClaimsParams are the verifier's inputs: the job stream, the redelivery delays and the lease seed.
// The verifier checks its windows at max_delay/2 and max_delay, and its timeouts at 5, 60 and 300 s.
type ClaimsParams struct {
	Jobs      int64   `json:"jobs"`
	CrashRate float64 `json:"crash_rate"`
	Seed      int64   `json:"seed"`
	MaxDelay  int64   `json:"max_delay"`
	DelaySeed int64   `json:"delay_seed"`
	LeaseSeed int64   `json:"lease_seed"`
}

// DefaultClaimsParams are the document's.
func DefaultClaimsParams() ClaimsParams {
	return ClaimsParams{Jobs: 20_000, CrashRate: 0.02, Seed: 13, MaxDelay: 2000, DelaySeed: 17, LeaseSeed: 31}
}

// Claim is one re-derived statement of the document.
type Claim struct {
	ID     string `json:"id"`
	Text   string `json:"text"`
	Holds  bool   `json:"holds"`
	Detail string `json:"detail"`
}

// ClaimsResult is the verifier's report.
type ClaimsResult struct {
	Claims []Claim `json:"claims"`
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
}

// Claims re-derives the document's nine claims with code independent of the other experiments.
// It shares only the random generator with them: its stream, sinks, redelivery queue (a heap
// rather than buckets), dedup window (a growing slice rather than a ring) and duration draws are
// written again here, plainly, so a bug in a fast experiment cannot make its own claim pass.
//
// The claims, their order and their details are the document's verify(), generalised from its
// fixed 20,000 jobs and 2,000-job delay to the parameters: windows are checked at max_delay/2 and
// max_delay, and "more than 1000 of 20,000" doubles at 5 s becomes "more than 5% of the jobs".
// Its durations are the document's: 95% with mean 2 s, 5% with mean 40 s, from lease_seed.
func Claims(ctx context.Context, p ClaimsParams) (ClaimsResult, error) {
	// The lease claims share nothing with the others, and drawing 20,000 durations is half the
	// work, so they run on a second core while the stream claims run on this one.
	type leases struct {
		doubles [3]int64
		renewOK bool
		err     error
	}
	leaseDone := make(chan leases, 1)
	go func() {
		var l leases
		l.doubles, l.renewOK, l.err = claimLeases(ctx, p.Jobs, p.LeaseSeed)
		leaseDone <- l
	}()
	n := int(p.Jobs)
	crashed := make([]bool, n)
	var crashes int64
	rng := newPyRandom(p.Seed)
	for i := range crashed {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return ClaimsResult{}, err
			}
		}
		crashed[i] = rng.random() < p.CrashRate
		if crashed[i] {
			crashes++
		}
	}
	var res ClaimsResult
	add := func(id, text string, holds bool, detail string) {
		res.Claims = append(res.Claims, Claim{ID: id, Text: text, Holds: holds, Detail: detail})
		res.Total++
		if holds {
			res.Passed++
		}
	}

	// measure is verify()'s measure(): applications counted per job, then lost = jobs never
	// applied and dup = applications beyond the first.
	const (
		atMostOnce = iota
		atLeastOnce
		dedup
		dedupNonTx
	)
	measure := func(kind int) (lost, dup int64, err error) {
		applied := make([]uint8, n) // a job is delivered at most twice
		seen := make([]bool, n)
		for jid, c := range crashed {
			if jid%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return 0, 0, err
				}
			}
			switch kind {
			case atMostOnce:
				if !c {
					applied[jid]++
				}
			case atLeastOnce:
				applied[jid]++
				if c {
					applied[jid]++
				}
			case dedup:
				attempts := 1
				if c {
					attempts = 2
				}
				for range attempts {
					if seen[jid] {
						continue
					}
					seen[jid] = true
					applied[jid]++
				}
			case dedupNonTx:
				if !seen[jid] {
					seen[jid] = true
					applied[jid]++
				}
				if c {
					seen[jid] = false // key lost in the crash
					if !seen[jid] {
						seen[jid] = true
						applied[jid]++
					}
				}
			}
		}
		for _, v := range applied {
			if v == 0 {
				lost++
			} else {
				dup += int64(v - 1)
			}
		}
		return lost, dup, nil
	}

	lost, dup, err := measure(atMostOnce)
	if err != nil {
		return ClaimsResult{}, err
	}
	add("B1", "ack-before-work loses exactly the crashed jobs, silently",
		lost == crashes && dup == 0,
		fmt.Sprintf("%d lost (%.2f%%), %d duplicated", lost, float64(lost)/float64(n)*100, dup))

	if lost, dup, err = measure(atLeastOnce); err != nil {
		return ClaimsResult{}, err
	}
	add("B2", "ack-after-work loses nothing and duplicates the same jobs",
		lost == 0 && dup == crashes,
		fmt.Sprintf("%d lost, %d duplicated -- the identical crash window", lost, dup))

	if lost, dup, err = measure(dedup); err != nil {
		return ClaimsResult{}, err
	}
	add("B3", "a dedup key at the sink makes the redelivery a no-op",
		lost == 0 && dup == 0, fmt.Sprintf("%d lost, %d duplicated", lost, dup))

	if _, dup, err = measure(dedupNonTx); err != nil {
		return ClaimsResult{}, err
	}
	add("B5", "a dedup key written OUTSIDE the transaction catches none of them",
		dup == crashes, fmt.Sprintf("%d duplicated -- exactly the crash rate, so the dedup did nothing", dup))

	// B4: the window must reach the maximum redelivery delay, not the mean.
	half := p.MaxDelay / 2
	small, err := claimWindowed(ctx, crashed, half, p.MaxDelay, p.DelaySeed)
	if err != nil {
		return ClaimsResult{}, err
	}
	exact, err := claimWindowed(ctx, crashed, p.MaxDelay, p.MaxDelay, p.DelaySeed)
	if err != nil {
		return ClaimsResult{}, err
	}
	add("B4", "a window below the max redelivery delay leaks duplicates",
		small > 0, fmt.Sprintf("%d escaped at window=%d, max delay=%d", small, half, p.MaxDelay))
	add("B4", "...and a window at the max delay leaks exactly zero",
		exact == 0, fmt.Sprintf("%d escaped at window=%d", exact, p.MaxDelay))

	// B6: without renewal the timeout must exceed the slowest job; with renewal every t/3 and no
	// lost heartbeat, a lease ends no earlier than the job, whatever its length.
	l := <-leaseDone
	if l.err != nil {
		return ClaimsResult{}, l.err
	}
	d, renewOK := l.doubles, l.renewOK
	add("B6", "a short visibility timeout double-executes slow jobs",
		d[0]*20 > p.Jobs, fmt.Sprintf("%d of %s at a 5 s timeout", d[0], Thousands(p.Jobs)))
	add("B6", "...and only a timeout far beyond the slowest job reaches zero",
		d[2] == 0 && d[1] > 0, fmt.Sprintf("%d at 60 s, %d at 300 s", d[1], d[2]))
	add("B6", "a heartbeat removes the dependency on job duration entirely",
		renewOK, "renewal is bounded by the renewal interval, not the work")
	return res, nil
}

// claimWindowed is verify()'s windowed(): a job's redelivery, drawn randint(1, maxDelay) jobs
// after it, waits in a queue; every entry is decremented each iteration and fires at 0, in queue
// order, after the iteration's own job. Here the queue is a heap ordered by (iteration it fires,
// position in the queue), which pops entries in exactly the order the list scan would fire them.
// The dedup set forgets the oldest insertion once it holds more than window ids.
func claimWindowed(ctx context.Context, crashed []bool, window, maxDelay, seed int64) (int64, error) {
	rng := newPyRandom(seed)
	seen := make([]bool, len(crashed))
	applied := make([]uint8, len(crashed))                                        // a job is delivered at most twice
	order := make([]int32, 0, min(2*len(crashed), int(min(window, 1<<30))+1<<17)) // ids in insertion order; see the compaction below
	head := 0
	apply := func(j int) {
		if seen[j] {
			return
		}
		seen[j] = true
		order = append(order, int32(j))
		if int64(len(order)-head) > window {
			seen[order[head]] = false
			head++
			if head >= 1<<16 && 2*head >= len(order) { // drop the evicted prefix now and then
				order = append(order[:0], order[head:]...)
				head = 0
			}
		}
		applied[j]++
	}
	// The heap holds fire<<seqBits | seq: ordering those integers orders by (fire, seq), and the
	// job is found from seq, so each entry is one word and a comparison is one instruction.
	var q redeliveryHeap
	var queued []int // queued[seq] is the job of the seq-th redelivery queued
	for jid, c := range crashed {
		if jid%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		apply(jid)
		if c {
			fire := uint64(int64(jid) + rng.randint(1, maxDelay) - 1)
			q.push(fire<<seqBits | uint64(len(queued)))
			queued = append(queued, jid)
		}
		for len(q) > 0 && q[0]>>seqBits <= uint64(jid) {
			apply(queued[q.pop()&(1<<seqBits-1)])
		}
	}
	rest := []uint64(q)
	slices.SortFunc(rest, func(a, b uint64) int { // queue order is seq order
		return cmp.Compare(a&(1<<seqBits-1), b&(1<<seqBits-1))
	})
	for _, e := range rest {
		apply(queued[e&(1<<seqBits-1)])
	}
	var escaped int64
	for _, v := range applied {
		if v > 1 {
			escaped += int64(v - 1)
		}
	}
	return escaped, nil
}

// seqBits holds a queue position: at most one redelivery per job, and jobs < 2^24. The iteration a
// redelivery fires is below jobs + max_delay < 2^25, so a heap entry needs 49 bits.
const seqBits = 24

// redeliveryHeap is a binary min-heap of integers, written out rather than through container/heap,
// whose interface boxing allocates on every push.
type redeliveryHeap []uint64

func (h *redeliveryHeap) push(x uint64) {
	*h = append(*h, x)
	q := *h
	i := len(q) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if q[parent] <= x {
			break
		}
		q[i] = q[parent]
		i = parent
	}
	q[i] = x
}

func (h *redeliveryHeap) pop() uint64 {
	q := *h
	top := q[0]
	last := q[len(q)-1]
	q = q[:len(q)-1]
	i := 0
	for {
		child := 2*i + 1
		if child >= len(q) {
			break
		}
		if child+1 < len(q) && q[child+1] < q[child] {
			child++
		}
		if last <= q[child] {
			break
		}
		q[i] = q[child]
		i = child
	}
	if len(q) > 0 {
		q[i] = last
	}
	*h = q
	return top
}

// claimLeases is verify()'s doubles() at 5, 60 and 300 s, with the document's duration mix, and
// the renewal check: for every job and each of those timeouts t, the last heartbeat sent every
// t/3 before the job ends (or the grant, if none is) leaves a lease that outlasts the job.
func claimLeases(ctx context.Context, jobs, seed int64) (doubles [3]int64, renewOK bool, err error) {
	timeouts := [3]float64{5, 60, 300}
	var per [3]float64 // heartbeats per second at each timeout, to multiply rather than divide
	for k, t := range timeouts {
		per[k] = 1 / (t / 3)
	}
	rng := newPyRandom(seed)
	renewOK = true
	for i := int64(0); i < jobs; i++ {
		if i%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return doubles, false, err
			}
		}
		var work float64
		if rng.random() > 0.05 {
			work = rng.expovariate(1 / 2.0)
		} else {
			work = rng.expovariate(1 / 40.0)
		}
		for k, t := range timeouts {
			if work > t {
				doubles[k]++
			}
			every := t / 3
			held := max(work, every) // completion is reported on a heartbeat tick
			// The last heartbeat before the job ends is the last multiple of every below held (or
			// at it, which only makes the check easier to pass by a hair).
			last := math.Floor(held*per[k]) * every
			if last+t < held {
				renewOK = false
			}
		}
	}
	return doubles, renewOK, nil
}

func claimsExperiment() *Experiment {
	return define("claims", "The nine claims, re-derived",
		"Every claim of the hands-on page checked from scratch, on these parameters.",
		[]Field{fieldJobs, fieldCrashRate, fieldSeed, fieldMaxDelay, fieldDelaySeed,
			{Name: "lease_seed", Label: "Duration seed", Help: "Seed of the job durations; 31 reproduces the document.", Kind: KindInt, MinInt: 0, MaxInt: 1<<63 - 1}},
		DefaultClaimsParams, Claims, claimsCost)
}

// claimsCost counts, in units of about 4 ns (see MaxCost): about 260 ns a job for the stream, four
// measured designs, two windowed runs and the duration draws; and per crash, two heap pushes and
// pops whose depth is the log of the queue length (about c*max_delay/2 entries), at up to 50 ns a
// level once the heap outgrows the cache.
func claimsCost(p ClaimsParams) (int64, string) {
	n := float64(p.Jobs)
	queue := min(n, p.CrashRate*float64(p.MaxDelay))
	return clampCost(n*66 + n*p.CrashRate*(10+12*math.Log2(2+queue))), "jobs"
}
