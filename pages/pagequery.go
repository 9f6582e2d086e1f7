package pages

import (
	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/present"
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// ExperimentsOn lists the experiments a page shows, each once, in the order they appear.
func ExperimentsOn(page *content.Page) []string {
	var names []string
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment && !slices.Contains(names, part.Name()) {
			names = append(names, part.Name())
		}
	}
	return names
}

// HasMarker reports whether the page holds the named interactive part.
func HasMarker(page *content.Page, marker string) bool {
	for _, part := range page.Parts {
		if part.Marker == marker {
			return true
		}
	}
	return false
}

// ReadRun reads one experiment's parameters from the page query, under its prefix. Unknown keys
// are ignored on pages: a page URL may carry another experiment's values.
//
// The stream belongs to the page: a shared stream parameter (Field.Shared) that the page's first
// experiment also has, with the same spec, is set in the first form only, and a later experiment
// (first != nil) always takes it from there (unprefixed), never from a value of its own. So "the
// same 20,000 jobs" stays true down the page, and the URL holds each value once.
func ReadRun(e *experiments.Experiment, prefix string, first *experiments.Experiment, q url.Values) (Run, map[string][]string) {
	r := Run{Experiment: e, Prefix: prefix, Raw: map[string]string{}}
	sub := map[string][]string{}
	for _, f := range e.Fields {
		name := prefix + f.Name
		if first != nil && f.Shared {
			if ff, ok := first.Field(f.Name); ok && ff == f {
				if r.Inherited == nil {
					r.Inherited = map[string]bool{}
				}
				r.Inherited[f.Name] = true
				name = f.Name
			}
		}
		if vals, ok := q[name]; ok {
			sub[f.Name] = vals
			r.Raw[f.Name] = vals[0]
		}
	}
	r.SpreadRaw = q.Get(prefix + experiments.SpreadField) // each form has its own; see spread.go
	r.Stray = strayKeys(e, prefix, r.Inherited, q)
	return r, sub
}

// strayKeys refuses the keys under e's name ("crash-sweep.jobs") that the page does not read, each
// naming its key: a value the page took and silently ignored would leave a reader believing it
// ran. A page's first form reads its values without a prefix, and a later one reads the stream's
// values from the first form (inherited), so both kinds, and a parameter e does not have, are
// refused with what to write instead. Keys under another experiment's name are no business of
// e's form.
func strayKeys(e *experiments.Experiment, prefix string, inherited map[string]bool, q url.Values) experiments.FieldErrors {
	under := e.Name + "."
	var keys []string
	for k := range q {
		if name, ok := strings.CutPrefix(k, under); ok {
			if _, known := e.Field(name); prefix == under && (name == experiments.SpreadField || known && !inherited[name]) {
				continue // this form's own field, read above
			}
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out experiments.FieldErrors
	for _, k := range keys {
		name := strings.TrimPrefix(k, under)
		f, known := e.Field(name)
		var msg string
		switch {
		case known && prefix == "":
			msg = fmt.Sprintf("this is the page's first form, whose values carry no prefix: write %s=, not %s=", f.Name, experiments.Clip(k, 40))
		case known && inherited[name]:
			msg = fmt.Sprintf("this form takes %s from the first form on the page, so that every experiment here replays one stream: set %s= there", strings.ToLower(f.Label), f.Name)
		case name == experiments.SpreadField:
			msg = fmt.Sprintf("this is the page's first form, whose values carry no prefix: write %s=", experiments.SpreadField)
		default:
			msg = fmt.Sprintf("%s has no parameter %q on this page; its form takes %s", e.Name, experiments.Clip(name, 40), strings.Join(ownFields(e, inherited), ", "))
		}
		out = append(out, experiments.FieldError{Field: experiments.Clip(k, 40), Message: msg})
	}
	return out
}

// ownFields are the names of the fields e's form on a page takes itself, the inherited ones aside.
func ownFields(e *experiments.Experiment, inherited map[string]bool) []string {
	var names []string
	for _, f := range e.Fields {
		if !inherited[f.Name] {
			names = append(names, f.Name)
		}
	}
	return names
}

// DependsOnFirst reports whether a later run takes any of its values from the page's first form,
// and so must be drawn again when that form is rerun.
func DependsOnFirst(r Run) bool { return r.Prefix != "" && len(r.Inherited) > 0 }

// Neighbours returns the previous and next pages in reading order.
func Neighbours(site Site, path string) (*Link, *Link) {
	all := content.Contents()
	for i, p := range all {
		if p.Path != path {
			continue
		}
		var prev, next *Link
		if i > 0 {
			prev = &Link{Title: all[i-1].Nav, URL: site.URL(all[i-1].Path)}
		}
		if i+1 < len(all) {
			next = &Link{Title: all[i+1].Nav, URL: site.URL(all[i+1].Path)}
		}
		return prev, next
	}
	return nil, nil
}

// maxLinkValue is the longest value a link built from a page's query carries: a longer one is
// refused by every field anyway (experiments' maxRawLen), so copying it would only inflate links.
const maxLinkValue = MaxShownValue

// PageParams keeps of q what the page itself reads (its forms' fields, under their prefixes, and
// the timeline's step), so that a link built from it carries nothing else appended to the URL.
func PageParams(page *content.Page, q url.Values) url.Values {
	out := url.Values{}
	keep := func(k string) {
		for _, v := range q[k] {
			if len(v) <= maxLinkValue {
				out[k] = append(out[k], v)
			}
		}
	}
	keep("step")
	for i, name := range ExperimentsOn(page) {
		e, _ := experiments.Lookup(name)
		for _, f := range e.Fields {
			if i == 0 || f.Shared {
				keep(f.Name)
			}
			if i > 0 {
				keep(e.Name + "." + f.Name)
			}
		}
	}
	return out
}

// OnceEach drops repeated experiment markers: an element id must be unique on a page, and a second
// copy of the same form would only confuse.
func OnceEach(page *content.Page) *content.Page {
	seen := map[string]bool{}
	out := *page
	out.Parts = nil
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment {
			if seen[part.Name()] {
				continue
			}
			seen[part.Name()] = true
		}
		out.Parts = append(out.Parts, part)
	}
	return &out
}

// ScopeOf reads a scope from an experiment marker's options; title= takes only "none".
func ScopeOf(part content.Part) (present.Scope, error) {
	var s present.Scope
	if v, ok := part.Option(content.OptionTitle); ok && v != "none" {
		return s, fmt.Errorf("experiment %q: title=%s, the only value is none", part.Name(), v)
	}
	s.UpTo, _ = part.Option(content.OptionUpTo)
	s.Focus, _ = part.Option(content.OptionFocus)
	if v, _ := part.Option(content.OptionTitle); v == "none" {
		s.NoTitle = true
	}
	return s, nil
}

// ScopeOn returns the scope of the named experiment on page: the options of its first marker,
// the one the page shows (a repeated marker is dropped).
func ScopeOn(page *content.Page, name string) present.Scope {
	for _, part := range page.Parts {
		if part.Marker == content.MarkerExperiment && part.Name() == name {
			s, _ := ScopeOf(part) // checked at start-up
			return s
		}
	}
	return present.Scope{}
}

// CheckMarker fails when an experiment marker's options are wrong for its experiment (see
// ScopeOf and present.Presenter.CheckScope); the server calls it at start-up for every marker.
func CheckMarker(part content.Part) error {
	pr, ok := present.PresenterFor(part.Name())
	if !ok {
		return fmt.Errorf("experiment %q has no presenter", part.Name())
	}
	s, err := ScopeOf(part)
	if err != nil {
		return err
	}
	return pr.CheckScope(s)
}
