package workbenchweb

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"effectivelyonce/experiments"
	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// TestRoundButton: while the reader's room has a handler round open, the workbench's form has a
// second submit button that posts the same form to the room's action; without one it has none.
func TestRoundButton(t *testing.T) {
	round := &pages.WorkbenchRound{Action: "/rooms/r1/rounds/3/submission", Seq: 3, Room: "Tuesday", Params: "jobs=2,000"}
	var open *pages.WorkbenchRound
	e, _ := newTestHandlers(t, 30, func(d *Deps) {
		d.Round = func(echo.Context) *pages.WorkbenchRound { return open }
	})
	form := url.Values{"source": {template(t, "ack-after-work")}, "template": {"ack-after-work"}, "jobs": {"300"}}
	if r := post(e, "/workbench", form); r.status != http.StatusOK || strings.Contains(r.body, "wb-submit-round") {
		t.Fatalf("no round open: %d, and the button is there: %v", r.status, strings.Contains(r.body, "wb-submit-round"))
	}
	open = round
	r := post(e, "/workbench", form)
	for _, want := range []string{`id="wb-submit-round"`, `formaction="/rooms/r1/rounds/3/submission"`, `hx-post="/rooms/r1/rounds/3/submission"`,
		"Round 3 of “Tuesday”: the server checks what you submit at jobs=2,000"} {
		if !strings.Contains(r.body, want) {
			t.Errorf("the workbench with a round open lacks %s", want)
		}
	}
}

// TestRoundAnswer: a submission's answer keeps the handler in the editor, shows the round's
// parameters and the check at them, under the line saying what became of it; with htmx, the
// result panel and the parameters alone.
func TestRoundAnswer(t *testing.T) {
	e, h := newTestHandlers(t, 30, nil)
	src := template(t, "ack-after-work") + "# mine\n"
	e.POST("/answer", func(c echo.Context) error {
		res, err := h.CheckAt(c.Request().Context(), src, "jobs=300")
		if err != nil {
			return err
		}
		return h.RoundAnswer(c, http.StatusOK, pages.RoundAnswer{Source: src, Template: "ack-after-work", Params: "jobs=300", Result: &res,
			Note: pages.RoundNote{OK: true, Text: "Submitted to round 3.", RoomURL: "/rooms/r1"}})
	})
	whole := post(e, "/answer", url.Values{"jobs": {"20"}})
	req := httptest.NewRequest(http.MethodPost, "/answer", strings.NewReader("jobs=20"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	part := send(e, req)
	for name, r := range map[string]response{"the page": whole, "htmx": part} {
		for _, want := range []string{`data-round-note="submitted"`, "Submitted to round 3.", `id="wb-jobs"`, `value="300"`, "breaks at"} {
			if !strings.Contains(r.body, want) {
				t.Errorf("%s lacks %s", name, want)
			}
		}
	}
	if !strings.Contains(whole.body, "# mine") || strings.Contains(part.body, "<textarea") {
		t.Error("the page does not keep the handler in the editor, or htmx's answer redraws the editor")
	}

	_, err := h.CheckAt(context.Background(), src, "key_window=lots")
	var fe experiments.FieldErrors
	if !errors.As(err, &fe) || fe[0].Field != "key_window" {
		t.Errorf("a round's parameter refused: %v", err)
	}
	_, err = h.CheckAt(context.Background(), "def handle(job, queue, db, bus):\n    db.apply(job.idx)\n", "jobs=300")
	var ce *workbench.CodeError
	if !errors.As(err, &ce) || ce.Line != 2 {
		t.Errorf("a mistake in the handler: %v", err)
	}
}
