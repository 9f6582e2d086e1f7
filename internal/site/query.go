package site

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
)

// maxFieldErrors is how many field errors one answer lists; the rest are counted in a last entry,
// so that a request of ten thousand unknown keys does not get ten thousand messages back.
const maxFieldErrors = 5

// capErrors keeps the first maxFieldErrors errors and says how many more there were.
func capErrors(fe experiments.FieldErrors) experiments.FieldErrors {
	if len(fe) <= maxFieldErrors {
		return fe
	}
	out := append(experiments.FieldErrors{}, fe[:maxFieldErrors]...)
	return append(out, experiments.FieldError{Message: fmt.Sprintf("and %d more", len(fe)-maxFieldErrors)})
}

// parseQuery reads a query string as url.ParseQuery does, except that nothing is dropped: a pair
// that does not decode (a bad %-escape) or that holds a ';' (which Go no longer takes as a
// separator) keeps its raw text as its value and is reported, so that the caller can refuse it
// instead of silently running on the defaults.
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

// formKeys is every query key a page's forms can send: each experiment's field names, bare and
// under the experiment's prefix. A malformed value under one of them is kept for the page to show
// in its form (a 422); any other malformed key has no form to show it in (a 400).
func formKeys() map[string]bool {
	keys := map[string]bool{}
	for _, e := range experiments.All() {
		for _, f := range e.Fields {
			keys[f.Name] = true
			keys[e.Name+"."+f.Name] = true
		}
	}
	return keys
}

// strictQuery refuses a query string that does not parse. The API answers 400 naming each
// problem. A page whose malformed values belong to its forms gets them, kept as typed, so that the
// form marks them (a 422 with everything else kept); any other malformed key is a 400.
func (s *server) strictQuery() echo.MiddlewareFunc {
	known := formKeys()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.URL.RawQuery == "" {
				return next(c)
			}
			vals, problems := parseQuery(req.URL.RawQuery)
			if len(problems) == 0 {
				return next(c)
			}
			s.metrics.Rejected.WithLabelValues("malformed_query").Inc()
			if strings.HasPrefix(req.URL.Path, s.cfg.BasePath+"/api/") {
				return c.JSON(http.StatusBadRequest, apiErrors{Errors: capErrors(problems)})
			}
			for _, p := range problems {
				if !known[p.Field] {
					return &web.Error{Status: http.StatusBadRequest, Msg: "The address does not parse: " + p.Field + ": " + p.Message + "."}
				}
			}
			req.URL.RawQuery = vals.Encode()
			c.Set(queryProblemsKey, problems)
			return next(c)
		}
	}
}

// queryProblemsKey carries a page's malformed form values from strictQuery to the handler, which
// names the problem (a bad %-escape, a ';') on the field instead of the parser's general message.
const queryProblemsKey = "query-problems"

// explainMalformed puts the query's own problem in place of the parser's message for each field
// whose value did not parse as a query at all; name gives a field's key in the query.
func explainMalformed(fe experiments.FieldErrors, problems experiments.FieldErrors, name func(string) string) {
	for i := range fe {
		for _, p := range problems {
			if p.Field == name(fe[i].Field) {
				fe[i].Message = p.Message
			}
		}
	}
}
