package lab

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// Params is one press of Run, on the page or the command line: the designs to run one after the
// other, and the stream they share. Its fields are the form's, the permalink's and the flags', so
// that each reads and writes them in one way.
type Params struct {
	Designs []Design
	Jobs    int64
	Workers int
	// CrashRate and Seed draw the crash designs' stream, as blocks 1-5 do (13 is their seed).
	CrashRate float64
	Seed      int64
	// LeaseSeed draws the lease designs' durations (31 is block 6's own), and LeaseTimeout is
	// their visibility timeout in model seconds: so a lease design's model count is block 6's at
	// the same jobs, seed and timeout.
	LeaseSeed    int64
	LeaseTimeout float64
	// DupWindow is the publish-retry design's stream Duplicates window, in seconds.
	DupWindow float64
	// FireAndForget runs the workers with plain acks (Config.FireAndForgetAcks).
	FireAndForget bool
	// Handler is the handler design's source and crash point, when Designs names DesignHandler;
	// the lease seed and timeout are its work()'s durations and lease.
	Handler *HandlerConfig
}

// The form's defaults: a run of a few seconds whose stream crashes about twenty jobs, and block
// 6's durations against its shortest lease.
const (
	DefaultJobs      = 400
	DefaultWorkers   = 3
	DefaultCrashRate = 0.05
	DefaultSeed      = 13
	DefaultLeaseSeed = 31
)

// DefaultParams is the form as a reader first sees it: every design, the defaults above.
func DefaultParams() Params {
	return Params{Designs: Designs(), Jobs: DefaultJobs, Workers: DefaultWorkers, CrashRate: DefaultCrashRate,
		Seed: DefaultSeed, LeaseSeed: DefaultLeaseSeed, LeaseTimeout: DefaultLeaseTimeout, DupWindow: DefaultDupWindow}
}

// The names a form, a permalink and the command line give the parameters.
const (
	FieldDesign        = "design"
	FieldJobs          = "jobs"
	FieldWorkers       = "workers"
	FieldCrashRate     = "crash_rate"
	FieldSeed          = "seed"
	FieldLeaseSeed     = "lease_seed"
	FieldLeaseTimeout  = "lease_timeout"
	FieldFireAndForget = "fire_and_forget"
	FieldDupWindow     = "dup_window"
)

// Fields are the run's numbers as the experiments' forms describe theirs (label, unit, help,
// bounds), so that the lab's form reads, and refuses, like every other form of the notebook.
// maxJobs is the instance's bound on jobs, at most MaxJobs.
func Fields(maxJobs int64) []experiments.Field {
	maxJobs = min(max(maxJobs, 1), MaxJobs)
	seeds := int64(1<<63 - 1)
	return []experiments.Field{
		{Name: FieldJobs, Label: "Jobs", Help: "Jobs published to the broker, the same stream for every design.",
			Kind: experiments.KindInt, MinInt: 1, MaxInt: maxJobs},
		{Name: FieldWorkers, Label: "Workers", Unit: "processes", Help: "Worker processes pulling jobs at once.",
			Kind: experiments.KindInt, MinInt: 1, MaxInt: MaxWorkers},
		{Name: FieldCrashRate, Label: "Crash rate", Help: "Share of jobs whose first delivery kills its worker, in the crash designs.",
			Kind: experiments.KindFloat, Min: 0, Max: 1},
		{Name: FieldSeed, Label: "Stream seed", Help: "Picks which jobs crash; the model uses the same one, and 13 is the blocks' own.",
			Kind: experiments.KindInt, MinInt: 0, MaxInt: seeds},
		{Name: FieldLeaseSeed, Label: "Lease seed", Help: "Draws the lease designs' job durations; 31 is block 6's, so its counts compare.",
			Kind: experiments.KindInt, MinInt: 0, MaxInt: seeds},
		{Name: FieldLeaseTimeout, Label: "Lease timeout", Unit: "model seconds", Help: "The lease designs' visibility timeout; one model second lasts 10 ms here.",
			Kind: experiments.KindFloat, Min: MinLeaseTimeout, Max: MaxLeaseTimeout},
		{Name: FieldDupWindow, Label: "Dedup window", Unit: "s", Help: "The publish-retry design's stream Duplicates window: a retry inside it is absorbed by the broker (its default is 120).",
			Kind: experiments.KindFloat, Min: MinDupWindow, Max: MaxDupWindow},
	}
}

// field is the spec of one of Fields, at the largest bound (Config.Validate's).
func field(name string) experiments.Field {
	for _, f := range Fields(MaxJobs) {
		if f.Name == name {
			return f
		}
	}
	panic("lab: no field " + name)
}

// Text is the value of each of Fields as a form field or a permalink carries it.
func (p Params) Text() map[string]string {
	return map[string]string{
		FieldJobs: strconv.FormatInt(p.Jobs, 10), FieldWorkers: strconv.Itoa(p.Workers),
		FieldCrashRate: experiments.FormatFloat(p.CrashRate), FieldSeed: strconv.FormatInt(p.Seed, 10),
		FieldLeaseSeed: strconv.FormatInt(p.LeaseSeed, 10), FieldLeaseTimeout: experiments.FormatFloat(p.LeaseTimeout),
		FieldDupWindow: experiments.FormatFloat(p.DupWindow),
	}
}

// Query is the permalink's query for p: every value, so that the link still means the same run
// after a default changes. ParseParams reads it back to p.
func (p Params) Query() url.Values {
	q := url.Values{}
	for _, d := range p.Designs {
		q.Add(FieldDesign, string(d))
	}
	for k, v := range p.Text() {
		q.Set(k, v)
	}
	if p.FireAndForget {
		q.Set(FieldFireAndForget, "on")
	}
	return q
}

// HasLease and HasCrash say whether p runs a lease design, or a crash design: the stream values of
// the other kind are not used, and the page does not state them.
func (p Params) HasLease() bool { return slices.ContainsFunc(p.Designs, Design.IsLease) }

// HasCrash: see HasLease. The publish-retry design counts: its stream marks the lost acks.
func (p Params) HasCrash() bool {
	return slices.ContainsFunc(p.Designs, func(d Design) bool { return !d.IsLease() })
}

// HasPublishRetry says whether p runs the publish-retry design, the only one with a dedup window.
func (p Params) HasPublishRetry() bool { return slices.Contains(p.Designs, PublishRetry) }

// HasCrashDesign says whether p runs a design whose workers crash: the four crash designs, or a
// reader's handler. Unlike HasCrash it leaves out the publisher's retry, whose stream marks lost
// publish acks, not crashed workers.
func (p Params) HasCrashDesign() bool {
	return slices.ContainsFunc(p.Designs, func(d Design) bool { return !d.IsLease() && d != PublishRetry })
}

// RunsWorkers says whether p starts any worker process: every design does but the publisher's
// retry, which is a producer and the broker alone.
func (p Params) RunsWorkers() bool {
	return slices.ContainsFunc(p.Designs, func(d Design) bool { return d != PublishRetry })
}

// Config is the run of design d with p's values: the crash designs take the stream seed, the
// lease designs the lease seed and timeout.
func (p Params) Config(d Design) Config {
	c := Config{Design: d, Jobs: p.Jobs, Workers: p.Workers, CrashRate: p.CrashRate, Seed: p.Seed, FireAndForgetAcks: p.FireAndForget}
	if d.IsLease() {
		c.Seed, c.LeaseTimeout = p.LeaseSeed, p.LeaseTimeout
	}
	if d == PublishRetry {
		c.DupWindow = p.DupWindow
	}
	if d == DesignHandler && p.Handler != nil {
		h := *p.Handler
		h.DurationSeed, c.LeaseTimeout = p.LeaseSeed, p.LeaseTimeout
		c.Handler = &h
	}
	return c
}

// ParseParams reads a run's values from a form or a query: every field that is present must be
// well formed and in range (an absent one takes its default), and at least one known design must
// be named. A form's unticked checkboxes send nothing, so no design is not "the default". Every
// refused field is reported, in the order of the form, with the experiments' own messages.
func ParseParams(raw map[string][]string, maxJobs int64) (Params, experiments.FieldErrors) {
	p := DefaultParams()
	p.Designs = nil
	var errs experiments.FieldErrors
	seen := map[Design]bool{}
	for _, name := range raw[FieldDesign] {
		d := Design(strings.TrimSpace(name))
		if !slices.Contains(Designs(), d) {
			errs = append(errs, experiments.FieldError{Field: FieldDesign, Message: fmt.Sprintf("%q is not a design of this lab; it must be one of %s",
				experiments.Clip(name, 40), designList())})
			break
		}
		if !seen[d] {
			seen[d] = true
			p.Designs = append(p.Designs, d)
		}
	}
	if len(raw[FieldDesign]) == 0 {
		errs = append(errs, experiments.FieldError{Field: FieldDesign, Message: "none is chosen; it must be at least one design"})
	}
	// The designs in the lab's order, whatever order the query named them in: the same run has
	// one permalink.
	slices.SortFunc(p.Designs, func(a, b Design) int { return slices.Index(Designs(), a) - slices.Index(Designs(), b) })
	for _, f := range Fields(maxJobs) {
		vals, ok := raw[f.Name]
		if !ok {
			continue
		}
		if len(vals) != 1 {
			errs = append(errs, experiments.FieldError{Field: f.Name, Message: fmt.Sprintf("is given %d times; give it once, as %s", len(vals), f.Range())})
			continue
		}
		v, msg := f.ParseScalar(vals[0])
		if msg != "" {
			errs = append(errs, experiments.FieldError{Field: f.Name, Message: msg})
			continue
		}
		switch f.Name {
		case FieldJobs:
			p.Jobs = v.(int64)
		case FieldWorkers:
			p.Workers = int(v.(int64))
		case FieldCrashRate:
			p.CrashRate = v.(float64)
		case FieldSeed:
			p.Seed = v.(int64)
		case FieldLeaseSeed:
			p.LeaseSeed = v.(int64)
		case FieldLeaseTimeout:
			p.LeaseTimeout = v.(float64)
		case FieldDupWindow:
			p.DupWindow = v.(float64)
		}
	}
	p.FireAndForget = len(raw[FieldFireAndForget]) > 0 && raw[FieldFireAndForget][0] == "on"
	return p, errs
}

// designList names every design, for a message.
func designList() string {
	names := make([]string, 0, len(Designs()))
	for _, d := range Designs() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}
