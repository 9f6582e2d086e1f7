package notebook

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/web"
	"effectivelyonce/present"
)

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

// StrictQuery refuses a query string that does not parse. The API answers 400 naming each
// problem. A page whose malformed values belong to its forms gets them, kept as typed, so that the
// form marks them (a 422 with everything else kept); any other malformed key is a 400.
func StrictQuery(base string, rejected *prometheus.CounterVec) echo.MiddlewareFunc {
	known := formKeys()
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if req.URL.RawQuery == "" {
				return next(c)
			}
			vals, problems := experiments.ParseQuery(req.URL.RawQuery)
			if len(problems) == 0 {
				return next(c)
			}
			rejected.WithLabelValues("malformed_query").Inc()
			if strings.HasPrefix(req.URL.Path, base+"/api/") {
				return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: experiments.CapErrors(problems)})
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
