package present

import (
	"strings"

	"effectivelyonce/experiments"
)

// The words a "which jobs?" list and a job's timeline say a run's jobs in. They live here, beside
// the tables, rather than in pages, because the command line's "site run -jobs" and "-trace" say
// the same lists and timelines in the same words, and it renders no templ component.

// OutcomeWords names an outcome in words for a link or a heading.
func OutcomeWords(outcome string) string {
	switch outcome {
	case "no_renewal":
		return "run twice without renewal"
	case "renew_third":
		return "run twice renewing every third"
	case "renew_double":
		return "run twice renewing every 2t (the document's count)"
	case "renew_double_real":
		return "run twice renewing every 2t (a real queue)"
	case "duplicate_applications":
		return "applied more than once"
	case "ack_after_duplicated":
		return "duplicated had the ack come after the work"
	case "exactly_once":
		return "applied exactly once"
	case "delivered_once":
		return "delivered once"
	case "failed_cleanly":
		return "failed before any write"
	case "once":
		return "run once"
	}
	return strings.ReplaceAll(outcome, "_", " ")
}

// IDsNoun names what the ids of the named experiment's runs number, as its presenter says it
// (shows' ids): "jobs" unless it says otherwise (the outbox's ids number events). A "which
// jobs?" link and list say it; a name with no presenter (the workbench's handler) has jobs.
func IDsNoun(experiment string) string {
	if p, ok := PresenterFor(experiment); ok && p.ids != "" {
		return p.ids
	}
	return "jobs"
}

// StepText writes a step: whole steps with thousands separators, seconds to the millisecond.
func StepText(s float64) string {
	if s == float64(int64(s)) {
		return experiments.Thousands(int64(s))
	}
	return experiments.FormatFloat(float64(int64(s*1000+0.5)) / 1000)
}

// StepName says what a trace's steps count, for a heading or a list item.
func StepName(unit string) string {
	switch unit {
	case "s":
		return "second"
	case "step":
		return "producer step"
	}
	return "step"
}

// MaxCulpritsShown is how many culprit ids a failing case of the verifier lists before it only
// counts the rest, on the verify page and in "site verify" alike.
const MaxCulpritsShown = 10
