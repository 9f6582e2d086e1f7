package roomsweb

// The rooms' reading of notebook permalinks: a presented page or a pinned run is a path of the
// notebook with its query, read as the notebook's pages read theirs, so that what a room says of a
// path (its title, its headline, whether followers can open it) is what the page would show.

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
)

// parseQuery reads a query string as url.ParseQuery does, except that nothing is dropped: a pair
// that does not decode (a bad %-escape) or that holds a ';' keeps its raw text as its value and is
// reported, so that a path the page would refuse is refused here too. (The notebook's own parser,
// which its strict-query middleware uses, says the same; the two are kept alike.)
func parseQuery(raw string) (url.Values, experiments.FieldErrors) {
	vals := url.Values{}
	var problems experiments.FieldErrors
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, kerr := url.QueryUnescape(k)
		if kerr != nil {
			key = k
		}
		val, verr := url.QueryUnescape(v)
		switch {
		case strings.Contains(part, ";"):
			if i := strings.IndexByte(key, ';'); i >= 0 {
				key = key[:i]
			}
			problems = append(problems, experiments.FieldError{Field: experiments.Clip(key, 40),
				Message: fmt.Sprintf("%q holds a ';', which does not separate parameters; separate them with '&'", experiments.Clip(part, 40))})
			val = v
		case kerr != nil || verr != nil:
			problems = append(problems, experiments.FieldError{Field: experiments.Clip(key, 40),
				Message: fmt.Sprintf("%q is not URL-encoded correctly: a %% must be followed by two hexadecimal digits", experiments.Clip(part, 40))})
			val = v
		}
		vals[key] = append(vals[key], val)
	}
	return vals, problems
}

// experimentsOn lists the experiments a page shows, in order, each once.
func experimentsOn(page *content.Page) []string {
	var names []string
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment && !slices.Contains(names, part.Name()) {
			names = append(names, part.Name())
		}
	}
	return names
}

// readRun picks experiment e's values out of a page's query: its own fields under prefix, and
// those it shares with the page's first experiment (first) from the first form, as the page does.
// inherited names the fields taken from the first form; sub is e's values by field name.
func readRun(e *experiments.Experiment, prefix string, first *experiments.Experiment, q url.Values) (inherited map[string]bool, sub map[string][]string) {
	inherited = map[string]bool{}
	sub = map[string][]string{}
	for _, f := range e.Fields {
		name := prefix + f.Name
		if first != nil && f.Shared {
			if ff, ok := first.Field(f.Name); ok && ff == f {
				inherited[f.Name] = true
				name = f.Name
			}
		}
		if vals, ok := q[name]; ok {
			sub[f.Name] = vals
		}
	}
	return inherited, sub
}
