package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
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

// ClaimKind says which of the nine claims a Claim is. The ids B1 to B6 name the document's blocks,
// and B4 and B6 each stand for more than one claim, so a consumer that must tell claims apart
// switches on Kind, never on the id or on words in Text. The zero value is no claim at all, so a
// Claim built without a kind is caught rather than mistaken for the first one.
type ClaimKind int

// The nine claims, in the order Claims reports them (the document's order, B5 before B4).
const (
	ClaimAckBeforeLoses         ClaimKind = iota + 1 // B1: ack first, and each crash loses its job
	ClaimAckAfterDuplicates                          // B2: ack last, and each crash runs its job twice
	ClaimDedupKeyCatches                             // B3: a key at the sink turns the rerun into nothing
	ClaimKeyOutsideTxMisses                          // B5: a key written apart from the effect stops no rerun
	ClaimSmallWindowLeaks                            // B4: a window shorter than the longest delay leaks
	ClaimFullWindowLeaksNone                         // B4: a window as long as the longest delay leaks nothing
	ClaimShortTimeoutDoubles                         // B6: a short lease runs slow jobs twice
	ClaimLongTimeoutReachesZero                      // B6: only a lease past the slowest job runs none twice
	ClaimHeartbeatDecouples                          // B6: renewal frees the lease from the job's length
)

// claimKindNames are the kinds' stable names, indexed by kind; the empty first entry is the zero
// value's, which has none.
var claimKindNames = [...]string{
	"",
	"ack-before-loses",
	"ack-after-duplicates",
	"dedup-key-catches",
	"key-outside-tx-misses",
	"small-window-leaks",
	"full-window-leaks-none",
	"short-timeout-doubles",
	"long-timeout-reaches-zero",
	"heartbeat-decouples",
}

// ClaimKinds returns every claim kind in the order Claims reports them; the slice is the caller's own.
func ClaimKinds() []ClaimKind {
	kinds := make([]ClaimKind, 0, len(claimKindNames)-1)
	for k := range len(claimKindNames) - 1 {
		kinds = append(kinds, ClaimKind(k+1))
	}
	return kinds
}

// valid reports whether k is one of the nine claims.
func (k ClaimKind) valid() bool { return k > 0 && int(k) < len(claimKindNames) }

// String returns the kind's short kebab-case name, which stays the same across releases so that
// logs and stored JSON can rely on it; a value outside the nine reads as "unknown".
func (k ClaimKind) String() string {
	if !k.valid() {
		return "unknown"
	}
	return claimKindNames[k]
}

// MarshalText writes the kind's name, so JSON carries "ack-before-loses" rather than a number whose
// meaning would shift if the list ever changed. A kind outside the nine is an error: it can only
// come from a Claim built without one.
func (k ClaimKind) MarshalText() ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("claim kind %d has no name", int(k))
	}
	return []byte(claimKindNames[k]), nil
}

// UnmarshalText reads a name MarshalText wrote, so a stored report decodes back into kinds.
func (k *ClaimKind) UnmarshalText(b []byte) error {
	for i, name := range claimKindNames {
		if i > 0 && name == string(b) {
			*k = ClaimKind(i)
			return nil
		}
	}
	return fmt.Errorf("unknown claim kind %q", b)
}

// Claim is one of the document's statements, measured again on the run's parameters.
//
// Detail says the measured numbers in words, for a person; the numeric fields hold the same numbers
// for code, so that nothing has to read them back out of Detail. Which fields a claim sets depends
// on its Kind, as each field's comment says, and its JSON carries exactly those, zeros included (see
// MarshalJSON); the others are zero.
type Claim struct {
	// ID is the document's block, "B1" to "B6"; it ties the claim to the section that makes it.
	ID     string    `json:"id"`
	Kind   ClaimKind `json:"kind"`
	Text   string    `json:"text"`
	Holds  bool      `json:"holds"`
	Detail string    `json:"detail"`

	// Crashes is the stream's crash count, on every claim measured on the stream (B1 to B5).
	Crashes int64 `json:"crashes"`
	// Lost and Duplicated are the jobs never applied and the applications beyond a job's first,
	// on B1, B2, B3 and B5.
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
	// Window is the dedup window checked, in ids; MaxDelay the longest redelivery delay, in jobs;
	// Escaped the duplicates that got past the window. All three are on both B4 claims.
	Window   int64 `json:"window"`
	MaxDelay int64 `json:"max_delay"`
	Escaped  int64 `json:"escaped"`
	// TimeoutS is the short lease timeout, in seconds, and Doubles the jobs that outlived it and
	// so ran twice, on ClaimShortTimeoutDoubles.
	TimeoutS float64 `json:"timeout_s"`
	Doubles  int64   `json:"doubles"`
	// Doubles60 and Doubles300 are the jobs that outlived a 60 s and a 300 s timeout, on
	// ClaimLongTimeoutReachesZero.
	Doubles60  int64 `json:"doubles_60s"`
	Doubles300 int64 `json:"doubles_300s"`
}

// MarshalJSON writes the numeric fields the claim's kind measures, zeros included, and leaves the
// others out. Plain omitempty would drop the very zeros the claims are about ("escaped": 0 on the
// full window), and writing every field would put a meaningless "escaped": 0 on B1. Decoding needs
// no counterpart: the names are the struct's tags, and a missing field decodes as the zero it was.
func (c Claim) MarshalJSON() ([]byte, error) {
	out := struct {
		ID         string    `json:"id"`
		Kind       ClaimKind `json:"kind"`
		Text       string    `json:"text"`
		Holds      bool      `json:"holds"`
		Detail     string    `json:"detail"`
		Crashes    *int64    `json:"crashes,omitempty"`
		Lost       *int64    `json:"lost,omitempty"`
		Duplicated *int64    `json:"duplicated,omitempty"`
		Window     *int64    `json:"window,omitempty"`
		MaxDelay   *int64    `json:"max_delay,omitempty"`
		Escaped    *int64    `json:"escaped,omitempty"`
		TimeoutS   *float64  `json:"timeout_s,omitempty"`
		Doubles    *int64    `json:"doubles,omitempty"`
		Doubles60  *int64    `json:"doubles_60s,omitempty"`
		Doubles300 *int64    `json:"doubles_300s,omitempty"`
	}{ID: c.ID, Kind: c.Kind, Text: c.Text, Holds: c.Holds, Detail: c.Detail}
	switch c.Kind {
	case ClaimAckBeforeLoses, ClaimAckAfterDuplicates, ClaimDedupKeyCatches, ClaimKeyOutsideTxMisses:
		out.Crashes, out.Lost, out.Duplicated = &c.Crashes, &c.Lost, &c.Duplicated
	case ClaimSmallWindowLeaks, ClaimFullWindowLeaksNone:
		out.Crashes, out.Window, out.MaxDelay, out.Escaped = &c.Crashes, &c.Window, &c.MaxDelay, &c.Escaped
	case ClaimShortTimeoutDoubles:
		out.TimeoutS, out.Doubles = &c.TimeoutS, &c.Doubles
	case ClaimLongTimeoutReachesZero:
		out.Doubles60, out.Doubles300 = &c.Doubles60, &c.Doubles300
	}
	return json.Marshal(out)
}

// ClaimsResult is the verifier's report.
type ClaimsResult struct {
	Claims []Claim `json:"claims"`
	Passed int     `json:"passed"`
	Total  int     `json:"total"`
	// Crashes is how many jobs of the stream crashed, the count the stream claims compare with.
	Crashes int64 `json:"crashes"`
}

// Claims re-derives the document's nine claims with code independent of the other experiments.
// It shares only the random generator with them: its stream, sinks, redelivery queue (a heap
// rather than buckets), dedup window (insertion numbers rather than a ring) and duration draws are
// written again here, plainly, so a bug in a fast experiment cannot make its own claim pass.
//
// The claims and their order are the document's verify(), generalised from its fixed 20,000 jobs
// and 2,000-job delay to the parameters: windows are checked at max_delay/2 and max_delay, and
// "more than 1000 of 20,000" doubles at 5 s becomes "more than 5% of the jobs". The wording of
// Text and Detail is ours; at the defaults every number in it is the document's.
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
	res := ClaimsResult{Crashes: crashes}
	// add files a claim under its kind's id; the caller fills in the text and the numbers.
	add := func(c Claim) {
		c.ID = claimIDs[c.Kind]
		res.Claims = append(res.Claims, c)
		res.Total++
		if c.Holds {
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
	add(Claim{Kind: ClaimAckBeforeLoses,
		Text:  "acking before the work drops every crashed job, and nothing notices",
		Holds: lost == crashes && dup == 0,
		Detail: fmt.Sprintf("%d lost (%.2f%%), %d duplicated, against %s",
			lost, float64(lost)/float64(n)*100, dup, counted(crashes, "crash", "crashes", bare)),
		Crashes: crashes, Lost: lost, Duplicated: dup})

	if lost, dup, err = measure(atLeastOnce); err != nil {
		return ClaimsResult{}, err
	}
	add(Claim{Kind: ClaimAckAfterDuplicates,
		Text:    "acking after the work drops nothing, but each crashed job runs twice",
		Holds:   lost == 0 && dup == crashes,
		Detail:  fmt.Sprintf("%d lost, %d duplicated, against %s", lost, dup, counted(crashes, "crash", "crashes", bare)),
		Crashes: crashes, Lost: lost, Duplicated: dup})

	if lost, dup, err = measure(dedup); err != nil {
		return ClaimsResult{}, err
	}
	add(Claim{Kind: ClaimDedupKeyCatches,
		Text:    "a dedup key checked where the effect lands turns each rerun into nothing",
		Holds:   lost == 0 && dup == 0,
		Detail:  fmt.Sprintf("%d lost, %d duplicated, against %s", lost, dup, counted(crashes, "crash", "crashes", bare)),
		Crashes: crashes, Lost: lost, Duplicated: dup})

	if lost, dup, err = measure(dedupNonTx); err != nil {
		return ClaimsResult{}, err
	}
	add(Claim{Kind: ClaimKeyOutsideTxMisses,
		Text:    "a dedup key saved apart from the effect's commit stops no rerun at all",
		Holds:   dup == crashes,
		Detail:  fmt.Sprintf("%d duplicated, against %s", dup, counted(crashes, "crash", "crashes", bare)),
		Crashes: crashes, Lost: lost, Duplicated: dup})

	// B4: a dedup window protects only if it spans the longest redelivery delay; spanning the
	// average delay still lets the late ones through.
	half := p.MaxDelay / 2
	small, err := claimWindowed(ctx, crashed, half, p.MaxDelay, p.DelaySeed)
	if err != nil {
		return ClaimsResult{}, err
	}
	exact, err := claimWindowed(ctx, crashed, p.MaxDelay, p.MaxDelay, p.DelaySeed)
	if err != nil {
		return ClaimsResult{}, err
	}
	add(Claim{Kind: ClaimSmallWindowLeaks,
		Text:    "a dedup window below the max delay lets repeats through",
		Holds:   small > 0,
		Detail:  fmt.Sprintf("%d escaped a window of %s, with delays up to %s", small, counted(half, "id", "ids", bare), counted(p.MaxDelay, "job", "jobs", bare)),
		Crashes: crashes, Window: half, MaxDelay: p.MaxDelay, Escaped: small})
	add(Claim{Kind: ClaimFullWindowLeaksNone,
		Text:    "...while a window as long as the max delay lets none through",
		Holds:   exact == 0,
		Detail:  fmt.Sprintf("%d escaped a window of %s, with delays up to %s", exact, counted(p.MaxDelay, "id", "ids", bare), counted(p.MaxDelay, "job", "jobs", bare)),
		Crashes: crashes, Window: p.MaxDelay, MaxDelay: p.MaxDelay, Escaped: exact})

	// B6: a lease that is never renewed is safe only if it outlasts the slowest job; renewed
	// every t/3 with no heartbeat lost, it lasts as long as the job does, however long that is.
	l := <-leaseDone
	if l.err != nil {
		return ClaimsResult{}, l.err
	}
	d, renewOK := l.doubles, l.renewOK
	add(Claim{Kind: ClaimShortTimeoutDoubles,
		Text:     "a short lease timeout makes slow jobs run twice",
		Holds:    d[0]*20 > p.Jobs,
		Detail:   fmt.Sprintf("%d of %s outlived a %s s timeout", d[0], counted(p.Jobs, "job", "jobs", Thousands), FormatFloat(claimTimeouts[0])),
		TimeoutS: claimTimeouts[0], Doubles: d[0]})
	add(Claim{Kind: ClaimLongTimeoutReachesZero,
		Text:       "...and only a timeout beyond the slowest job runs none twice",
		Holds:      d[2] == 0 && d[1] > 0,
		Detail:     fmt.Sprintf("%d at 60 s, %d at 300 s (jobs that outlived the timeout)", d[1], d[2]),
		Doubles60:  d[1],
		Doubles300: d[2]})
	heartbeat := "every lease outlived its job at 5, 60 and 300 s, renewed every third of the timeout"
	if !renewOK {
		heartbeat = "some lease ran out before its job, though renewed every third of the timeout"
	}
	add(Claim{Kind: ClaimHeartbeatDecouples,
		Text:   "a heartbeat ties the lease to its renewals, not to the job's length",
		Holds:  renewOK,
		Detail: heartbeat})
	return res, nil
}

// claimWindowed is verify()'s windowed(): a job's redelivery, drawn randint(1, maxDelay) jobs
// after it, waits in a queue; every entry is decremented each iteration and fires at 0, in queue
// order, after the iteration's own job. Here the queue is a heap ordered by (iteration it fires,
// position in the queue), which pops entries in exactly the order the list scan would fire them.
// The dedup set forgets the oldest insertion once it holds more than window ids; it is counted
// here by insertion numbers rather than with the experiments' DedupWindow ring, so that the two
// are checked against each other.
func claimWindowed(ctx context.Context, crashed []bool, window, maxDelay, seed int64) (int64, error) {
	rng := newPyRandom(seed)
	applied := make([]uint8, len(crashed)) // a job is delivered at most twice
	// The window is the last window insertions, so no list of them is kept: each job carries the
	// number of its latest insertion (0 for none), and it is in the window while that number is
	// above inserted - window. A hit never refreshes the number; a repeat that escapes gets a new one.
	last := make([]int32, len(crashed)) // at most two insertions a job, and jobs < 2^24
	var inserted int64
	apply := func(j int) {
		if n := int64(last[j]); n != 0 && n > inserted-window {
			return
		}
		inserted++
		last[j] = int32(inserted)
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

// claimTimeouts are the lease timeouts the B6 claims check, in seconds: one the slow jobs outlive,
// one only the slowest few outlive, one past every job the document's mix draws.
var claimTimeouts = [3]float64{5, 60, 300}

// claimIDs maps each kind to the document's block that makes the claim.
var claimIDs = map[ClaimKind]string{
	ClaimAckBeforeLoses: "B1", ClaimAckAfterDuplicates: "B2", ClaimDedupKeyCatches: "B3",
	ClaimKeyOutsideTxMisses: "B5", ClaimSmallWindowLeaks: "B4", ClaimFullWindowLeaksNone: "B4",
	ClaimShortTimeoutDoubles: "B6", ClaimLongTimeoutReachesZero: "B6", ClaimHeartbeatDecouples: "B6",
}

// claimLeases is verify()'s doubles() at 5, 60 and 300 s, with the document's duration mix, and
// the renewal check: for every job and each of those timeouts t, the last heartbeat sent every
// t/3 before the job ends (or the grant, if none is) leaves a lease that outlasts the job.
func claimLeases(ctx context.Context, jobs, seed int64) (doubles [3]int64, renewOK bool, err error) {
	timeouts := claimTimeouts
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
		DefaultClaimsParams, Claims, claimsCost, lower("jobs"), lower("crash_rate"), lower("max_delay")).
		memory(claimsMemory).counts(NamedRows, claimsCounts).untraced(notJobs).shrinks(claimsShrinks).culprits(claimsCulpritRun).
		headline(headlineClaims).build()
}

// claimsCost counts, in units of about 4 ns (see MaxCost): about 260 ns a job for the stream, four
// measured designs, two windowed runs and the duration draws; and per crash, two heap pushes and
// pops whose depth is the log of the queue length (about c*max_delay/2 entries), at up to 50 ns a
// level once the heap outgrows the cache.
func claimsCost(p ClaimsParams) int64 {
	n := float64(p.Jobs)
	queue := min(n, p.CrashRate*float64(p.MaxDelay))
	return clampCost(n*66 + n*p.CrashRate*(10+12*math.Log2(2+queue)))
}

// counted writes a count with its noun in the right number ("1 job", "2000 jobs"), so a claim's
// detail reads well at any parameters. num writes the digits: bare for most details, as the
// document's verifier prints them, or with separators where it uses them ("2448 of 20,000").
func counted(n int64, one, many string, num func(int64) string) string {
	if n == 1 {
		return "1 " + one
	}
	return num(n) + " " + many
}

// bare writes an integer without separators.
func bare(n int64) string { return strconv.FormatInt(n, 10) }
