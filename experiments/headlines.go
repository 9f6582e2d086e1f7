package experiments

import (
	"cmp"
	"slices"
)

// The headlines: for each experiment, the one count of a run that a reader who hides results until
// they guess is asked for before the block shows anything (each definition names its own with
// .headline). A headline is always a count of the run at one of its points, so the number a reader
// guesses is the number the run's table, chart and "which jobs?" stand on; where a prediction
// question (questions.go) asks about the same run, the headline is that question's count, at the
// reader's own parameters rather than only the document's.
//
// row is the named row the page is about, a marker's focus= ("" where the page names none): the
// assembly appears on four pages, and each asks about its own design.

// headlineAssembly asks about the design the page is about: the jobs at-most-once loses (q1), or the
// jobs any other design runs twice (q2 for at-least-once). On the assembly itself, which is about
// no single design, it asks about the dedup key written outside the effect's transaction, the
// surprise of its table (q3 asks the same run how many of those the key catches).
func headlineAssembly(_ StreamParams, _ AssemblyResult, row string) (pointAt, string) {
	switch Design(row) {
	case DesignAtMostOnce:
		return named(row), "lost"
	case DesignAtLeastOnce, DesignDedupTransactional, DesignDedupNonTransactional:
		return named(row), "duplicated"
	}
	return named(string(DesignDedupNonTransactional)), "duplicated"
}

// headlineCrashSweep asks the number block 1 asks a reader to guess before its sweep: how many
// errors acking before the work raises at the highest crash rate tried (none, however high).
func headlineCrashSweep(_ CrashSweepParams, r CrashSweepResult, _ string) (pointAt, string) {
	if len(r.Points) == 0 {
		return whole, "errors"
	}
	top := slices.MaxFunc(r.Points, func(a, b CrashSweepPoint) int { return cmp.Compare(a.CrashRate, b.CrashRate) })
	return swept(top.CrashRate), "errors"
}

// headlineKeys asks how many duplicates a key of the job id and the attempt number lets through:
// it looks stable and is not (the page's own row, unless it names another).
func headlineKeys(_ StreamParams, _ KeysResult, row string) (pointAt, string) {
	if slices.Contains(KeyKinds(), KeyKind(row)) {
		return named(row), "duplicated"
	}
	return named(string(KeyJobIDAttempt)), "duplicated"
}

// headlineWindow is q4's count at the reader's parameters: the duplicates escaping the window at
// half the maximum delay, the row the reading dwells on (sizing to the average delay rather than
// the worst), or the window tried nearest to it (the smaller of two as near).
func headlineWindow(_ WindowParams, r WindowResult, _ string) (pointAt, string) {
	if len(r.Points) == 0 {
		return whole, "escaped"
	}
	half := func(w int64) int64 {
		d := 2*w - r.MaxDelay
		if d < 0 {
			return -d
		}
		return d
	}
	best := slices.MinFunc(r.Points, func(a, b WindowPoint) int {
		return cmp.Or(cmp.Compare(half(a.Window), half(b.Window)), cmp.Compare(a.Window, b.Window))
	})
	return swept(float64(best.Window)), "escaped"
}

// headlineWindowGrid asks about the grid's middle cell (its middle window against its middle
// maximum delay; the larger middle of an even count), which at the document's values leaks.
func headlineWindowGrid(_ WindowGridParams, r WindowGridResult, _ string) (pointAt, string) {
	if len(r.Windows) == 0 || len(r.MaxDelays) == 0 {
		return whole, "escaped"
	}
	ws, ds := slices.Sorted(slices.Values(r.Windows)), slices.Sorted(slices.Values(r.MaxDelays))
	return cell(ds[len(ds)/2], ws[len(ws)/2]), "escaped"
}

// headlineWindowTime asks how many ids the window holds at the reader's throughput.
func headlineWindowTime(WindowTimeParams, WindowTimeResult, string) (pointAt, string) {
	return whole, "window_ids"
}

// headlineOrderings asks how many jobs writing the key first loses: the order that looks safe.
func headlineOrderings(_ StreamParams, _ OrderingsResult, row string) (pointAt, string) {
	switch Order(row) {
	case OrderEffectThenKey, OrderOneTransaction:
		return named(row), "duplicated"
	}
	return named(string(OrderKeyThenEffect)), "lost"
}

// headlineLease is q5's count at the reader's parameters: the jobs run twice without renewal at
// the shortest timeout tried, the one the reading starts from.
func headlineLease(_ LeaseParams, r LeaseResult, _ string) (pointAt, string) {
	if len(r.Points) == 0 {
		return whole, "no_renewal"
	}
	first := slices.MinFunc(r.Points, func(a, b LeasePoint) int { return cmp.Compare(a.TimeoutS, b.TimeoutS) })
	return swept(first.TimeoutS), "no_renewal"
}

// headlineClaims asks how many of the claims hold on the reader's stream.
func headlineClaims(ClaimsParams, ClaimsResult, string) (pointAt, string) { return whole, "passed" }

// headlineScale asks the concept page's first figure: the duplicates a day.
func headlineScale(ScaleParams, ScaleResult, string) (pointAt, string) {
	return whole, "duplicates_per_day"
}

// headlineOutbox asks how many events the outbox applies twice when the consumer keeps no key: the
// outbox alone makes sure an event exists, not that it counts once.
func headlineOutbox(OutboxParams, OutboxResult, string) (pointAt, string) {
	return outboxAt(TransactionalOutbox, false), "duplicate_applications"
}
