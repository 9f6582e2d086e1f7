package experiments

import "context"

// The prediction questions the experiments answer (content/predictions.md asks them; pages says
// them in words): each definition registers the ones it answers with .answers, so a question is
// measured by the code that knows its result type, and Answering finds the experiment for a
// question's id.

// answerLost is q1: the jobs at-most-once loses.
func answerLost(_ StreamParams, r AssemblyResult) (int64, bool) {
	for _, row := range r.Rows {
		if row.Design == DesignAtMostOnce {
			return row.Lost, true
		}
	}
	return 0, false
}

// answerDuplicated is q2: the jobs at-least-once applies twice.
func answerDuplicated(_ StreamParams, r AssemblyResult) (int64, bool) {
	for _, row := range r.Rows {
		if row.Design == DesignAtLeastOnce {
			return row.Duplicated, true
		}
	}
	return 0, false
}

// answerCaught is q3: the duplicates a dedup outside the transaction still catches, the crashes
// it did not let through.
func answerCaught(_ StreamParams, r AssemblyResult) (int64, bool) {
	for _, row := range r.Rows {
		if row.Design == DesignDedupNonTransactional {
			return max(r.Crashed-row.Duplicated, 0), true
		}
	}
	return 0, false
}

// answerEscaped is q4: the duplicates escaping a window of 1,000 ids when redeliveries arrive up
// to 2,000 jobs late, the run the question's wording states.
func answerEscaped(_ WindowParams, r WindowResult) (int64, bool) {
	for _, p := range r.Points {
		if p.Window == 1000 && r.MaxDelay == 2000 {
			return p.Escaped, true
		}
	}
	return 0, false
}

// answerRunTwice is q5: the jobs run twice under a 5 s lease with no renewal.
func answerRunTwice(_ LeaseParams, r LeaseResult) (int64, bool) {
	for _, p := range r.Points {
		if p.TimeoutS == 5 {
			return p.NoRenewal, true
		}
	}
	return 0, false
}

// notJobs is why the verifier and the scale arithmetic have no tracer.
const notJobs = "its numbers are verdicts and arithmetic over rates, not counts of jobs in a stream"

// claimsShrinks is the verifier's search for the smallest failing case of each claim a run broke,
// each searching from the run's own parameters within ShrinkBudget.
func claimsShrinks(p ClaimsParams, r ClaimsResult) []func(context.Context) Shrunk {
	if r.Passed == r.Total {
		return nil
	}
	var out []func(context.Context) Shrunk
	for _, c := range r.Claims {
		if !c.Holds {
			out = append(out, func(ctx context.Context) Shrunk { return ShrinkFrom(ctx, p, c, ShrinkBudget) })
		}
	}
	return out
}
