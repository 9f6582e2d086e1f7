package workbench

import "fmt"

// smallest finds the smallest failing case: over the failing points, the shortest start of the
// stream that still fails at one of them, with that one point. The stream, delays and durations
// are drawn job by job, so the first n jobs of a check are exactly a check of n jobs.
func (c *checker) smallest(points []Point) (*Smallest, error) {
	var best *Smallest
	for _, pt := range points {
		if pt.Survives {
			continue
		}
		n, err := c.shortest(pt)
		if err != nil {
			return nil, err
		}
		if best != nil && n >= best.Params.Jobs {
			continue
		}
		if err := c.pass(run{point: pt.CrashPoint, n: int(n)}); err != nil {
			return nil, err
		}
		small := c.tally(pt.CrashPoint, int(n))
		job, outcome := firstFailure(small, c.e.producer)
		p := c.p
		p.Jobs = n
		p.CrashPoint = int64(pt.CrashPoint)
		if c.e.producer {
			p.CrashPoint = AllPoints
		}
		best = &Smallest{Params: p, Query: p.Query(), Job: job, Outcome: outcome,
			Text: fmt.Sprintf("The first %s of the stream already fail when the worker %s: job %d is %s.",
				jobsWord(n), pt.Label, job, outcomeWords[outcome])}
		if c.e.producer {
			best.Text = fmt.Sprintf("The first %s of the stream already fail: job %d's %s.", jobsWord(n), job, outcomeWords[outcome])
		}
	}
	return best, nil
}

var outcomeWords = map[string]string{
	OutcomeLost: "lost", OutcomeDuplicated: "applied more than once",
	OutcomeEventsLost: "event is lost", OutcomeEventsPhantom: "event is a phantom",
}

func jobsWord(n int64) string {
	if n == 1 {
		return "job"
	}
	return thousands(n) + " jobs"
}

// firstFailure is the lowest job id behind a failing count of the point.
func firstFailure(pt Point, producer bool) (int64, string) {
	job, outcome := int64(-1), ""
	for _, o := range []string{OutcomeLost, OutcomeDuplicated, OutcomeEventsLost, OutcomeEventsPhantom} {
		if producer && o == OutcomeLost {
			continue
		}
		if ids := pt.IDs[o]; len(ids) > 0 && (job < 0 || ids[0] < job) {
			job, outcome = ids[0], o
		}
	}
	return job, outcome
}

// shortest bisects the stream's length for the point: a failure needs its job and whatever came
// before it, so the length up to the first failing job is the first guess, and a window's
// failure, which needs the jobs that pushed a key out, may need the whole stream.
func (c *checker) shortest(pt Point) (int64, error) {
	fails := func(n int64) (bool, error) {
		if err := c.pass(run{point: pt.CrashPoint, n: int(n)}); err != nil {
			return false, err
		}
		return !c.survives(c.tally(pt.CrashPoint, int(n))), nil
	}
	job, _ := firstFailure(pt, c.e.producer)
	hi := c.p.Jobs
	if job >= 0 && job+1 < hi {
		ok, err := fails(job + 1)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = job + 1
		}
	}
	lo := int64(0) // fails(lo) is false: no jobs, no failure
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		ok, err := fails(mid)
		if err != nil {
			return 0, err
		}
		if ok {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, nil
}
