package roomsweb

// The notebook paths a room carries (the page the host presents, the runs members pin) as people
// read them, and the check that a presented path is a page the followers can open.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// notebookPage finds the page of the contents a path (without the base path) names.
func (h *Handlers) notebookPage(path string) (content.Entry, *content.Page, url.Values, experiments.FieldErrors, bool) {
	u, err := url.Parse(path)
	if err != nil {
		return content.Entry{}, nil, nil, nil, false
	}
	for _, entry := range content.Contents() {
		if entry.Path != u.Path {
			continue
		}
		page, ok := h.book.Page(entry.Slug)
		if !ok {
			return content.Entry{}, nil, nil, nil, false
		}
		q, problems := experiments.ParseQuery(u.RawQuery)
		return entry, page, q, problems, true
	}
	return content.Entry{}, nil, nil, nil, false
}

// pagePath is one experiment of a notebook page as a path sets it: its parameters, and for each
// of its own fields (not one it takes from the page's first form) whether the path moved it from
// its default.
type pagePath struct {
	experiment *experiments.Experiment
	params     any
	own        []experiments.Field
	scope      present.Scope // the rows the page shows of the run
}

// pagePathParams reads every experiment's parameters on page from q, as the page itself would;
// the first refusal is answered as the field's name and message.
func pagePathParams(page *content.Page, q url.Values) ([]pagePath, *experiments.FieldError) {
	var out []pagePath
	var first *experiments.Experiment
	for i, name := range pages.ExperimentsOn(page) {
		e, _ := experiments.Lookup(name) // the site's checkBook made sure it exists
		prefix := ""
		if i > 0 {
			prefix = e.Name + "."
		}
		r, sub := pages.ReadRun(e, prefix, first, q)
		inherited := r.Inherited
		p, err := e.Parse(sub)
		if err != nil {
			fe := experiments.FieldError{Message: err.Error()}
			var fes experiments.FieldErrors
			if errors.As(err, &fes) && len(fes) > 0 {
				fe = fes[0]
				if !inherited[fe.Field] {
					fe.Field = prefix + fe.Field
				}
			}
			return nil, &fe
		}
		pp := pagePath{experiment: e, params: p, scope: pages.ScopeOn(page, name)}
		for _, f := range e.Fields {
			if !inherited[f.Name] {
				pp.own = append(pp.own, f)
			}
		}
		out = append(out, pp)
		if i == 0 {
			first = e
		}
	}
	return out, nil
}

// presentable checks that followers can open path: a page of the notebook, its parameters ones
// the page takes. The refusal names the field "path" and says what is wrong, in the words a host
// can act on.
func (h *Handlers) presentable(path string) error {
	path, err := rooms.CleanPath("path", path)
	if err != nil {
		return err
	}
	bad := func(format string, args ...any) error {
		return &rooms.FieldError{Field: "path", Err: rooms.ErrInvalid, Message: fmt.Sprintf(format, args...)}
	}
	_, page, q, problems, ok := h.notebookPage(path)
	if !ok {
		p, _, _ := strings.Cut(path, "?")
		return bad("%s is not a page of the notebook; open the page to present and press “Present this page” in the room bar", experiments.Clip(p, 60))
	}
	if len(problems) > 0 {
		return bad("%s", problems[0].Message)
	}
	if _, fe := pagePathParams(page, q); fe != nil {
		return bad("the page refuses %s: %s", fe.Field, fe.Message)
	}
	return nil
}

// present shows path to the room's followers once presentable agrees that they can open it; an
// empty path stops presenting.
func (h *Handlers) present(ctx context.Context, host rooms.Caller, path string) error {
	if path != "" {
		if err := h.presentable(path); err != nil {
			return err
		}
	}
	return h.rooms.Present(ctx, host, path)
}

// pathTitle names a notebook path for people: the page's name in the contents and, in brackets,
// only the parameters the path moves from the page's defaults, decoded and in words ("4 · The
// bounded dedup window (max redelivery delay 5,000 jobs)"). A path of no page is itself; one whose
// parameters the page refuses is the page's name alone.
func (h *Handlers) pathTitle(path string) string {
	if t, ok := h.titles.Get(path); ok {
		return t
	}
	t := path
	if entry, page, q, problems, ok := h.notebookPage(path); ok {
		t = entry.Nav
		if runs, fe := pagePathParams(page, q); fe == nil && len(problems) == 0 {
			if moved := movedParams(runs); moved != "" {
				t += " (" + moved + ")"
			}
		}
	}
	h.titles.Put(path, t)
	return t
}

// movedParams says in words each parameter that differs from its experiment's default, over the
// experiments of a page, each one's own fields only.
func movedParams(runs []pagePath) string {
	var words []string
	for _, r := range runs {
		if w := present.MovedParams(r.experiment, r.params, r.own); w != "" {
			words = append(words, w)
		}
	}
	return strings.Join(words, "; ")
}
