package roomsweb

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/labstack/echo/v4"

	"effectivelyonce/pages"
	"effectivelyonce/workbench"
)

// fakeChecks stands in for the workbench's check and its answer to a submission: a handler with
// "mistake" in it has a mistake at line 3, column 5; one with "# survives" survives its 3 crash
// points; any other breaks at one of them, duplicating 7 jobs and losing 2. It records what it
// checked, at which parameters, and what it was asked to answer.
type fakeChecks struct {
	mu      sync.Mutex
	checked []fakeCheck
	answers []fakeAnswer
}

type fakeCheck struct{ source, params string }

type fakeAnswer struct {
	status int
	a      pages.RoundAnswer
}

func (f *fakeChecks) check(ctx context.Context, source, params string) (workbench.Result, error) {
	f.mu.Lock()
	f.checked = append(f.checked, fakeCheck{source, params})
	f.mu.Unlock()
	if strings.Contains(source, "mistake") {
		return workbench.Result{}, &workbench.CodeError{Line: 3, Col: 5, Msg: "undefined: mistake"}
	}
	pass := strings.Contains(source, "# survives")
	res := workbench.Result{Verdict: workbench.Verdict{Survives: pass}}
	for k := range 3 {
		p := workbench.Point{CrashPoint: k, Survives: pass || k != 1}
		if !p.Survives {
			p.Duplicated, p.Lost = 7, 2
		}
		res.Points = append(res.Points, p)
	}
	return res, nil
}

func (f *fakeChecks) answer(c echo.Context, status int, a pages.RoundAnswer) error {
	f.mu.Lock()
	f.answers = append(f.answers, fakeAnswer{status, a})
	f.mu.Unlock()
	return c.String(status, a.Note.Text)
}

func (f *fakeChecks) last() (fakeCheck, fakeAnswer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var c fakeCheck
	var a fakeAnswer
	if len(f.checked) > 0 {
		c = f.checked[len(f.checked)-1]
	}
	if len(f.answers) > 0 {
		a = f.answers[len(f.answers)-1]
	}
	return c, a
}

const (
	passing = "def handle(job, queue, db, bus):\n    pass  # survives\n"
	failing = "def handle(job, queue, db, bus):\n    db.apply(job.id)\n    queue.ack()\n"
)

// challengeQuery is what the rounds of these tests ask: the window's own key window, and the
// delays the host typed, as the round keeps them.
const challengeQuery = "key_window=1000&max_delay=2000"

// TestHandlerRoundAPI runs a handler round through the API: the challenge refused field by field,
// submissions checked and answered with their verdict, what members and the host see before and
// after the reveal, and the export.
func TestHandlerRoundAPI(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Handlers")
	ada, bob := s.join(t, code, "Ada"), s.join(t, code, "Bob")
	s.join(t, code, "Cy")
	path := "/api/rooms/" + code
	round := path + "/rounds/1"
	for _, c := range []struct {
		name, method, target, key, body string
		status                          int
		field, says                     string
	}{
		{"no template", "POST", path + "/rounds", host, `{"kind":"handler","template":"nope"}`, 400, "template", "ack-after-work"},
		{"a parameter refused", "POST", path + "/rounds", host, `{"kind":"handler","template":"window","params":"key_window=lots"}`, 400, "params", "key_window"},
		{"no parameter of this name", "POST", path + "/rounds", host, `{"kind":"handler","template":"window","params":"window=5"}`, 400, "params", "window"},
		{"no reference", "POST", path + "/rounds", host, `{"kind":"handler","template":"window","reference":"magic"}`, 400, "reference", "template"},
		{"two votes", "POST", path + "/rounds", host, `{"kind":"handler","template":"window","votes":2}`, 400, "votes", "one vote"},
		{"a countdown too short", "POST", path + "/rounds", host, `{"kind":"handler","template":"window","seconds":5}`, 400, "seconds", "15"},
		{"no such kind", "POST", path + "/rounds", host, `{"kind":"essay"}`, 400, "kind", "handler"},
		{"a member opens one", "POST", path + "/rounds", ada, `{"kind":"handler","template":"window"}`, 403, "", ""},
	} {
		r := s.call(c.method, c.target, c.key, c.body)
		var got apiErrors
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != c.status || len(got.Errors) != 1 ||
			got.Errors[0].Field != c.field || !strings.Contains(got.Errors[0].Message, c.says) {
			t.Errorf("%s: %d %s; want %d naming %q and saying %q", c.name, r.status, r.body, c.status, c.field, c.says)
		}
	}
	var opened struct{ Seq int }
	must(t, s.call("POST", path+"/rounds", host, `{"kind":"handler","template":"window","params":"max_delay=2000","seconds":600}`), http.StatusCreated, &opened)
	if opened.Seq != 1 {
		t.Fatalf("the handler round is round %d", opened.Seq)
	}
	hv := s.state(t, code, host)
	q := hv.Rounds[0].Question
	if q.Kind != "handler" || q.Template != "window" || q.Params != challengeQuery || q.Reference != "window" ||
		q.Text != "Write a handler that survives: key_window=1,000, max_delay=2,000" {
		t.Errorf("the challenge as the host reads it: %+v", q)
	}
	if mq := s.state(t, code, ada).Rounds[0].Question; mq.Reference != "" || mq.Params != challengeQuery {
		t.Errorf("a member reads the reference before the reveal: %+v", mq)
	}

	var sub SubmissionJSON
	for _, c := range []struct {
		name, key, body string
		status          int
		field           string
		line            int
	}{
		{"the host submits", host, `{"source":"pass"}`, 403, "", 0},
		{"an empty handler", ada, `{"source":"  "}`, 400, "source", 0},
		{"a handler over 16 KB", ada, `{"source":"` + strings.Repeat("#", 16<<10+1) + `"}`, 400, "source", 0},
		{"a mistake at its line", ada, `{"source":"x = 1\n\n    mistake\n"}`, 422, "source", 3},
		{"no source of the right type", ada, `{"source":5}`, 400, "source", 0},
	} {
		r := s.call("POST", round+"/submission", c.key, c.body)
		var got struct {
			Errors []struct {
				Field string `json:"field"`
				Line  int    `json:"line"`
				Col   int    `json:"col"`
			} `json:"errors"`
		}
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != c.status || len(got.Errors) != 1 ||
			got.Errors[0].Field != c.field || got.Errors[0].Line != c.line || (c.line > 0 && got.Errors[0].Col != 5) {
			t.Errorf("%s: %d %.200s; want %d naming %q at line %d", c.name, r.status, r.body, c.status, c.field, c.line)
		}
	}
	if r := s.call("POST", path+"/rounds/9/submission", ada, `{"source":"pass"}`); r.status != http.StatusNotFound || !strings.Contains(r.body, `"seq"`) {
		t.Errorf("a submission to no round: %d %s", r.status, r.body)
	}
	if r := s.call("PUT", round+"/guess", ada, `{"value":3}`); r.status != http.StatusBadRequest || !strings.Contains(r.body, `"seq"`) {
		t.Errorf("a guess on a handler round: %d %s", r.status, r.body)
	}
	must(t, s.call("POST", round+"/submission", ada, `{"source":`+jsonString(failing)+`}`), http.StatusOK, &sub)
	must(t, s.call("POST", round+"/submission", ada, `{"source":`+jsonString(passing)+`}`), http.StatusOK, &sub)
	if v := sub.Verdict; sub.Seq != 1 || len(sub.Hash) != 12 || sub.URL != "/workbench/s/"+sub.Hash+"?"+challengeQuery ||
		v.Points != 3 || v.Survived != 3 || !v.Survives || v.Text != "survives all 3 crash points" {
		t.Errorf("Ada's resubmission: %+v", sub)
	}
	must(t, s.call("POST", round+"/submission", bob, `{"source":`+jsonString(failing)+`}`), http.StatusOK, &sub)
	if v := sub.Verdict; v.Survived != 2 || v.Duplicated != 7 || v.Lost != 2 || v.Survives || v.Events != nil {
		t.Errorf("Bob's failing handler: %+v", sub.Verdict)
	}

	// Before the reveal: members their own verdict and the count; the host all, named.
	bv := s.state(t, code, bob).Rounds[0]
	if bv.Answered != 2 || bv.Of != 3 || bv.Handler == nil || bv.Handler.YourSubmission == nil ||
		bv.Handler.YourSubmission.Verdict.Survived != 2 || len(bv.Handler.Submissions) != 0 || bv.Unanswered != nil {
		t.Errorf("Bob before the reveal: %+v", bv)
	}
	hr := s.state(t, code, host).Rounds[0]
	if h := hr.Handler; h == nil || len(h.Submissions) != 2 || h.Submissions[0].Name != "Ada" || h.Submissions[0].Hash == "" ||
		h.Submissions[1].Name != "Bob" || hr.Unanswered == nil || strings.Join(*hr.Unanswered, ",") != "Cy" {
		t.Errorf("the host before the reveal: %+v %+v", hr, hr.Handler)
	}

	var revealed HandlerJSON
	must(t, s.call("POST", round+"/reveal", host, ""), http.StatusOK, &revealed)
	if revealed.Reference == nil || revealed.Reference.Points != 3 || len(revealed.Submissions) != 2 || revealed.Survive != 1 {
		t.Errorf("the reveal: %+v", revealed)
	}
	if c, _ := s.checks.last(); c.params != challengeQuery {
		t.Errorf("the reference was checked at %q", c.params)
	}
	if r := s.call("POST", round+"/submission", bob, `{"source":`+jsonString(passing)+`}`); r.status != http.StatusConflict || !strings.Contains(r.body, `"round"`) {
		t.Errorf("a submission after the reveal: %d %s", r.status, r.body)
	}
	bv = s.state(t, code, bob).Rounds[0]
	if bv.Question.Reference != "window" || len(bv.Handler.Submissions) != 2 || bv.Handler.Submissions[0].Name != "" ||
		bv.Handler.Submissions[0].Hash != "" || !bv.Handler.Submissions[1].Yours || bv.Handler.Reference == nil {
		t.Errorf("Bob after the reveal: %+v %+v", bv, bv.Handler)
	}

	var ex struct {
		Rounds []struct {
			Challenge struct {
				Template, Params, Reference string
				ReferenceVerdict            *struct{ Survives bool } `json:"reference_verdict"`
			} `json:"challenge"`
			Submissions []struct {
				Name, Hash string
				Verdict    struct{ Points, Survived int }
			} `json:"submissions"`
		} `json:"rounds"`
	}
	must(t, s.call("GET", path+"/export", host, ""), http.StatusOK, &ex)
	if len(ex.Rounds) != 1 || ex.Rounds[0].Challenge.Template != "window" || ex.Rounds[0].Challenge.Params != challengeQuery ||
		ex.Rounds[0].Challenge.ReferenceVerdict == nil || len(ex.Rounds[0].Submissions) != 2 {
		t.Fatalf("the export: %+v", ex)
	}
	for _, sub := range ex.Rounds[0].Submissions {
		if sub.Name == "" || len(sub.Hash) != 12 || sub.Verdict.Points != 3 {
			t.Errorf("a submission in the export: %+v", sub)
		}
	}
	r := s.call("GET", path+"/export?format=csv", host, "")
	rows, err := csv.NewReader(strings.NewReader(r.body[strings.Index(r.body, "\n")+1:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range rows {
		if row[0] == "submission" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d submission rows in the CSV export, want 2", n)
	}
}

// TestSubmissionIsCheckedAtTheChallengesParams: the workbench's form carries whatever parameters
// the member last checked at; the server checks at the round's, and the answer shows the round's.
func TestSubmissionIsCheckedAtTheChallengesParams(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Fair")
	ada := s.join(t, code, "Ada")
	must(t, s.call("POST", "/api/rooms/"+code+"/rounds", host, `{"kind":"handler","template":"window","params":"max_delay=2000"}`), http.StatusCreated, nil)
	form := url.Values{"source": {passing}, "template": {"window"}, "key_window": {"5"}, "max_delay": {"7"}, "jobs": {"100"}}
	target := "/rooms/" + s.ids[code] + "/rounds/1/submission"
	r := s.post(target, ada, form)
	c, a := s.checks.last()
	if r.status != http.StatusOK || !a.a.Note.OK || !strings.Contains(r.body, "Submitted to round 1") {
		t.Fatalf("the form's submission: %d %s", r.status, r.body)
	}
	if c.params != challengeQuery || c.source != passing {
		t.Errorf("checked %q at %q; want the form's handler at the round's %q", c.source, c.params, challengeQuery)
	}
	if a.a.Params != challengeQuery || a.a.Source != passing || a.a.Template != "window" || a.a.Result == nil || a.a.Round == nil {
		t.Errorf("the answer shows %+v; want the handler kept and the round's parameters", a.a)
	}
	// The API takes no parameters at all: the round's are the only ones.
	must(t, s.call("POST", "/api/rooms/"+code+"/rounds/1/submission", ada, `{"source":`+jsonString(failing)+`}`), http.StatusOK, nil)
	if c, _ := s.checks.last(); c.params != challengeQuery {
		t.Errorf("the API's submission was checked at %q", c.params)
	}
}

// TestSubmissionFormAnswers: every refusal of a submission from the workbench's form is answered
// by the workbench with the handler kept and the reason said, with script or without.
func TestSubmissionFormAnswers(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Refusals")
	ada := s.join(t, code, "Ada")
	api := "/api/rooms/" + code
	must(t, s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"ack-after-work"}`), http.StatusCreated, nil)
	target := "/rooms/" + s.ids[code] + "/rounds/1/submission"
	mistake := "def handle(job, queue, db, bus):\n\n    mistake\n"
	r := s.post(target, ada, url.Values{"source": {mistake}, "jobs": {"100"}})
	_, a := s.checks.last()
	if r.status != http.StatusUnprocessableEntity || a.a.CodeError == nil || a.a.CodeError.Line != 3 || a.a.Source != mistake ||
		a.a.Note.OK || !strings.Contains(a.a.Note.Text, "Not submitted") || a.a.Params != "" {
		t.Errorf("a mistake: %d, answer %+v", r.status, a.a)
	}
	must(t, s.call("POST", api+"/rounds/1/lock", host, ""), http.StatusOK, nil)
	for _, htmx := range []bool{false, true} {
		req := url.Values{"source": {passing}, "jobs": {"100"}}
		var r response
		if htmx {
			r = s.sendHX(target, ada, req)
		} else {
			r = s.post(target, ada, req)
		}
		_, a := s.checks.last()
		want := http.StatusConflict
		if htmx {
			want = http.StatusUnprocessableEntity // htmx swaps a refusal beside the form only as a 422
		}
		if r.status != want || a.a.Source != passing || a.a.Note.OK || !strings.Contains(a.a.Note.Text, "takes no more handlers") || a.a.Params != "jobs=100" {
			t.Errorf("htmx %v, a locked round: %d, answer %+v", htmx, r.status, a.a)
		}
	}
	if subs := s.state(t, code, host).Rounds[0].Handler.Submissions; len(subs) != 0 {
		t.Errorf("refused submissions were kept: %+v", subs)
	}
}

// sendHX posts a form as htmx does.
func (s *harness) sendHX(target, key string, form url.Values) response {
	req, _ := http.NewRequest("POST", target, bytes.NewBufferString(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set("Authorization", "Bearer "+key)
	rec := httptest.NewRecorder()
	s.e.ServeHTTP(rec, req)
	return response{rec.Code, rec.Body.String()}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestProjectorShowsAHandler: after the reveal the host puts the reference, then a member's
// handler, on the projector, which draws its source and its check with the workbench's table, and
// names it only once the host shows names to members.
func TestProjectorShowsAHandler(t *testing.T) {
	s := newHarness(t, limits{})
	s.e.GET("/rooms/:id/projector", s.h.Projector())
	code, host := s.createRoom(t, "Big screen")
	ada := s.join(t, code, "Ada")
	api, page := "/api/rooms/"+code, "/rooms/"+s.ids[code]
	must(t, s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"window","params":"max_delay=2000"}`), http.StatusCreated, nil)
	must(t, s.call("POST", api+"/rounds/1/submission", ada, `{"source":`+jsonString(passing)+`}`), http.StatusOK, nil)
	adaID := s.state(t, code, ada).You.ID
	if r := s.post(page+"/rounds/1/projector", host, url.Values{"shown": {adaID}}); r.status != http.StatusConflict {
		t.Errorf("a handler shown before the reveal: %d %s", r.status, r.body)
	}
	must(t, s.call("POST", api+"/rounds/1/reveal", host, ""), http.StatusOK, nil)
	if r := s.post(page+"/rounds/1/projector", ada, url.Values{"shown": {"reference"}}); r.status != http.StatusForbidden {
		t.Errorf("a member put the reference on the projector: %d", r.status)
	}
	screen := func() string {
		t.Helper()
		r := s.send("GET", page+"/projector", host, "", "")
		if r.status != http.StatusOK {
			t.Fatalf("the projector: %d %s", r.status, r.body)
		}
		i := strings.Index(r.body, "data-shown-handler")
		if i < 0 {
			t.Fatalf("the projector shows no handler")
		}
		return r.body[i:]
	}
	must(t, s.post(page+"/rounds/1/projector", host, url.Values{"shown": {"reference"}}), http.StatusSeeOther, nil)
	if got := screen(); !strings.Contains(got, "The reference handler: Bounded dedup window") || !strings.Contains(got, "tx.remember") ||
		strings.Count(got, `<tr data-point=`) != 3 {
		t.Errorf("the reference on the projector: %.600s", got)
	}
	must(t, s.post(page+"/rounds/1/projector", host, url.Values{"shown": {adaID}}), http.StatusSeeOther, nil)
	if got := screen(); !strings.Contains(got, "A handler submitted") || strings.Contains(got, "Ada") || !strings.Contains(got, "# survives") {
		t.Errorf("Ada's handler on the projector, names hidden: %.600s", got)
	}
	if c, _ := s.checks.last(); c.source != passing || c.params != challengeQuery {
		t.Errorf("the projector drew the check of %q at %q", c.source, c.params)
	}
	must(t, s.post(page+"/rounds/1/names", host, url.Values{"visible": {"true"}}), http.StatusSeeOther, nil)
	if got := screen(); !strings.Contains(got, "Ada&#39;s handler") {
		t.Errorf("with names shown to members the projector does not name the handler: %.300s", got)
	}
}

// TestNoHandlerSurvivesTheChallenge: a challenge no handler can survive (the window's own 1,000
// keys against delays of 2,000 jobs) is not refused, but the host's form says so first, with
// script and without, and opens it once the host confirms; one a handler can survive opens
// at once. After the reveal the room's page and the projector say, beside the
// reference's verdict, that no handler survives and why, the page linking block 4 at the same
// window, the projector without a link; before it, nobody is told.
func TestNoHandlerSurvivesTheChallenge(t *testing.T) {
	s := newHarness(t, limits{})
	s.e.GET("/rooms/:id", s.h.Page())
	s.e.GET("/rooms/:id/projector", s.h.Projector())
	code, host := s.createRoom(t, "Windows")
	ada := s.join(t, code, "Ada")
	api, page := "/api/rooms/"+code, "/rooms/"+s.ids[code]
	form := url.Values{"kind": {"handler"}, "template": {"window"}, "params": {"max_delay=2000"}, "seconds": {""}}
	const why = "No handler survives these parameters: a key window of 1,000 ids forgets keys before redeliveries up to 2,000 jobs late arrive"
	const block4 = `href="/blocks/4?jobs=20000&amp;max_delay=2000&amp;windows=1000"`
	rounds := func() int { t.Helper(); return len(s.state(t, code, host).Rounds) }

	r := s.post(page+"/rounds", host, form)
	if r.status != http.StatusOK || !strings.Contains(r.body, why) || !strings.Contains(r.body, block4) ||
		!strings.Contains(r.body, "Open it anyway") || !strings.Contains(r.body, `name="confirmed" value="yes"`) ||
		!strings.Contains(r.body, `name="params" value="max_delay=2000"`) || !strings.Contains(r.body, "raise the window") {
		t.Errorf("without script, the form's answer to a challenge no handler survives: %d %.2000s", r.status, r.body)
	}
	r = s.sendHX(page+"/rounds", host, form)
	if r.status != http.StatusUnprocessableEntity || !strings.Contains(r.body, why) ||
		!strings.Contains(r.body, `<button type="submit" name="confirmed" value="yes">Open it anyway</button>`) {
		t.Errorf("with script: %d %s", r.status, r.body)
	}
	if n := rounds(); n != 0 {
		t.Fatalf("asking opened %d rounds", n)
	}
	if r := s.post(page+"/rounds", host, url.Values{"kind": {"handler"}, "template": {"window"}, "params": {"key_window=1998"}}); r.status != http.StatusSeeOther || rounds() != 1 {
		t.Errorf("a window of 1,998 keys, which the window's handler survives, was not opened at once: %d %.300s", r.status, r.body)
	}
	form.Set("confirmed", "yes")
	if r := s.post(page+"/rounds", host, form); r.status != http.StatusSeeOther || rounds() != 2 {
		t.Fatalf("confirmed, the challenge did not open: %d %.300s", r.status, r.body)
	}

	view := func(target, key string) string {
		t.Helper()
		r := s.send("GET", target, key, "", "")
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %.300s", target, r.status, r.body)
		}
		return r.body
	}
	if got := view(page, ada); strings.Contains(got, "data-none-survive") {
		t.Errorf("a member is told before the reveal that no handler survives")
	}
	must(t, s.call("POST", api+"/rounds/2/reveal", host, ""), http.StatusOK, nil)
	for _, c := range []struct {
		name, target, key string
		link              bool
	}{{"Ada's page", page, ada, true}, {"the host's page", page, host, true}, {"the projector", page + "/projector", host, false}} {
		got := view(c.target, c.key)
		i := strings.Index(got, "data-none-survive")
		if i < 0 || !strings.Contains(got[i:], "No handler survives these parameters:</strong> a key window of 1,000 ids forgets keys before redeliveries up to 2,000 jobs late arrive") ||
			!strings.Contains(got[i:], "whatever the handler does") || strings.Contains(got[i:min(i+900, len(got))], "href=") == !c.link ||
			c.link && !strings.Contains(got[i:], block4) || !strings.Contains(got, "data-reference-verdict") {
			t.Errorf("%s after the reveal: %.900s", c.name, got[max(i, 0):])
		}
	}

	// The API opens such a round at once, as a script means to, and says why in the answer; a
	// window the handler survives opens with no warning.
	var opened struct {
		Seq     int    `json:"seq"`
		Warning string `json:"warning"`
	}
	must(t, s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"window","params":"max_delay=2000"}`), http.StatusCreated, &opened)
	if opened.Seq != 3 || !strings.Contains(opened.Warning, "no handler survives these parameters: a key window of 1,000 ids forgets keys before redeliveries up to 2,000 jobs late arrive") ||
		!strings.Contains(opened.Warning, "find their key gone") {
		t.Errorf("the API's unsurvivable round: %+v", opened)
	}
	opened.Warning = ""
	must(t, s.call("POST", api+"/rounds", host, `{"kind":"handler","template":"window","params":"key_window=1998"}`), http.StatusCreated, &opened)
	if opened.Seq != 4 || opened.Warning != "" {
		t.Errorf("the API warned of a window the handler survives: %+v", opened)
	}
}
