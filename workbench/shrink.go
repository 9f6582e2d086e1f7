package workbench

import (
	"fmt"
	"slices"

	"effectivelyonce/experiments"
)

// The smallest failing case is a crash point, one crash and a stream length. The stream, delays
// and durations are drawn job by job, so the first n jobs of a check are exactly a check of n
// jobs; and a pass may keep one job's crash of all the stream draws (keepOnly), with every delay
// as drawn, so the single crash is the one it was among the others.
//
// Whether a stream breaks need not grow with its length: a redelivery that came after the
// stream's end in a short stream comes inside a longer one, and may find what it did not. So the
// length is found in two steps. A bisection, which assumes it does grow, finds a length that
// breaks with the length below it surviving; then every shorter length not yet tried is run,
// shortest first, until one breaks (the true shortest, since all below it were run) or they are
// all run (the bisection's answer was the shortest), or the budget below runs out, and then the
// case says which lengths were not tried.

// scanBudget bounds the jobs the search for the shortest length simulates in its second step,
// summed over its passes: about half a second of a core, when passes cost their usual half a
// microsecond a job.
const scanBudget = 1_000_000

// crashSet is which of the stream's drawn crashes a pass keeps: the engine's crashed and prod.
type crashSet struct {
	crashed []bool
	prod    []experiments.ProducerCrash
}

// Kinds of culprit a case has.
const (
	culpritNone  = -2 // the handler breaks with no crash at all
	culpritDrawn = -1 // no single crash breaks it alone: every crash the stream draws
)

// search is the state of one check's search for its smallest failing case.
type search struct {
	c     *checker
	drawn crashSet // the crashes the check ran with
	one   crashSet // a set with one crash, moved from job to job
	none  crashSet
	onAt  int // the job one now crashes, -1 none
	// spent counts the jobs the search's passes simulated; first is what its first step spent.
	spent, first int64
}

func (c *checker) newSearch() *search {
	e := c.e
	s := &search{c: c, drawn: crashSet{e.crashed, e.prod}, onAt: -1}
	if e.producer {
		s.one.prod = make([]experiments.ProducerCrash, len(e.prod))
		s.none.prod = make([]experiments.ProducerCrash, len(e.prod))
	} else {
		s.one.crashed = make([]bool, len(e.crashed))
		s.none.crashed = make([]bool, len(e.crashed))
	}
	return s
}

// use makes the engine's crashes those of culprit: one job's, none, or all drawn.
func (s *search) use(culprit int64) {
	e := s.c.e
	switch culprit {
	case culpritDrawn:
		e.crashed, e.prod = s.drawn.crashed, s.drawn.prod
		return
	case culpritNone:
		e.crashed, e.prod = s.none.crashed, s.none.prod
		return
	}
	if s.onAt >= 0 {
		if s.one.prod != nil {
			s.one.prod[s.onAt] = experiments.ProducerCrash{}
		} else {
			s.one.crashed[s.onAt] = false
		}
	}
	s.onAt = int(culprit)
	if s.one.prod != nil {
		s.one.prod[culprit] = s.drawn.prod[culprit]
	} else {
		s.one.crashed[culprit] = true
	}
	e.crashed, e.prod = s.one.crashed, s.one.prod
}

// drawsCrash reports whether the check's own stream crashes job j.
func (s *search) drawsCrash(j int64) bool {
	if s.drawn.prod != nil {
		c := s.drawn.prod[j]
		return c.First || c.Second || c.RelayCrashes > 0
	}
	return s.drawn.crashed[j]
}

// fails runs the first n jobs at point k with culprit's crashes and reports whether they break.
func (s *search) fails(k int, culprit, n int64) (bool, error) {
	s.use(culprit)
	s.spent += n
	if err := s.c.pass(run{point: k, n: int(n)}); err != nil {
		return false, err
	}
	return !s.c.survives(s.c.tally(k, int(n))), nil
}

// failingIDs are the jobs behind a point's failing counts, in id order.
func failingIDs(pt Point) []int64 {
	var ids []int64
	for _, o := range []string{OutcomeLost, OutcomeDuplicated, OutcomeEventsLost, OutcomeEventsPhantom} {
		ids = append(ids, pt.IDs[o]...)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// culprits are the crashes to try alone, likeliest first: no crash at all when the first job to
// break did not crash (a lease that ran out, say), then the crashes of the failing jobs
// themselves, then the crashes just before the first of them, since a failure can be another
// job's doing.
func (s *search) culprits(pt Point) []int64 {
	failing := failingIDs(pt)
	if len(failing) == 0 {
		return nil
	}
	var out []int64
	if !s.drawsCrash(failing[0]) {
		out = append(out, culpritNone)
	}
	for _, j := range failing {
		if len(out) >= 4 {
			break
		}
		if s.drawsCrash(j) {
			out = append(out, j)
		}
	}
	for j, before := failing[0]-1, 0; j >= 0 && before < 2; j-- {
		if s.drawsCrash(j) && !slices.Contains(out, j) {
			out = append(out, j)
			before++
		}
	}
	return out
}

// found is one failing case the search has: point, culprit, length, and the lengths below it
// not yet known to survive, from lo up (lo > n-1 when none are left).
type found struct {
	pt      Point
	culprit int64
	n, lo   int64
}

// lowest is the shortest length a culprit's case can have: its crash must be in the stream.
func lowest(culprit int64) int64 {
	if culprit >= 0 {
		return culprit + 1
	}
	return 1
}

// caseFor finds pt's case: the first culprit that breaks it alone over the whole stream (every
// drawn crash if none does), and a length for it. A culprit whose case could not be shorter than
// best's is not tried.
func (s *search) caseFor(pt Point, best *found) (*found, error) {
	k, jobs := pt.CrashPoint, s.c.p.Jobs
	try := func(culprit int64) (*found, error) {
		lo := lowest(culprit)
		if best != nil && lo >= best.n {
			return nil, nil
		}
		// The first guess: the stream up to the culprit, where its redelivery comes after the
		// end. Most designs break there already, and then nothing shorter can.
		if ok, err := s.fails(k, culprit, lo); err != nil || ok {
			if err != nil {
				return nil, err
			}
			return &found{pt: pt, culprit: culprit, n: lo, lo: lo}, nil
		}
		if lo >= jobs {
			return nil, nil
		}
		if ok, err := s.fails(k, culprit, jobs); err != nil || !ok {
			return nil, err
		}
		// Bisect on (lo, jobs]: hi breaks, and the lengths up to bottom are known to survive.
		bottom, hi := lo, jobs
		for hi-bottom > 1 {
			mid := bottom + (hi-bottom)/2
			ok, err := s.fails(k, culprit, mid)
			if err != nil {
				return nil, err
			}
			if ok {
				hi = mid
			} else {
				bottom = mid
			}
		}
		return &found{pt: pt, culprit: culprit, n: hi, lo: lo + 1}, nil
	}
	for _, culprit := range s.culprits(pt) {
		f, err := try(culprit)
		if f != nil || err != nil {
			return f, err
		}
	}
	if best != nil {
		return nil, nil
	}
	return try(culpritDrawn)
}

// scan runs the lengths of f below its bisection's answer that no pass has shown to survive,
// shortest first, within the budget. It returns f shortened to the first that breaks, with
// f.lo past n-1 when every length below n is known to survive, or stopped where the budget ran
// out.
func (s *search) scan(f *found) error {
	// The bisection ran n-1 and saw it survive; lo..n-2 are the lengths it skipped.
	for m := f.lo; m < f.n-1; m++ {
		if s.spent+m > s.spentLimit() {
			f.lo = m
			return nil
		}
		ok, err := s.fails(f.pt.CrashPoint, f.culprit, m)
		if err != nil {
			return err
		}
		if ok {
			f.n = m
			break
		}
	}
	f.lo = f.n
	return nil
}

// spentLimit is the budget of the whole search: what the first step spent, and scanBudget more.
func (s *search) spentLimit() int64 { return s.first + scanBudget }

// smallest finds the smallest failing case over the failing points: the single crash that still
// breaks the handler (or none, or every drawn crash when no one crash does), and the shortest
// start of the stream that breaks with it, as parameters a permalink carries.
func (c *checker) smallest(points []Point) (*Smallest, error) {
	s := c.newSearch()
	defer s.use(culpritDrawn)
	var best *found
	for _, pt := range points {
		if pt.Survives {
			continue
		}
		f, err := s.caseFor(pt, best)
		if err != nil {
			return nil, err
		}
		if f != nil && (best == nil || f.n < best.n || (best.culprit == culpritDrawn && f.culprit != culpritDrawn)) {
			best = f
		}
	}
	if best == nil {
		return nil, nil
	}
	s.first = s.spent
	bisected := best.n
	if err := s.scan(best); err != nil {
		return nil, err
	}
	if err := c.pass(run{point: best.pt.CrashPoint, n: int(best.n)}); err != nil {
		return nil, err
	}
	small := c.tally(best.pt.CrashPoint, int(best.n))
	job, outcome := firstFailure(small, best.culprit)

	p := c.p
	p.Jobs = best.n
	p.CrashPoint = int64(best.pt.CrashPoint)
	if c.e.producer {
		p.CrashPoint = AllPoints
	}
	switch best.culprit {
	case culpritNone:
		p.CrashRate, p.OnlyCrash = 0, NoOnlyCrash
	case culpritDrawn:
	default:
		p.OnlyCrash = best.culprit
	}
	out := &Smallest{Params: p, Query: p.Query(), Job: job, Outcome: outcome, Exact: best.lo >= best.n}
	out.Text = c.smallestText(best, job, outcome)
	if !out.Exact {
		out.Note = fmt.Sprintf("The search for a shorter stream stopped at its budget: %s survive, but not every length from %s to %s jobs was tried, so a shorter stream may break too.",
			lengths(lowest(best.culprit), best.lo-1), thousands(best.lo), thousands(bisected-2))
	}
	return out, nil
}

// lengths says that a range of stream lengths was run, as the subject of a sentence.
func lengths(from, to int64) string {
	if from == to {
		return "a stream of " + jobsWord(from)
	}
	return fmt.Sprintf("streams of %s to %s jobs", thousands(from), thousands(to))
}

func jobsWord(n int64) string {
	if n == 1 {
		return "1 job"
	}
	return thousands(n) + " jobs"
}

// smallestText tells a case in words.
func (c *checker) smallestText(f *found, job int64, outcome string) string {
	n := f.n
	stream := fmt.Sprintf("The first %s of the stream", thousands(n)+" jobs")
	verb := "break"
	if n == 1 {
		stream, verb = "The stream's first job", "breaks"
	}
	failure := failureWords(job, outcome)
	unit := "worker"
	if c.e.producer {
		unit = "request"
	}
	switch f.culprit {
	case culpritNone:
		return fmt.Sprintf("%s %s the handler with no crash at all: %s.", stream, verb, failure)
	case culpritDrawn:
		if c.e.producer {
			return fmt.Sprintf("No single crash breaks the handler alone. %s, with every crash the stream draws, %s it: %s.", stream, verb, failure)
		}
		return fmt.Sprintf("No single crash breaks the handler alone. %s, with every crash the stream draws (the %s %s), %s it: %s.",
			stream, unit, f.pt.Label, verb, failure)
	}
	if c.e.producer {
		return fmt.Sprintf("%s, in which only job %d's request crashes as the stream draws it, %s the handler: %s.", stream, f.culprit, verb, failure)
	}
	return fmt.Sprintf("%s, in which only job %d's worker crashes (it %s), %s the handler: %s.", stream, f.culprit, f.pt.Label, verb, failure)
}

// failureWords says what happened to a job, as the end of a sentence.
func failureWords(job int64, outcome string) string {
	switch outcome {
	case OutcomeLost:
		return fmt.Sprintf("job %d is lost", job)
	case OutcomeDuplicated:
		return fmt.Sprintf("job %d is applied more than once", job)
	case OutcomeEventsLost:
		return fmt.Sprintf("job %d's effect is committed and its event is lost", job)
	case OutcomeEventsPhantom:
		return fmt.Sprintf("job %d's event is published for an effect that never committed", job)
	}
	return fmt.Sprintf("job %d breaks", job)
}

// firstFailure is the job a case is told by: the culprit when it is among the failing jobs, else
// the lowest job behind a failing count.
func firstFailure(pt Point, culprit int64) (int64, string) {
	job, outcome := int64(-1), ""
	for _, o := range []string{OutcomeLost, OutcomeDuplicated, OutcomeEventsLost, OutcomeEventsPhantom} {
		ids := pt.IDs[o]
		if culprit >= 0 && contains(ids, culprit) {
			return culprit, o
		}
		if len(ids) > 0 && (job < 0 || ids[0] < job) {
			job, outcome = ids[0], o
		}
	}
	return job, outcome
}
