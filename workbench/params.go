package workbench

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// World names the model world a check runs in.
type World string

// The two worlds.
const (
	// WorldConsumer is the hands-on document's: a queue hands jobs to workers, and a worker that
	// dies at the crash point without acking gets its job back later.
	WorldConsumer World = "consumer"
	// WorldProducer is the concept page's producer: each request is handled once and never
	// retried; each of its first two writes crashes it with probability crash_rate, and the outbox
	// relay dies between publishing and marking sent as often as experiments/outbox.go draws.
	WorldProducer World = "producer"
)

// AllPoints as a CrashPoint asks for every crash point.
const AllPoints = -1

// Params are a check's parameters. The stream, delays and durations are the experiments' own:
// at the defaults they are the documents' 20,000 jobs, 2% crashes, delays of 1 to 2,000 jobs and
// job durations of mostly 2 s and 5% 40 s.
type Params struct {
	Jobs         int64   `json:"jobs"`
	CrashRate    float64 `json:"crash_rate"`
	Seed         int64   `json:"seed"`
	MaxDelay     int64   `json:"max_delay"`
	DelaySeed    int64   `json:"delay_seed"`
	KeyWindow    int64   `json:"key_window"`
	LeaseTimeout float64 `json:"lease_timeout"`
	DurationSeed int64   `json:"duration_seed"`
	SlowFraction float64 `json:"slow_fraction"`
	FastMeanS    float64 `json:"fast_mean_s"`
	SlowMeanS    float64 `json:"slow_mean_s"`
	// CrashPoint is AllPoints or one crash point: 0 dies before anything, k right after the
	// handler's k-th operation.
	CrashPoint int64 `json:"crash_point"`
	// CrashAgain lets the redelivery of a crashed job die at the same point once more.
	CrashAgain bool  `json:"crash_again"`
	World      World `json:"world"`
	// OnlyCrash is NoOnlyCrash, or one job whose crash is kept of all the stream draws: the other
	// jobs run clean. The redelivery delays stay as the whole stream draws them, so the one crash
	// is the same crash it was among the others; the smallest failing case is written this way.
	OnlyCrash int64 `json:"only_crash"`
}

// NoOnlyCrash as an OnlyCrash keeps every crash the stream draws.
const NoOnlyCrash = -1

// DefaultParams are the documents' defaults: every crash point, in the consumer's world, with a
// dedup table that keeps every key and a lease of 5 s (the first document's fifth question).
func DefaultParams() Params {
	lp := experiments.DefaultLeaseParams()
	return Params{Jobs: 20_000, CrashRate: 0.02, Seed: 13, MaxDelay: 2000, DelaySeed: 17, KeyWindow: 0,
		LeaseTimeout: 5, DurationSeed: lp.Seed, SlowFraction: lp.SlowFraction, FastMeanS: lp.FastMeanS, SlowMeanS: lp.SlowMeanS,
		CrashPoint: AllPoints, World: WorldConsumer, OnlyCrash: NoOnlyCrash}
}

// Param is one parameter of a check: a number as an experiments.Field describes it, or, where
// Words is set, also (or only) one of those words. The form, the API and the command line are all
// built from Params' list, as the experiments' are from theirs.
type Param struct {
	experiments.Field
	Words []string `json:"words,omitempty"`
	// OnlyWords marks a parameter that takes nothing but its words.
	OnlyWords bool `json:"-"`
}

// Range says in words which values the parameter accepts.
func (p Param) Range() string {
	words := make([]string, len(p.Words))
	for i, w := range p.Words {
		words[i] = strconv.Quote(w)
	}
	if p.OnlyWords {
		return "one of " + strings.Join(words, ", ")
	}
	if len(p.Words) > 0 {
		return strings.Join(words, ", ") + " or " + p.Field.Range()
	}
	return p.Field.Range()
}

// MaxJobs bounds a check's stream: every job runs the reader's handler at least once per check.
const MaxJobs = 100_000

// MaxPoints bounds the crash points of one check.
const MaxPoints = 100

// Fields lists every parameter of a check, in the order a form shows them.
func Fields() []Param {
	window, _ := experiments.Lookup("window")
	lease, _ := experiments.Lookup("lease")
	from := func(e *experiments.Experiment, name string) experiments.Field {
		f, ok := e.Field(name)
		if !ok {
			panic("workbench: experiments lost the field " + name)
		}
		return f
	}
	jobs := from(window, "jobs")
	jobs.MaxInt = MaxJobs
	jobs.Help = "How many jobs the stream holds; job i is numbered i and arrives i-th."
	durationSeed := from(lease, "seed")
	durationSeed.Name, durationSeed.Shared = "duration_seed", false
	timeout := from(lease, "timeouts")
	timeout.Name, timeout.Label, timeout.Kind = "lease_timeout", "Lease timeout", experiments.KindFloat
	timeout.Help = "How long a delivery holds its job before the queue hands it to another worker (queue.lease_timeout)."
	timeout.Min = 0.01
	return []Param{
		{Field: jobs},
		{Field: from(window, "crash_rate")},
		{Field: from(window, "seed")},
		{Field: from(window, "max_delay")},
		{Field: from(window, "delay_seed")},
		{Field: experiments.Field{Name: "key_window", Label: "Key window", Unit: "keys",
			Help: "The dedup table keeps only this many most recent keys; 0 keeps every key.", Kind: experiments.KindInt, MinInt: 0, MaxInt: 10_000_000}},
		{Field: timeout},
		{Field: durationSeed},
		{Field: from(lease, "slow_fraction")},
		{Field: from(lease, "fast_mean_s")},
		{Field: from(lease, "slow_mean_s")},
		{Field: experiments.Field{Name: "crash_point", Label: "Crash point",
			Help: "Where the worker of a crashing job dies: all runs every point; 0 dies before anything, k right after the handler's k-th operation.",
			Kind: experiments.KindInt, MinInt: 0, MaxInt: MaxPoints}, Words: []string{"all"}},
		{Field: experiments.Field{Name: "crash_again", Label: "Crash again",
			Help: "yes lets the redelivery of a crashed job die at the same point once more."}, Words: []string{"no", "yes"}, OnlyWords: true},
		{Field: experiments.Field{Name: "world", Label: "World",
			Help: "consumer: a queue redelivers what a worker did not ack (the hands-on document). producer: requests are never retried and each write may crash (the concept page's outbox)."},
			Words: []string{string(WorldConsumer), string(WorldProducer)}, OnlyWords: true},
		{Field: experiments.Field{Name: "only_crash", Label: "Only crash",
			Help: "none keeps every crash the stream draws; a job id keeps that job's crash alone (it must be one the stream draws), so a single crash can be checked by itself.",
			Kind: experiments.KindInt, MinInt: 0, MaxInt: MaxJobs - 1}, Words: []string{"none"}},
	}
}

// Parse reads a check's parameters from a query (a form, the API, or flags): absent ones take
// the defaults, present ones must be well formed and in range. Names in allowed are other keys
// the caller understands; any other unknown key is refused. The error is an
// experiments.FieldErrors, one message per refused field, in the style of every other form.
func Parse(raw map[string][]string, allowed ...string) (Params, error) {
	p := DefaultParams()
	var errs experiments.FieldErrors
	fields := Fields()
	for _, f := range fields {
		vals, ok := raw[f.Name]
		if !ok {
			continue
		}
		if len(vals) != 1 {
			errs = append(errs, experiments.FieldError{Field: f.Name, Message: fmt.Sprintf("given %d times; give it once, as %s", len(vals), f.Range())})
			continue
		}
		if msg := p.set(f, vals[0]); msg != "" {
			errs = append(errs, experiments.FieldError{Field: f.Name, Message: msg})
		}
	}
	var unknown []string
	for k := range raw {
		if !slices.ContainsFunc(fields, func(f Param) bool { return f.Name == k }) && !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	for _, k := range unknown {
		errs = append(errs, experiments.FieldError{Field: experiments.Clip(k, 40),
			Message: "a check has no parameter of this name; it takes " + strings.Join(names, ", ")})
	}
	if len(errs) > 0 {
		return Params{}, errs
	}
	return p, nil
}

// set parses one value into p and returns the message for the field, or "".
func (p *Params) set(f Param, raw string) string {
	word := strings.ToLower(strings.TrimSpace(raw))
	if len(f.Words) > 0 {
		switch f.Name {
		case "crash_point":
			if word == "all" {
				p.CrashPoint = AllPoints
				return ""
			}
		case "crash_again":
			switch word {
			case "yes", "true", "on", "1":
				p.CrashAgain = true
				return ""
			case "no", "false", "off", "0":
				p.CrashAgain = false
				return ""
			}
		case "world":
			if slices.Contains(f.Words, word) {
				p.World = World(word)
				return ""
			}
		case "only_crash":
			if word == "none" {
				p.OnlyCrash = NoOnlyCrash
				return ""
			}
		}
		if f.OnlyWords {
			return fmt.Sprintf("%q is not accepted; it must be %s", experiments.Clip(raw, 24), f.Range())
		}
	}
	var msg string
	switch f.Kind {
	case experiments.KindInt:
		var v int64
		if v, msg = experiments.ParseInt(f.Field, raw); msg == "" {
			*p.intField(f.Name) = v
		}
	case experiments.KindFloat:
		var v float64
		if v, msg = experiments.ParseFloat(f.Field, raw); msg == "" {
			*p.floatField(f.Name) = v
		}
	}
	if msg != "" && len(f.Words) > 0 {
		msg = strings.Replace(msg, f.Field.Range(), f.Range(), 1)
	}
	return msg
}

func (p *Params) intField(name string) *int64 {
	return map[string]*int64{"jobs": &p.Jobs, "seed": &p.Seed, "max_delay": &p.MaxDelay, "delay_seed": &p.DelaySeed,
		"key_window": &p.KeyWindow, "duration_seed": &p.DurationSeed, "crash_point": &p.CrashPoint, "only_crash": &p.OnlyCrash}[name]
}

func (p *Params) floatField(name string) *float64 {
	return map[string]*float64{"crash_rate": &p.CrashRate, "lease_timeout": &p.LeaseTimeout, "slow_fraction": &p.SlowFraction,
		"fast_mean_s": &p.FastMeanS, "slow_mean_s": &p.SlowMeanS}[name]
}

// Format writes every parameter as the text a form field or a permalink carries.
func (p Params) Format() map[string]string {
	out := map[string]string{}
	for _, f := range Fields() {
		switch f.Name {
		case "crash_point":
			if p.CrashPoint == AllPoints {
				out[f.Name] = "all"
				continue
			}
		case "crash_again":
			out[f.Name] = map[bool]string{false: "no", true: "yes"}[p.CrashAgain]
			continue
		case "world":
			out[f.Name] = string(p.World)
			continue
		case "only_crash":
			if p.OnlyCrash == NoOnlyCrash {
				out[f.Name] = "none"
				continue
			}
		}
		if f.Kind == experiments.KindInt {
			out[f.Name] = strconv.FormatInt(*p.intField(f.Name), 10)
		} else {
			out[f.Name] = experiments.FormatFloat(*p.floatField(f.Name))
		}
	}
	return out
}

// Query is the permalink's query string for p: only the parameters that differ from the
// defaults, so a link says what was changed, in the order of Fields. It reproduces p only where
// the defaults lie underneath (the API, site check, a share's URL); a page that lays a template's
// own parameters underneath needs QueryOver.
func (p Params) Query() string { return p.QueryOver(DefaultParams()) }

// QueryOver is the query string that turns base into p: every parameter whose value differs from
// base's, in the order of Fields. A link that a template's parameters lie under must be written
// over them, or a value the reader set back to the default would be lost under the template's.
func (p Params) QueryOver(base Params) string {
	mine, under := p.Format(), base.Format()
	var parts []string
	for _, f := range Fields() {
		if mine[f.Name] != under[f.Name] {
			parts = append(parts, url.QueryEscape(f.Name)+"="+url.QueryEscape(mine[f.Name]))
		}
	}
	return strings.Join(parts, "&")
}
