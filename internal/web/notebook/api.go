package notebook

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// APIField is a parameter spec as the API lists it.
// APIField is one parameter as GET /api/experiments describes it.
type APIField struct {
	experiments.Field
	Type     string `json:"type"`
	Default  string `json:"default"`
	Min      any    `json:"min"`
	Max      any    `json:"max"`
	MaxItems int    `json:"max_items,omitempty"`
}

// APIExperiment is one experiment as GET /api/experiments lists it.
type APIExperiment struct {
	Name    string     `json:"name"`
	Title   string     `json:"title"`
	Summary string     `json:"summary"`
	URL     string     `json:"url"`
	Fields  []APIField `json:"fields"`
	// Jobs says how to list the jobs behind a count and trace one; absent where there are none.
	Jobs *APIJobs `json:"jobs,omitempty"`
}

// APIJobs describes an experiment's "which jobs?" routes: the outcomes it lists, the points of a
// run at its defaults, and what a trace's steps count.
type APIJobs struct {
	URL      string   `json:"url"`
	Outcomes []string `json:"outcomes"`
	Points   []string `json:"points_at_defaults"`
	StepUnit string   `json:"step_unit"`
}

func describe(base string, e *experiments.Experiment) APIExperiment {
	d := e.Format(e.Defaults())
	out := APIExperiment{Name: e.Name, Title: e.Title, Summary: e.Summary, URL: base + "/api/experiments/" + e.Name}
	for _, f := range e.Fields {
		af := APIField{Field: f, Type: f.Kind.String(), Default: d[f.Name]}
		switch f.Kind {
		case experiments.KindInt, experiments.KindIntList:
			af.Min, af.Max = f.MinInt, f.MaxInt
		default:
			af.Min, af.Max = f.Min, f.Max
		}
		if f.IsList() {
			af.MaxItems = experiments.MaxListItems
		}
		out.Fields = append(out.Fields, af)
	}
	if e.Traceable() {
		out.Jobs = &APIJobs{URL: out.URL + "/jobs", Outcomes: e.Outcomes(), Points: e.Points(e.Defaults()), StepUnit: e.StepUnit()}
	}
	return out
}

// ExperimentList handles "GET /api/experiments".
func (h *Handlers) ExperimentList() echo.HandlerFunc {
	return func(c echo.Context) error {
		var out []APIExperiment
		for _, e := range experiments.All() {
			out = append(out, describe(h.base, e))
		}
		return c.JSON(http.StatusOK, map[string]any{"experiments": out})
	}
}

// Experiment handles "GET /api/experiments/:name": 200 with params and result (JSON, or
// CSV with format=csv), 400 with field errors, 404 for an unknown experiment. With spread=N the
// answer adds the spread over N seeds (a "spread" object, or a second CSV table), computed while
// the request waits.
func (h *Handlers) Experiment() echo.HandlerFunc {
	return func(c echo.Context) error {
		e, ok := experiments.Lookup(c.Param("name"))
		if !ok {
			return noExperiment(c)
		}
		if sealed, err := h.sealedAPI(c, e); sealed { // sealed.go: a study room asks a number of it
			return err
		}
		q := c.QueryParams()
		format := "json"
		if v, ok := q["format"]; ok {
			if len(v) != 1 || (v[0] != "json" && v[0] != "csv") {
				return c.JSON(http.StatusBadRequest, present.APIError("format", "must be json or csv, given once"))
			}
			format = v[0]
		}
		p, err := e.Parse(q, "format", experiments.SpreadField)
		if err != nil {
			var fe experiments.FieldErrors
			if errors.As(err, &fe) {
				h.rejected.WithLabelValues("invalid").Inc()
				return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: experiments.CapErrors(fe)})
			}
			return err
		}
		spreadN, sfe := e.SpreadQuery(p, q)
		if sfe != nil {
			h.rejected.WithLabelValues("invalid").Inc()
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: experiments.FieldErrors{*sfe}})
		}
		if err := h.admitRun(c.Request().Context(), e, p); err != nil {
			return err
		}
		if spreadN > 0 {
			if err := h.admitSpread(c.Request().Context(), e, p, spreadN); err != nil { // ratelimit.go
				return err
			}
		}
		res, err := h.runner.Run(c.Request().Context(), e, p)
		if err != nil {
			return err
		}
		var spread *experiments.SpreadResult
		if spreadN > 0 {
			sp, err := h.spreadFor(c.Request().Context(), e, p, spreadN)
			if err != nil {
				return err
			}
			spread = &sp
		}
		if format == "csv" {
			c.Response().Header().Set("Content-Disposition", `inline; filename="`+e.Name+`.csv"`)
			csv, err := present.CSVOf(e, p, res)
			if spread != nil { // spread_api.go: the spread's own table and fingerprint
				csv, err = present.SpreadCSV(e, p, res, *spread)
			}
			if err != nil {
				return err
			}
			return c.Blob(http.StatusOK, "text/csv; charset=utf-8", []byte(csv))
		}
		if spread != nil {
			return c.JSON(http.StatusOK, present.SpreadJSON(e, p, res, *spread)) // provenance.go
		}
		return c.JSON(http.StatusOK, present.RunJSON(e, p, res))
	}
}

// noExperiment answers an API route whose :name is no experiment: 404, naming the field.
func noExperiment(c echo.Context) error {
	return c.JSON(http.StatusNotFound, present.APIError("name", "no experiment of this name; GET /api/experiments lists them"))
}
