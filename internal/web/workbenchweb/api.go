package workbenchweb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// checkCost puts every check in the heavy lane: a reader's handler costs a child process, whatever
// its stream's length, so checks queue for the same slots as the heaviest experiment runs.
const checkCost = runs.LightCost + 1

// codeErrorJSON is one refusal in the API's {"errors"} shape, with the place in the handler when
// the fault is the handler's (line and col 1-based; absent for a field's error or a fault of the
// whole handler, such as its size).
type codeErrorJSON struct {
	Field   string `json:"field"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
}

// checkRequest is the body of POST /api/workbench/check. Params take numbers or strings, as a
// permalink writes them ("all", "yes", "2,000").
type checkRequest struct {
	Source string                     `json:"source"`
	Params map[string]json.RawMessage `json:"params"`
}

// checkJSON is the API's answer for a check: the fields the issue names first, then what a
// program needs to reproduce it.
func checkJSON(src string, res workbench.Result, share string) map[string]any {
	out := map[string]any{"verdict": res.Verdict, "points": res.Points, "smallest": res.Smallest,
		"params": res.Params.Format(), "ops": res.Ops, "publishes": res.Publishes, "lease_time": res.LeaseTime,
		"output": res.Output, "source_hash": workbench.SourceHash(src), "version": present.Version()}
	if share != "" {
		out["share"] = share
	}
	return out
}

// CheckAPI handles "POST /api/workbench/check": 200 with the check, 400 naming a refused
// parameter (or the body), 422 for a mistake in the handler with its line and column.
func (h *Handlers) CheckAPI() echo.HandlerFunc {
	return func(c echo.Context) error {
		var in checkRequest
		if err := web.ReadJSON(c.Request(), &in, false); err != nil {
			if bodyTooLarge(err) {
				return apiTooLarge(c)
			}
			return err
		}
		raw, fe := paramsOfJSON(in.Params)
		if fe != nil {
			return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: fe})
		}
		res, err := h.checkParsed(c.Request().Context(), in.Source, raw)
		if err != nil {
			return h.checkAPIError(c, err)
		}
		return c.JSON(http.StatusOK, checkJSON(in.Source, res, ""))
	}
}

// checkAPIError answers a refused check in the API's shape: field errors with 400, a mistake in
// the handler with 422 and its place, anything else through the one error handler.
func (h *Handlers) checkAPIError(c echo.Context, err error) error {
	var fe experiments.FieldErrors
	var ce *workbench.CodeError
	switch {
	case errors.As(err, &fe):
		h.d.Rejected.WithLabelValues("invalid").Inc()
		return c.JSON(http.StatusBadRequest, present.APIErrors{Errors: experiments.CapErrors(fe)})
	case errors.As(err, &ce):
		return c.JSON(http.StatusUnprocessableEntity, map[string]any{"errors": []codeErrorJSON{{Field: "source", Message: ce.Msg, Line: ce.Line, Col: ce.Col}}})
	}
	return err
}

// paramsOfJSON turns the API's params object into the query form workbench.Parse reads: strings
// as they are, numbers as written, booleans as yes and no. Anything else names its field.
func paramsOfJSON(in map[string]json.RawMessage) (map[string][]string, experiments.FieldErrors) {
	raw := map[string][]string{}
	var fe experiments.FieldErrors
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		dec := json.NewDecoder(bytes.NewReader(in[k]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			fe = append(fe, experiments.FieldError{Field: experiments.Clip(k, 40), Message: "is not a JSON value"})
			continue
		}
		switch v := v.(type) {
		case string:
			raw[k] = []string{v}
		case json.Number:
			raw[k] = []string{v.String()}
		case bool:
			raw[k] = []string{map[bool]string{true: "yes", false: "no"}[v]}
		default:
			fe = append(fe, experiments.FieldError{Field: experiments.Clip(k, 40), Message: "must be a number or a string"})
		}
	}
	return raw, fe
}

// checkParsed reads the parameters and runs the check (see check).
func (h *Handlers) checkParsed(ctx context.Context, src string, raw map[string][]string) (workbench.Result, error) {
	p, err := workbench.Parse(raw)
	if err != nil {
		return workbench.Result{}, err
	}
	return h.check(ctx, src, p)
}

// check runs a reader's handler in the sandbox's child process, never in this one, admitted like
// a heavy run: charged to the client's allowance, one flight per handler and parameters, a heavy
// slot (the child's memory is its own, bounded by its own limit, so it takes none of the runs'
// shared budget), and kept in the result cache, since a check is deterministic. A handler over
// the size limit is refused before anything is charged.
func (h *Handlers) check(ctx context.Context, src string, p workbench.Params) (workbench.Result, error) {
	if len(src) > workbench.MaxSource {
		return workbench.Result{}, &workbench.CodeError{Msg: fmt.Sprintf("the handler is %s bytes long; the limit is %s (16 KB)",
			experiments.Thousands(int64(len(src))), experiments.Thousands(workbench.MaxSource))}
	}
	key := "workbench\x00" + workbench.SourceHash(src) + strconv.Itoa(len(src)) + "\x00" + p.Query()
	v, err := h.admitted(ctx, key, func(ctx context.Context) (any, error) {
		return h.d.Checks.Check(ctx, src, p)
	})
	if err != nil {
		return workbench.Result{}, err
	}
	return v.(workbench.Result), nil
}

// trace tells one job's life at one crash point of a check, in the child process and admitted as
// check is.
func (h *Handlers) trace(ctx context.Context, src string, p workbench.Params, point int, job int64) (experiments.Trace, error) {
	key := fmt.Sprintf("workbench-trace\x00%s%d\x00%s\x00%d\x00%d", workbench.SourceHash(src), len(src), p.Query(), point, job)
	v, err := h.admitted(ctx, key, func(ctx context.Context) (any, error) {
		return h.d.Checks.Trace(ctx, src, p, point, job)
	})
	if err != nil {
		return experiments.Trace{}, err
	}
	return v.(experiments.Trace), nil
}

// admitted answers key from the cache, or charges the client one run and does work in a heavy
// slot, one flight per key, caching what it answers. Errors are never cached: a handler's mistake
// costs the reader a run each time, as a refused experiment does not.
func (h *Handlers) admitted(ctx context.Context, key string, work func(context.Context) (any, error)) (any, error) {
	if v, ok := h.d.Runner.Cache().Get(key); ok {
		h.d.Lookups.WithLabelValues("hit").Inc()
		return v, nil
	}
	h.d.Lookups.WithLabelValues("miss").Inc()
	if err := h.d.Admit.Work(web.ClientOf(ctx)); err != nil {
		var re *runs.Error
		if errors.As(err, &re) && re.Code == http.StatusTooManyRequests {
			return nil, &web.Error{Status: http.StatusTooManyRequests, RetryAfter: re.Wait, Msg: rateLimited}
		}
		return nil, err
	}
	return h.d.Runner.Flight(ctx, key, "workbench", checkCost, 0, work)
}

// rateLimited is a check refused for the client's allowance: it says checks, since a reader on
// the workbench has pressed Check rather than Run.
const rateLimited = "Too many checks and runs from your network address in a short time (a class behind one address shares the allowance)."

// CheckDeadline is how long a check's child may run: the sandbox's own deadline, or less when
// the server's run timeout is shorter, so the child stops itself (naming the line it was on)
// before the slot's timeout cuts it off.
func CheckDeadline(runTimeout time.Duration) time.Duration {
	d := workbench.DefaultDeadline
	if runTimeout > 0 && runTimeout-time.Second < d {
		d = max(time.Second, runTimeout-time.Second)
	}
	return d
}
