package labweb

// A lab run a study group watches together: a room's host starts it from the room's page with a
// small form (the designs, the jobs and the crash rate, the lab's own fields), the room records it,
// and every member's room page and bar show the lab's own progress box for it, which polls
// /lab/progress as it does on /lab. The lab knows nothing of rooms: the site hands these to the
// rooms' handlers as functions, and the run is the instance's one run like any other (one at a
// time, owned by the browser that started it, the only one that sees Cancel).

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/pages"
)

// roomFields are the lab's fields a room's form offers; the rest of a run keeps the lab's defaults.
var roomFields = []string{lab.FieldJobs, lab.FieldCrashRate}

// RoomForm is the lab's form as a room's host fills it in on the room's page: the designs, the
// jobs and the crash rate from the lab's own specs, holding raw's values as typed (nil: the lab's
// defaults), each of errs beside its field and in the summary, and notice (a run refused whole:
// another under way, the hour's allowance used) above it. It is nil when the lab is off.
func (h *Handlers) RoomForm(raw url.Values, errs experiments.FieldErrors, notice string) *pages.LabView {
	if h.d.Off {
		return nil
	}
	f := labFormOf(lab.DefaultParams())
	if raw != nil {
		f = labFormFrom(raw)
	}
	v := &pages.LabView{Notice: notice, DesignError: errs.For(lab.FieldDesign)}
	for _, d := range lab.Designs() {
		v.Designs = append(v.Designs, pages.LabDesign{ID: "room-lab-design-" + string(d), Value: string(d), Label: d.Label(),
			Checked: slices.Contains(f.designs, string(d))})
	}
	if v.DesignError != "" {
		v.Refused = append(v.Refused, pages.LabRefused{Label: "Designs", Error: v.DesignError, InputID: v.Designs[0].ID})
	}
	for _, spec := range lab.Fields(h.d.MaxJobs) {
		if !slices.Contains(roomFields, spec.Name) {
			continue
		}
		fv := pages.Field{ID: "room-lab-" + strings.ReplaceAll(spec.Name, "_", "-"), Name: spec.Name, Label: spec.Label, Unit: spec.Unit,
			Help: spec.Help, Range: spec.Range(), Value: f.values[spec.Name], Error: errs.For(spec.Name)}
		v.Fields = append(v.Fields, fv)
		if fv.Error != "" {
			v.Refused = append(v.Refused, pages.LabRefused{Label: fv.Label, Error: fv.Error, InputID: fv.ID})
		}
	}
	return v
}

// StartForRoom starts a run of a room's form raw (its designs, jobs and crash rate over the lab's
// defaults) for the browser c comes from, which owns it as it would a run started on /lab, and
// answers the run's id. Values the lab refuses come back as errs, every one at once; a run refused
// whole (the lab off, another run under way, the address's hourly allowance used) as a
// *web.Error that says when to try again, with Retry-After set.
func (h *Handlers) StartForRoom(c echo.Context, raw url.Values) (id string, errs experiments.FieldErrors, err error) {
	if h.d.Off {
		return "", nil, &web.Error{Status: http.StatusForbidden, Msg: "the live lab is turned off on this instance"}
	}
	vals := lab.DefaultParams().Query()
	vals[lab.FieldDesign] = raw[lab.FieldDesign]
	for _, name := range roomFields {
		if v, ok := raw[name]; ok {
			vals[name] = v
		}
	}
	p, errs := lab.ParseParams(vals, h.d.MaxJobs)
	if len(errs) > 0 {
		h.d.Rejected.WithLabelValues("invalid").Inc()
		return "", errs, nil
	}
	site := h.d.Site(labEntry().Path)
	if _, refused := h.start(c, p, site, labViewer(c)); refused != nil {
		return "", nil, refused
	}
	t := h.d.Runner.Current()
	if t == nil {
		return "", nil, errors.New("labweb: a run started and is not the current one")
	}
	return t.ID, nil, nil
}

// Watched is the lab's run called id as the browser of c sees it (its own, with Cancel, or someone
// else's), for a room that watches it; nil when the lab's current run is another (the room's has
// been followed by a newer one) or there is none (the server restarted since). Asking counts as
// watching, so a run the room's pages show is not abandoned while anyone looks.
func (h *Handlers) Watched(c echo.Context, id string) *pages.LabStatus {
	if h.d.Off || id == "" {
		return nil
	}
	st := h.d.Runner.Status(h.d.Site(labEntry().Path), labViewer(c))
	if st == nil || st.ID != id {
		return nil
	}
	return st
}
