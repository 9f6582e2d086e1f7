package pages

import (
	"fmt"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// ShrinkView is the smallest failing case of one claim, as the verify page shows it under the table.
type ShrinkView struct {
	// DOMID names the case's heading, so the section is labelled by it.
	DOMID   string
	ClaimID string
	Claim   string
	// Jobs is the shrunk stream's length in words ("1 job"); Lead says how it relates to the input.
	Jobs string
	Lead string
	// Permalink opens the verify page on the shrunk parameters, where the claim fails again.
	Permalink string
	// Detail is the claim's measured line at the shrunk parameters; Fate and Story say what happened
	// to the culprits and to the job that matters most.
	Detail string
	Fate   string
	Story  string
	// Culprits are the first MaxCulpritsShown job ids; Total counts them all.
	Culprits []JobRef
	Total    int
	// StoppedEarly marks a search cut short by its budget: the case is the smallest found so far.
	StoppedEarly bool
	Budget       string
	Tried        int
	// Trace is the timeline of the first culprit, the job that breaks the claim, drawn in the
	// case itself; nil when there is no culprit or it could not be traced.
	Trace *JobView
}

// JobRef is one job id, with the URL of its timeline in the run the claim was measured on.
type JobRef struct {
	ID  string
	URL string
}

// NewShrinkViews builds the failing cases the verifier e found, in the order given, skipping claims
// that held; the permalinks point at the verify page, at pagePath, on the block domID. trace, when
// not nil, draws a case's first culprit (it does the I/O this package never does); it may return
// nil.
func NewShrinkViews(site Site, e *experiments.Experiment, pagePath, domID string, all []experiments.Shrunk, trace func(experiments.Shrunk) *JobView) []ShrinkView {
	var out []ShrinkView
	for _, s := range all {
		if !s.Failed {
			continue
		}
		v := ShrinkView{
			DOMID: domID + "-shrink-" + s.Kind.String(),
			// "...and only" continues the claim above it in the table; here it stands alone.
			ClaimID: s.Claim.ID, Claim: strings.TrimPrefix(s.Claim.Text, "..."),
			Jobs:      present.Plural(s.Params.Jobs, "job", "jobs"),
			Permalink: site.URL(pagePath) + "?" + e.CaseQuery(s) + "#" + domID,
			Detail:    s.Claim.Detail, Fate: s.Fate, Story: s.Story,
			Total: len(s.Culprits), StoppedEarly: s.StoppedEarly, Tried: s.Tried,
			Budget: strconv.FormatFloat(experiments.ShrinkBudget.Seconds(), 'f', -1, 64) + " s",
		}
		switch {
		case s.Params.Jobs == s.From.Jobs && s.StoppedEarly:
			v.Lead = fmt.Sprintf("The search ran out of time before any shorter start of this stream failed it the same way, so the case is still all %s.", v.Jobs)
		case s.Params.Jobs == s.From.Jobs:
			v.Lead = fmt.Sprintf("No shorter start of this stream fails it the same way: %s is already the smallest.", v.Jobs)
		default:
			v.Lead = fmt.Sprintf("It still fails on the first %s of the %s above, with the same seeds.", v.Jobs, present.Plural(s.From.Jobs, "job", "jobs"))
			if s.Params.Jobs == 1 {
				v.Lead = fmt.Sprintf("It still fails on the first job alone of the %s above, with the same seeds.", present.Plural(s.From.Jobs, "job", "jobs"))
			}
			// The search shortened the stream for this claim alone, and the claims about slow jobs
			// or late repeats need a long stream to hold, so the case's own page may show others
			// failing too: say so before the reader opens it and wonders what broke.
			v.Lead += fmt.Sprintf(" A stream this short may fail other claims as well; this case is about %s only.", s.Claim.ID)
		}
		for _, id := range s.Culprits[:min(len(s.Culprits), present.MaxCulpritsShown)] {
			v.Culprits = append(v.Culprits, JobRef{ID: strconv.FormatInt(id, 10), URL: JobTimelineURL(site, e, s, id)})
		}
		if trace != nil {
			v.Trace = trace(s)
		}
		out = append(out, v)
	}
	return out
}

// JobTimelineURL is the timeline of job id in the run that breaks the claim of s, as the verifier
// e says it (experiments.Experiment.CulpritRun), or "" where there is no such run.
func JobTimelineURL(site Site, e *experiments.Experiment, s experiments.Shrunk, id int64) string {
	name, q, ok := e.CulpritRun(s)
	if !ok {
		return ""
	}
	return site.URL("/jobs/"+name+"/"+strconv.FormatInt(id, 10)) + "?" + q.Encode()
}

// jobsLabel introduces the culprit ids with their total.
func jobsLabel(c ShrinkView) string {
	if c.Total == 1 {
		return "The job:"
	}
	return "The " + experiments.Thousands(int64(c.Total)) + " jobs:"
}

// streamsWord is "stream" or "streams" for n.
func streamsWord(n int) string {
	if n == 1 {
		return "stream"
	}
	return "streams"
}
