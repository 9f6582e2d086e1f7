package site

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/pages"
)

// askOption finds, in a page's "Ask about this page", the option whose words are words, and
// answers the value it posts.
func askOption(t *testing.T, body, words string) string {
	t.Helper()
	i := strings.Index(body, `class="roombar-ask"`)
	if i < 0 {
		t.Fatalf("no “Ask about this page” in the bar")
	}
	m := regexp.MustCompile(`<option value="([^"]*)">` + regexp.QuoteMeta(words) + `</option>`).FindStringSubmatch(body[i:])
	if m == nil {
		t.Fatalf("no option %q in the ask list: %.2000s", words, body[i:])
	}
	return html.UnescapeString(m[1])
}

// TestAskAboutThisPage: the host's bar on a block lists the numbers the page shows, in words with
// their rows and the reading's headline, even for a run the cache never held; the round it opens
// names the experiment, its parameters and the row; a member's copy of that run is hidden until
// the reveal, on the page and in a rerun's fragment, and so are a run at other parameters and the
// page's other experiment, while the host's is not; after the reveal the member's page shows the
// result.
func TestAskAboutThisPage(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Block 4")
	code := codeOf(t, host, roomPath)
	joinAs(t, ada, code, "Ada")
	ada.get(roomPath) // the room's page makes it the browser's current room: the bar follows

	// Parameters no page has run yet: the list must not come out empty because the cache has
	// nothing.
	page := "/blocks/4?max_delay=4321"
	if _, ok := s.runner.Cache().Get(mustKey(t, "window", "max_delay=4321")); ok {
		t.Fatal("the run is cached before anyone asked for it")
	}
	r := host.get(page)
	if r.status != http.StatusOK {
		t.Fatalf("host on %s: %d", page, r.status)
	}
	number := askOption(t, r.body, "escaped duplicates at window 1,000")
	askOption(t, r.body, "jobs crashed") // the reading's headline, beside the counts
	if strings.Contains(r.body[strings.Index(r.body, `class="roombar-ask"`):], "escaped_duplicates") {
		t.Error("the ask list names a CSV column")
	}
	if a := ada.get(page); strings.Contains(a.body, `class="roombar-ask"`) {
		t.Error("a member's bar offers “Ask about this page”")
	}

	// The round opens from the bar's form, without script: back to the page, the round in the bar.
	r = host.post(roomPath+"/rounds", url.Values{"number": {number}, "return": {page}})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != page {
		t.Fatalf("ask: %d %s → %q", r.status, r.body, r.header.Get("Location"))
	}
	want := "How many escaped duplicates at window 1,000? (Escape rate versus dedup window, with max redelivery delay 4,321 jobs)"
	if r := host.get(roomPath); !strings.Contains(html.UnescapeString(r.body), want) {
		t.Fatalf("the round does not ask %q", want)
	}

	sealed := "Hidden until the host reveals the answer"
	a := ada.get(page)
	if !strings.Contains(a.body, sealed) || !strings.Contains(a.body, `data-sealed-round="1"`) {
		t.Fatalf("the member's page shows the run the round asks about: %.300s", a.body)
	}
	if w := experimentBlock(a.body, "exp-window"); strings.Contains(w, "<table") || strings.Contains(w, "What the numbers say") {
		t.Errorf("the hidden run still shows its table or reading to the member: %.500s", w)
	}
	if g := experimentBlock(a.body, "exp-window-grid"); !strings.Contains(g, sealed) || strings.Contains(g, "What the numbers say") {
		t.Error("the page's other experiment, which can measure the same row, shows its result to the member")
	}
	// A rerun of the block with htmx is hidden too (no bar drawn, the room read for it).
	f := ada.send("GET", page, nil, true, "HX-Target", "exp-window")
	if f.status != http.StatusOK || !strings.Contains(f.body, sealed) {
		t.Errorf("the member's rerun fragment: %d, hidden %v", f.status, strings.Contains(f.body, sealed))
	}
	// The host sees it; the same experiment at other parameters is hidden from the member too
	// (TestSealedHidesEveryRun).
	if h := host.get(page); strings.Contains(h.body, sealed) {
		t.Error("the host's copy is hidden")
	}
	if d := ada.get("/blocks/4"); !strings.Contains(experimentBlock(d.body, "exp-window"), sealed) {
		t.Error("the window at its defaults shows to the member while the round asks about the window at max_delay=4321")
	}

	// The reveal measures the run and the member's page shows the result again.
	if r := host.post(roomPath+"/rounds/1/reveal", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("reveal: %d %s", r.status, r.body)
	}
	if a := ada.get(page); strings.Contains(a.body, sealed) || !strings.Contains(experimentBlock(a.body, "exp-window"), "What the numbers say") {
		t.Error("after the reveal, the member's page still hides the result")
	}
}

// TestSealedHidesEveryRun: while a round asks how many duplicates escape a window
// of 1,000 ids (195 at the document's values), a member reads that number nowhere: not by running
// the window at other values that hold the row ("1000", "1000,2000", "999,1000"), not in a rerun's
// fragment, not in the sealed block's markup (the guess form's data-measured, charts, tables), not
// in the prose after the block, the predictions quiz, the JSON or CSV API, "which jobs?", nor the
// page's window grid (which measures the same row at window 1,000 and delay 2,000) or another
// page's experiment. The
// host reads all of it; after the reveal, so does the member. (QA report, item 2.)
func TestSealedHidesEveryRun(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Sealed")
	joinAs(t, ada, codeOf(t, host, roomPath), "Ada")
	ada.get(roomPath)
	ada.cookies[pages.GuessOptInCookie] = "on" // the guess form, which carries the measured value, is drawn

	// Ada pins the window at 1,000 ids before the round: the board's headline is that run's
	// reading, which opens with the jobs that crashed, a number the bar could ask as well.
	const answer, pinned = "195", "398 of 20,000 jobs crashed"
	if r := ada.send("POST", roomPath+"/pins", url.Values{"path": {"/blocks/4?windows=1000"}}, true); r.status != http.StatusNoContent {
		t.Fatalf("pin: %d %s", r.status, r.body)
	}
	headline := func(b *browser) string {
		page := b.get(roomPath).body
		if i := strings.Index(page, `class="pin-headline`); i >= 0 {
			return page[i:min(len(page), i+300)]
		}
		return ""
	}
	if !sitetest.WaitFor(streamWait, func() bool { return strings.Contains(headline(ada), pinned) }) {
		t.Fatalf("the pin's headline never came to say %s: %q", pinned, headline(ada))
	}

	r := host.get("/blocks/4")
	number := askOption(t, r.body, "escaped duplicates at window 1,000")
	if r := host.post(roomPath+"/rounds", url.Values{"number": {number}, "return": {"/blocks/4"}}); r.status != http.StatusSeeOther {
		t.Fatalf("ask: %d %s", r.status, r.body)
	}
	if h := headline(ada); strings.Contains(h, pinned) || !strings.Contains(h, "hidden until the host reveals") {
		t.Errorf("the member's board shows a pin's result while a round asks: %q", h)
	}
	if h := headline(host); !strings.Contains(h, pinned) {
		t.Errorf("the host's board lost the pin's headline: %q", h)
	}
	if h := host.get("/blocks/4?windows=1000"); !strings.Contains(experimentBlock(h.body, "exp-window"), answer) {
		t.Fatalf("the host's run at window 1,000 does not show %s: the test measures nothing", answer)
	}
	sealed := "Hidden until the host reveals the answer"
	jobsLink := regexp.MustCompile(`href="(/jobs/window\?[^"]*)"`).FindStringSubmatch(host.get("/blocks/4?windows=1000").body)
	if jobsLink == nil {
		t.Fatal("no “which jobs?” link under the host's window table")
	}
	jobs := html.UnescapeString(jobsLink[1])
	jobsAPI := strings.Replace(jobs, "/jobs/window?", "/api/experiments/window/jobs?", 1)
	apis := []string{"/api/experiments/window?windows=1000", "/api/experiments/window?windows=1000,2000&format=csv",
		"/api/experiments/window", jobsAPI, jobs, "/jobs/window/1?" + strings.SplitN(jobs, "?", 2)[1]}

	for _, q := range []string{"", "?windows=1000", "?windows=1000,2000", "?windows=999,1000", "?max_delay=4321"} {
		a := ada.get("/blocks/4" + q)
		w := experimentBlock(a.body, "exp-window")
		if !strings.Contains(w, sealed) {
			t.Errorf("/blocks/4%s: the member's window block is not hidden: %.400s", q, w)
		}
		for _, leak := range []string{answer, "data-measured", "<table", "data-chart"} {
			if strings.Contains(w, leak) {
				t.Errorf("/blocks/4%s: the member's sealed block carries %q", q, leak)
			}
		}
		if strings.Contains(a.body, answer+" duplicates still escape") {
			t.Errorf("/blocks/4%s: the prose after the block states the answer", q)
		}
		f := ada.send("GET", "/blocks/4"+q, nil, true, "HX-Target", "exp-window")
		if !strings.Contains(f.body, sealed) || strings.Contains(experimentBlock(f.body, "exp-window"), answer) {
			t.Errorf("/blocks/4%s: the member's rerun fragment is not sealed: %.300s", q, f.body)
		}
	}
	// The window grid measures the same row at window 1,000 and max delay 2,000, and the assembly
	// on another page is sealed as well: while a round asks, no experiment answers a member.
	grid := "/blocks/4?window-grid.windows=1000&window-grid.max_delays=2000"
	if h := experimentBlock(host.get(grid).body, "exp-window-grid"); !strings.Contains(h, answer) {
		t.Fatalf("the host's grid at window 1,000 and delay 2,000 does not show %s: the check below measures nothing", answer)
	}
	if g := experimentBlock(ada.get(grid).body, "exp-window-grid"); !strings.Contains(g, sealed) || strings.Contains(g, answer) {
		t.Errorf("the member's window grid at window 1,000 and delay 2,000 is not hidden: %.400s", g)
	}
	if a := experimentBlock(ada.get("/assembly").body, "exp-assembly"); !strings.Contains(a, sealed) || strings.Contains(a, "<table") {
		t.Errorf("the assembly shows its results to the member while a round asks: %.400s", a)
	}
	apis = append(apis, "/api/experiments/window-grid?windows=1000&max_delays=2000", "/api/experiments/assembly")
	predictions := "/" // the first page asks the predictions' questions
	quiz := regexp.MustCompile(`data-question="q4" data-measured="([^"]*)"`)
	if m := quiz.FindStringSubmatch(ada.get(predictions).body); m == nil || m[1] != "" {
		t.Errorf("the member's predictions quiz measures the window's question: %v", m)
	}
	if m := quiz.FindStringSubmatch(host.get(predictions).body); m == nil || m[1] == "" {
		t.Errorf("the host's predictions quiz lost the window's measurement: %v", m)
	}
	for _, u := range apis {
		a := ada.get(u)
		if a.status != http.StatusForbidden || !strings.Contains(a.body, "hidden until the host reveals") || strings.Contains(a.body, answer) {
			t.Errorf("member %s: %d %s", u, a.status, a.body)
		}
		if a.header.Get("Cache-Control") != "no-store" {
			t.Errorf("member %s: Cache-Control %q, a cache could keep the refusal past the reveal", u, a.header.Get("Cache-Control"))
		}
		if h := host.get(u); h.status != http.StatusOK {
			t.Errorf("host %s: %d %.200s", u, h.status, h.body)
		}
	}

	// Ben hid the bar ("Hide this bar and stop following"): still seated, still sealed, on the
	// pages and in the API alike.
	ben := newBrowser(t, s)
	joinAs(t, ben, codeOf(t, host, roomPath), "Ben")
	ben.get(roomPath)
	if r := ben.post(roomPath+"/leave", url.Values{}); r.status >= 400 {
		t.Fatalf("hide the bar: %d %s", r.status, r.body)
	}
	if b := ben.get("/blocks/4?windows=1000"); strings.Contains(experimentBlock(b.body, "exp-window"), answer) {
		t.Error("the member who hid the bar reads the answer on the page")
	}
	for _, u := range apis {
		if b := ben.get(u); b.status != http.StatusForbidden || strings.Contains(b.body, answer) {
			t.Errorf("the member who hid the bar, %s: %d %.200s", u, b.status, b.body)
		}
	}

	if r := host.post(roomPath+"/rounds/1/reveal", url.Values{}); r.status != http.StatusSeeOther {
		t.Fatalf("reveal: %d %s", r.status, r.body)
	}
	if a := ada.get("/blocks/4?windows=1000"); strings.Contains(a.body, sealed) || !strings.Contains(experimentBlock(a.body, "exp-window"), answer) {
		t.Error("after the reveal, the member's run at window 1,000 is still hidden")
	}
	if !sitetest.WaitFor(streamWait, func() bool { return strings.Contains(headline(ada), pinned) }) {
		t.Errorf("after the reveal, the member's board still hides the pin's headline: %q", headline(ada))
	}
	for _, u := range apis {
		if a := ada.get(u); a.status != http.StatusOK {
			t.Errorf("after the reveal, member %s: %d %.200s", u, a.status, a.body)
		}
	}
}

// TestAskListFollowsThePage: the bar asks for the list again when a rerun changes the page's
// address; only the host is answered, and a page without experiments says there is nothing to ask.
func TestAskListFollowsThePage(t *testing.T) {
	s := newTestServer(t, testConfig())
	host, ada := newBrowser(t, s), newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "Lists")
	joinAs(t, ada, codeOf(t, host, roomPath), "Ada")
	list := roomPath + "/ask?path=" + url.QueryEscape("/blocks/6?timeouts=7,20")
	r := host.send("GET", list, nil, true)
	if r.status != http.StatusOK || !strings.Contains(r.body, "jobs run twice without renewal at timeout 7 s") ||
		!strings.Contains(r.body, "seconds the slowest job took") {
		t.Fatalf("the list at timeouts 7 and 20: %d %.1500s", r.status, r.body)
	}
	// Block 1 shows the assembly up to its own design: the list keeps the later blocks' rows back.
	if r := host.send("GET", roomPath+"/ask?path=/blocks/1", nil, true); !strings.Contains(r.body, "jobs lost with design at-most-once") ||
		strings.Contains(r.body, "dedup-transactional") {
		t.Errorf("block 1's list: %.1500s", r.body)
	}
	if r := ada.send("GET", list, nil, true); r.status != http.StatusForbidden {
		t.Errorf("a member's list: %d, want 403", r.status)
	}
	if r := host.send("GET", roomPath+"/ask?path=/glossary", nil, true); r.status != http.StatusOK || !strings.Contains(r.body, "no number of an experiment") {
		t.Errorf("a page without experiments: %d %s", r.status, r.body)
	}
	if r := host.send("GET", roomPath+"/ask?path=https://elsewhere.example/", nil, true); r.status != http.StatusBadRequest {
		t.Errorf("a path off the site: %d, want 400", r.status)
	}
}

// mustKey is the cache key of experiment name at the parameters of query.
func mustKey(t *testing.T, name, query string) string {
	t.Helper()
	e, p, err := parseQueryOf(name, query)
	if err != nil {
		t.Fatal(err)
	}
	return e.Key(p)
}

// parseQueryOf is experiment name with the parameters of a permalink's query.
func parseQueryOf(name, query string) (*experiments.Experiment, any, error) {
	e, ok := experiments.Lookup(name)
	if !ok {
		return nil, nil, fmt.Errorf("no experiment %q", name)
	}
	vals, problems := experiments.ParseQuery(query)
	if len(problems) > 0 {
		return nil, nil, problems
	}
	p, err := e.Parse(vals)
	return e, p, err
}

// experimentBlock is the experiment block with DOM id id in a page, up to the next block ("" when
// the page has none), whatever classes the block's section carries.
func experimentBlock(body, id string) string {
	i := strings.Index(body, ` id="`+id+`"`)
	if i < 0 {
		return ""
	}
	i = strings.LastIndex(body[:i], "<section")
	rest := body[i+1:]
	if j := strings.Index(rest, `<section class="experiment`); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
