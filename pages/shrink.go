package pages

import (
	"fmt"
	"net/url"
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

// MaxCulpritsShown is how many culprit ids a case lists before it only counts the rest.
const MaxCulpritsShown = 10

// NewShrinkViews builds the failing cases in the order given, skipping claims that held; the
// permalinks point at the verify page, at pagePath, on the block domID. trace, when not nil, draws
// a case's first culprit (it does the I/O this package never does); it may return nil.
func NewShrinkViews(site Site, pagePath, domID string, all []experiments.Shrunk, trace func(experiments.Shrunk) *JobView) []ShrinkView {
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
			Permalink: site.URL(pagePath) + "?" + VerifyQuery(s.Params) + "#" + domID,
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
		for _, id := range s.Culprits[:min(len(s.Culprits), MaxCulpritsShown)] {
			v.Culprits = append(v.Culprits, JobRef{ID: strconv.FormatInt(id, 10), URL: JobTimelineURL(site, s, id)})
		}
		if trace != nil {
			v.Trace = trace(s)
		}
		out = append(out, v)
	}
	return out
}

// VerifyQuery is the query of a verify permalink: the job count always, since it is what shrinking
// changes, then every other parameter that differs from the document's, in the form's order.
func VerifyQuery(p experiments.ClaimsParams) string {
	e, _ := experiments.Lookup("claims")
	vals, defs := e.Format(p), e.Format(e.Defaults())
	var parts []string
	for _, f := range e.Fields {
		if f.Name == "jobs" || vals[f.Name] != defs[f.Name] {
			parts = append(parts, f.Name+"="+url.QueryEscape(vals[f.Name]))
		}
	}
	return strings.Join(parts, "&")
}

// JobTimelineURL is the timeline of job id in the run that breaks the claim of s (see CulpritRun),
// or "" where there is no such run.
func JobTimelineURL(site Site, s experiments.Shrunk, id int64) string {
	name, q, ok := CulpritRun(s)
	if !ok {
		return ""
	}
	return site.URL("/jobs/"+name+"/"+strconv.FormatInt(id, 10)) + "?" + q.Encode()
}

// CulpritRun is the run that tells the culprits' stories for the claim of s, at s.Params, as the
// experiment's name and the query its jobs routes take (its parameters, the point and, for the
// lease, the policy): the lease experiment at the claim's timeout for the B6 claims, the window
// experiment at the claim's window for the B4 ones. ok is false where no such run exists (the other
// claims, or a window of 0 ids, which the window experiment does not take). The links a case shows
// and the timeline it draws are both made from it.
func CulpritRun(s experiments.Shrunk) (experiment string, q url.Values, ok bool) {
	p := s.Params
	switch s.Kind {
	case experiments.ClaimShortTimeoutDoubles:
		return "lease", leaseQuery(p, "5"), true
	case experiments.ClaimLongTimeoutReachesZero:
		point := "300"
		if s.Mode == experiments.FailNonePast60 {
			point = "60"
		}
		return "lease", leaseQuery(p, point), true
	case experiments.ClaimSmallWindowLeaks:
		return windowQuery(p, p.MaxDelay/2)
	case experiments.ClaimFullWindowLeaksNone:
		return windowQuery(p, p.MaxDelay)
	}
	return "", nil, false
}

// leaseQuery is the lease experiment on the verifier's duration draw: its job count, its seed and
// its three timeouts, with point the timeout the claim reads.
func leaseQuery(p experiments.ClaimsParams, point string) url.Values {
	q := url.Values{}
	q.Set("jobs", strconv.FormatInt(p.Jobs, 10))
	q.Set("seed", strconv.FormatInt(p.LeaseSeed, 10))
	q.Set("timeouts", "5,60,300")
	q.Set("point", point)
	// The verifier's lease is never renewed: the timeline tells that policy's story.
	q.Set("outcome", "no_renewal")
	return q
}

// windowQuery is the window experiment on the verifier's stream and delays, with the one window
// the claim checks as both the sweep and its point.
func windowQuery(p experiments.ClaimsParams, window int64) (string, url.Values, bool) {
	if window < 1 {
		return "", nil, false
	}
	w := strconv.FormatInt(window, 10)
	q := url.Values{}
	q.Set("jobs", strconv.FormatInt(p.Jobs, 10))
	q.Set("crash_rate", strconv.FormatFloat(p.CrashRate, 'g', -1, 64))
	q.Set("seed", strconv.FormatInt(p.Seed, 10))
	q.Set("max_delay", strconv.FormatInt(p.MaxDelay, 10))
	q.Set("delay_seed", strconv.FormatInt(p.DelaySeed, 10))
	q.Set("windows", w)
	q.Set("point", w)
	return "window", q, true
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
