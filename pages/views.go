// Package pages turns content and experiment results into HTML: view models and templ components,
// drawing what package present says of each run. Components take view models only and never do I/O.
package pages

import (
	"cmp"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/a-h/templ"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// DOMIDPrefix starts the element id of every experiment's block; an htmx rerun names the block it
// wants back by that id, so the server reads the experiment's name from it.
const DOMIDPrefix = "exp-"

// DOMID is the element id of the named experiment's block.
func DOMID(experiment string) string { return DOMIDPrefix + experiment }

// TimelineID is the element id of the crash-window timeline; its steps are swapped in by htmx.
const TimelineID = "timeline"

// Link is a titled URL.
type Link struct {
	Title string
	URL   string
	// Current marks the page being shown, for the navigation.
	Current bool
}

// Site is what every page shares: the base path, the asset URLs (versioned for long caching) and the
// table of contents.
type Site struct {
	Base     string
	CSS      string
	Icon     string
	Scripts  []string
	Contents []Link
	// Bar is the study room bar, for a visitor who is in a room; nil otherwise.
	Bar templ.Component
	// InRoom marks a page seen from inside a study room (the room's own page, or a notebook page
	// under its bar): the top bar then offers no other room to start or join.
	InRoom bool
	// Bare draws the page alone, without the header, the contents or the footer: the room's
	// projector view, on a big screen where only the room should show.
	Bare bool
	// Version is the notebook's version, printed under every run beside its parameters'
	// fingerprint; "" reads as "devel".
	Version string
	// Guessing is the reader's "hide results until I guess" and their guesses (guess.go), read
	// from their cookies for the request; zero when they do not hide results.
	Guessing Guessing
}

// URL joins the base path and a site-relative path.
func (s Site) URL(p string) string { return strings.TrimSuffix(s.Base, "/") + p }

// ErrorPages draws the page of a refused request as the web layer's one error handler asks for it
// (web.Errors.Page): the message in the site's layout, with a link home; site gives the site as it
// is when the error happens.
func ErrorPages(site func() Site) func(status int, title, msg string) templ.Component {
	return func(_ int, title, msg string) templ.Component {
		s := site()
		return Layout(s, title, ErrorPage(title, msg, s.URL("/")))
	}
}

// Field is one parameter input as the reader sees it: the value they typed (kept when it is wrong)
// and the message that says why it is wrong.
type Field struct {
	ID    string
	Name  string
	Label string
	Unit  string
	Help  string
	Range string
	Value string
	Error string
	List  bool
	// Bound is the largest value that runs with the other values as they are, when that is less
	// than the range's maximum (the budget of one run), as the site writes numbers; "" otherwise.
	Bound string
}

// Hidden is a query value the form carries through unchanged: another experiment's parameters on the
// same page, so rerunning one experiment keeps the reader's values for the others.
type Hidden struct {
	Name  string
	Value string
}

// ExperimentView is one experiment block: its form, and either its result or its errors.
type ExperimentView struct {
	Name  string
	Title string
	// NoTitle hides the block's own title: the page's heading just above already names it.
	NoTitle bool
	Summary string
	DOMID   string
	Action  string
	Fields  []Field
	Hidden  []Hidden
	// Invalid is set when the reader's parameters were refused; there is no result then.
	Invalid bool
	// Busy is set when the run was refused for load; the form is kept.
	Busy      string
	Charts    []present.Chart
	Tables    []present.Table
	Reading   []string
	Permalink string
	ResetURL  string
	JSONURL   string
	CSVURL    string
	// Changed says whether the reader's parameters differ from the document's.
	Changed bool
	// Stream lists the values this experiment takes from the page's first form, shown in place of
	// inputs of its own; StreamFrom is the DOM id of that form's block.
	Stream     []Field
	StreamFrom string
	// Stray are the refused keys of the address that no field of this form shows (Run.Stray),
	// each named as the address has it, linking to the input that sets its value when there is one.
	Stray []StrayKey
	// Query is this form's own values that differ from the defaults, as a query string: a rerun of
	// another form on the page sends them along, so the pushed URL holds every form's values.
	Query string
	// OutOfBand marks a block sent beside another block's rerun, because it takes that form's
	// stream values; htmx swaps it in by its id.
	OutOfBand bool
	// Version and ParamsHash are the run's provenance (see Site.Version and
	// experiments.Experiment.ParamsHash), set when there is a result.
	Version    string
	ParamsHash string
	// Shrunk are the verifier's smallest failing cases, drawn under its tables; nil on every
	// other block, and when every claim held.
	Shrunk []ShrinkView
	// Progress is the box of a spread over seeds still running (or stopped) for this block.
	Progress *SpreadProgress
	// Jobs turns the job counts of the tables into "which jobs?" links (zero: no links).
	Jobs JobLinks
	// Guess is the question a reader who hides results answers before the result shows, and
	// where they stand with it (guess.go); nil when there is no result, or it has no headline.
	Guess *GuessView
	// Sealed is set while a round of the reader's study room asks about this run: the result is
	// hidden until the host reveals the answer (see room_session.go).
	Sealed *Sealed
}

// Run is one experiment on a page as the handler prepared it: the parameters as typed, and either
// the parsed params with the result, or the field errors.
type Run struct {
	Experiment *experiments.Experiment
	// Prefix is "" for the page's first experiment and "name." for the others, so that two
	// experiments with a "jobs" parameter can share a URL.
	Prefix string
	Raw    map[string]string
	// Inherited marks values taken from the page's first form; they are not carried as this
	// experiment's own, so changing the first form again changes them too.
	Inherited map[string]bool
	// Stray are the query's keys under this experiment's name that the page does not read
	// (strayKeys), each refused: the run is not run while there are any.
	Stray  experiments.FieldErrors
	Params any
	Result any
	Errors experiments.FieldErrors
	Busy   string
	// Scope is how this page shows the result, from the options of the experiment's marker.
	Scope present.Scope
	// SpreadRaw is the "spread over N seeds" field as typed, SpreadN the number it asks for (0 for
	// none), and Spread the summary once it is computed (see spread.go).
	SpreadRaw string
	SpreadN   int
	Spread    *experiments.SpreadResult
	// Shrunk and Progress are what the handler worked out for the block before its view is built:
	// the verifier's smallest failing cases of the claims the run broke, and the progress box of
	// a spread over seeds still running (or stopped). Nil when there are none.
	Shrunk   []ShrinkView
	Progress *SpreadProgress
}

// NewExperimentView builds the view of run r on the page at pagePath; all runs on the page are
// needed so the form can carry the others' values and the permalink can hold the whole page.
func NewExperimentView(site Site, pagePath string, r Run, all []Run) (ExperimentView, error) {
	e := r.Experiment
	v := form(site, pagePath, r, all)
	v.Shrunk, v.Progress = r.Shrunk, r.Progress
	api := url.Values{}
	if r.Params != nil {
		for k, val := range e.Format(r.Params) {
			api.Set(k, val)
		}
		withSpreadQuery(api, r)
	}
	v.JSONURL = site.URL("/api/experiments/"+e.Name) + "?" + api.Encode()
	api.Set("format", "csv")
	v.CSVURL = site.URL("/api/experiments/"+e.Name) + "?" + api.Encode()
	if r.Result != nil {
		v.Version, v.ParamsHash = cmp.Or(site.Version, "devel"), e.ParamsHash(r.Params)
		pr, err := present.PresenterOf(e)
		if err != nil {
			return v, err
		}
		if v.Charts, v.Tables, v.Reading, err = pr.View(v.DOMID, r.Scope, r.Params, r.Result); err != nil {
			return v, err
		}
		addSpread(&v, r)
		v.Jobs = NewJobLinks(site, e, r.Params, v.DOMID)
		if h, ok := present.HeadlineOf(e, r.Params, r.Result, r.Scope.Focus); ok {
			v.Guess = newGuessView(site.Guessing, e.Name, v.ParamsHash, h)
		}
	}
	return v, nil
}

// Fragment is the answer to an htmx request for one block: the block v, then also, the blocks
// that take v's form's values, drawn again and marked to be swapped in out of band by their ids.
func Fragment(v ExperimentView, also []ExperimentView) templ.Component {
	parts := []templ.Component{Experiment(v)}
	for _, o := range also {
		o.OutOfBand = true
		parts = append(parts, Experiment(o))
	}
	return templ.Join(parts...)
}

// Permalink is the address of run r's block on the page at pagePath, as the block's "link to
// this run" holds it: every value of the page's runs that differs from its default.
func Permalink(site Site, pagePath string, r Run, all []Run) string {
	return form(site, pagePath, r, all).Permalink
}

// form is the part of r's view that its values make, before any result: the form's fields, the
// others' values it carries, and the addresses of the run and of the reset.
func form(site Site, pagePath string, r Run, all []Run) ExperimentView {
	e := r.Experiment
	v := ExperimentView{
		Name: e.Name, Title: e.Title, Summary: e.Summary, NoTitle: r.Scope.NoTitle,
		DOMID:   DOMID(e.Name),
		Action:  site.URL(pagePath),
		Invalid: len(r.Errors) > 0,
		Busy:    r.Busy,
	}
	defaults := e.Format(e.Defaults())
	own := url.Values{}
	for _, f := range e.Fields {
		val, ok := r.Raw[f.Name]
		if !ok {
			val = defaults[f.Name]
		}
		val = ShownValue(val)
		field := Field{
			ID: v.DOMID + "-" + f.Name, Name: r.Prefix + f.Name, Label: f.Label, Unit: f.Unit, Help: f.Help,
			Range: f.Range(), Value: val, Error: r.Errors.For(f.Name), List: f.IsList(),
		}
		field.Bound = boundOf(r, all, f)
		if r.Inherited[f.Name] {
			field.Name = f.Name
			v.Stream = append(v.Stream, field)
			continue
		}
		if val != defaults[f.Name] {
			v.Changed = true
			own.Set(field.Name, val)
		}
		v.Fields = append(v.Fields, field)
	}
	if f, ok := spreadField(v.DOMID, r); ok { // spread.go: the field sits last in the form
		if f.Value != "" {
			v.Changed = true
			own.Set(f.Name, f.Value)
		}
		v.Fields = append(v.Fields, f)
	}
	v.Query = own.Encode()
	if len(v.Stream) > 0 && len(all) > 0 {
		v.StreamFrom = DOMID(all[0].Experiment.Name)
	}
	v.Stray = strayView(r, all, v.DOMID)
	for _, o := range all {
		if o.Experiment.Name == e.Name {
			continue
		}
		od := o.Experiment.Format(o.Experiment.Defaults())
		for _, f := range o.Experiment.Fields {
			if val, ok := o.Raw[f.Name]; ok && val != od[f.Name] && !o.Inherited[f.Name] {
				v.Hidden = append(v.Hidden, Hidden{Name: o.Prefix + f.Name, Value: ShownValue(val)})
			}
		}
		if o.SpreadRaw != "" {
			v.Hidden = append(v.Hidden, Hidden{Name: o.Prefix + experiments.SpreadField, Value: ShownValue(o.SpreadRaw)})
		}
	}
	q := url.Values{}
	for _, h := range v.Hidden {
		q.Set(h.Name, h.Value)
	}
	for _, f := range v.Fields {
		if f.Value == "" && f.ID == v.DOMID+"-"+experiments.SpreadField {
			continue // an empty spread is no spread: the permalink need not say so
		}
		q.Set(f.Name, f.Value)
	}
	v.Permalink = site.URL(pagePath) + "?" + q.Encode() + "#" + v.DOMID
	reset := url.Values{}
	for _, h := range v.Hidden {
		reset.Set(h.Name, h.Value)
	}
	v.ResetURL = site.URL(pagePath)
	if len(reset) > 0 {
		v.ResetURL += "?" + reset.Encode()
	}
	v.ResetURL += "#" + v.DOMID
	return v
}

// StrayKey is one refused key of the address that the form has no field for: the key as given,
// why it was refused, and the id of the input that sets the value it meant ("" for none).
type StrayKey struct {
	Key     string
	Error   string
	InputID string
}

// strayView is r's refused keys of the address (Run.Stray) as its block lists them: a key under
// the first form's own name points at that form's input, one of an inherited value at the input
// of the first form, which sets it.
func strayView(r Run, all []Run, domID string) []StrayKey {
	var out []StrayKey
	for _, fe := range r.Stray {
		k := StrayKey{Key: fe.Field, Error: fe.Message}
		name := strings.TrimPrefix(fe.Field, r.Experiment.Name+".")
		if _, ok := r.Experiment.Field(name); ok {
			switch {
			case r.Prefix == "":
				k.InputID = domID + "-" + name
			case r.Inherited[name] && len(all) > 0:
				k.InputID = DOMID(all[0].Experiment.Name) + "-" + name
			}
		}
		out = append(out, k)
	}
	return out
}

// boundOf is the largest value of the whole-number field f that r's run, and every later run on
// the page that takes f from r's form, can run with their other values as they are: the range of a
// field says what it accepts alone, and the budget of a run can refuse far less (a crash rate of 1
// makes every job a redelivery). "" when the range's maximum runs, or a run did not parse.
func boundOf(r Run, all []Run, f experiments.Field) string {
	if f.Kind != experiments.KindInt || r.Params == nil {
		return ""
	}
	low, tighter := f.MaxInt, false
	take := func(e *experiments.Experiment, p any) {
		if b, ok := e.MaxFitting(p, f.Name); ok && b < low {
			low, tighter = b, true
		}
	}
	take(r.Experiment, r.Params)
	if r.Prefix == "" {
		for _, o := range all {
			if o.Prefix != "" && o.Inherited[f.Name] && o.Params != nil {
				take(o.Experiment, o.Params)
			}
		}
	}
	if !tighter || low < f.MinInt {
		return ""
	}
	return experiments.Thousands(low)
}

// ArticleView is a prose page with its interactive parts resolved.
type ArticleView struct {
	Site  Site
	Page  *content.Page
	Prev  *Link
	Next  *Link
	Runs  map[string]ExperimentView
	Code  map[string]Source
	Steps TimelineView
	Quiz  []Question
	// Lab is the live lab's part, on the page that places it.
	Lab *LabView
	// Workbench is the workbench's part, on the page that places it.
	Workbench *WorkbenchView
	// Edit, when set, leads from the page's design to the workbench, after part After.
	Edit *EditLinks
}

// EditLinks are the "Edit and check" links under a page's design: one per template of its
// designs, each opening the workbench with that template in the editor (pages/workbench.go).
type EditLinks struct {
	After int
	Links []EditLink
}

// Source is a function of the experiments package, highlighted.
type Source struct {
	Name string
	File string
	HTML string
	// Lines counts the function's lines as written.
	Lines int
}

// PlainFile is the file of the experiments package that holds each design's mechanism in its
// plainest form; every other source a page shows is the optimised code that runs.
const PlainFile = "mechanisms.go"

// Plain reports whether s is a plain mechanism rather than the optimised code that runs.
func (s Source) Plain() bool { return s.File == PlainFile }

// LinesText says how long the function is, for the summary of a folded one: "115 lines".
func (s Source) LinesText() string { return present.Plural(int64(s.Lines), "line", "lines") }

// TimelineView is the crash-window walk-through: every step, the current one, and links to step.
type TimelineView struct {
	Steps   []Step
	Current int
}

// Step is one moment of the crash window. N counts steps across both tracks, so the fix track goes
// on from where the crash track stopped. Offset, Rows and Keys are the state once the step is done,
// as the concept document draws it: the broker's committed offset, the rows the effect has written,
// and the ids in processed_keys ("none" when it holds nothing).
type Step struct {
	N      int
	ID     string
	Title  string
	HTML   string
	Track  string
	Offset string
	Rows   string
	Keys   string
	URL    string
	Active bool
	Past   bool
}

// Question is one "predict before you read" question: where its answer is measured and which result
// value it is compared with (filled in by the browser from the data attributes).
type Question struct {
	N        int
	ID       string
	Title    string
	HTML     string
	AnswerAt string
	// Measured is the question's value at the document's values, when IsMeasured (a run that
	// failed leaves it out).
	Measured   int64
	IsMeasured bool
	Unit       string
}

// MaxShownValue is the longest value a form shows and echoes as typed: experiments refuses a
// longer one before reading it (its maxRawLen), and the form, its hidden copies and its links then
// keep only this much of it, marked with an ellipsis, so that a pasted essay is never echoed in full.
const MaxShownValue = 1000

// ShownValue is a value the reader sent as a form echoes it back, in its field, its hidden copies
// and its links: clipped to MaxShownValue, and with every control character (the NUL of jobs=%00,
// a pasted newline) replaced by U+FFFD, which shows that something was there without putting the
// character itself into an attribute.
func ShownValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
	return experiments.Clip(s, MaxShownValue)
}

// MeasuredText is the question's measurement as the page prints numbers, with thousands
// separators; "" when it was not measured.
func (q Question) MeasuredText() string {
	if !q.IsMeasured {
		return ""
	}
	return experiments.Thousands(q.Measured)
}

// MeasuredDigits is the measurement in plain digits, for the data attribute the script that
// compares a guess reads; "" when it was not measured.
func (q Question) MeasuredDigits() string {
	if !q.IsMeasured {
		return ""
	}
	return strconv.FormatInt(q.Measured, 10)
}
