package site

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestPermalinkMatchesAPI reruns block 4 with the reader's values and checks that the page shows
// the numbers the API gives for the same query, and that the permalink carries the values.
func TestPermalinkMatchesAPI(t *testing.T) {
	s := newTestServer(t, testConfig())
	q := "jobs=30000&max_delay=5000&windows=1000,3000,6000&seed=7"
	page := do(t, s, "GET", "/blocks/4?"+q, nil)
	if page.status != 200 {
		t.Fatalf("page status %d", page.status)
	}
	api := do(t, s, "GET", "/api/experiments/window?"+q, nil)
	var got struct {
		Experiment string                   `json:"experiment"`
		Params     experiments.WindowParams `json:"params"`
		Result     experiments.WindowResult `json:"result"`
	}
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if got.Params.Jobs != 30000 || got.Params.MaxDelay != 5000 || got.Params.DelaySeed != 17 {
		t.Errorf("params not filled: %+v", got.Params)
	}
	if len(got.Result.Points) != 3 {
		t.Fatalf("points %+v", got.Result.Points)
	}
	for _, p := range got.Result.Points {
		cell := jobCountCell(p.Escaped)
		if !strings.Contains(page.body, cell) {
			t.Errorf("page lacks escaped count %s for window %d", cell, p.Window)
		}
	}
	// The permalink on the page reproduces the same query.
	m := regexp.MustCompile(`class="permalink" href="([^"]+)"`).FindStringSubmatch(page.body)
	if m == nil {
		t.Fatal("no permalink")
	}
	link, _, _ := strings.Cut(strings.ReplaceAll(m[1], "&amp;", "&"), "#") // browsers never send the fragment
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if u.Query().Get("max_delay") != "5000" || u.Query().Get("windows") != "1000,3000,6000" || u.Query().Get("seed") != "7" {
		t.Errorf("permalink %s lost the reader's values", link)
	}
	again := do(t, s, "GET", link, nil)
	if again.status != 200 {
		t.Fatalf("permalink %s answered %d", link, again.status)
	}
	for _, p := range got.Result.Points {
		if !strings.Contains(again.body, jobCountCell(p.Escaped)) {
			t.Errorf("permalink page lacks %d", p.Escaped)
		}
	}
}

// TestBadInputKeepsValues: a wrong value answers 422 with the reader's values still in the form and
// a message that names the field and its range, and hostile text comes back escaped.
func TestBadInputKeepsValues(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/4?jobs=500&max_delay=-3&windows=10,abc", nil)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.status)
	}
	for _, want := range []string{
		`value="500"`, `value="-3"`, `value="10,abc"`, // the reader's values stay in the form
		"Max redelivery delay:", "from 1 to 10,000,000", // the message names the field and the range
		`aria-invalid="true"`, "Nothing was run",
	} {
		if !strings.Contains(r.body, want) {
			t.Errorf("422 page lacks %q", want)
		}
	}
	// Hostile text is escaped, never reflected as markup.
	r = do(t, s, "GET", "/blocks/4?max_delay="+url.QueryEscape(`<script>alert(1)</script>`), nil)
	if r.status != 422 || strings.Contains(r.body, "<script>alert") {
		t.Errorf("status %d; reflected script: %v", r.status, strings.Contains(r.body, "<script>alert"))
	}
}

// TestHTMXFragment: an htmx rerun gets its experiment's section alone, not the whole page, and a
// refused rerun gets the section with the field marked invalid.
func TestHTMXFragment(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/4?max_delay=1000", map[string]string{"HX-Request": "true", "HX-Target": "exp-window"})
	if r.status != 200 || strings.Contains(r.body, "<html") || !strings.HasPrefix(strings.TrimSpace(r.body), `<section class="experiment" id="exp-window"`) {
		t.Errorf("fragment status %d: %.200s", r.status, r.body)
	}
	bad := do(t, s, "GET", "/blocks/4?max_delay=0", map[string]string{"HX-Request": "true", "HX-Target": "exp-window"})
	if bad.status != 422 || !strings.Contains(bad.body, `aria-invalid="true"`) {
		t.Errorf("invalid fragment status %d", bad.status)
	}
}

// TestTwoExperimentsShareAPage: each form on a page carries the other forms' values as hidden
// inputs, so rerunning one experiment does not reset the other.
func TestTwoExperimentsShareAPage(t *testing.T) {
	s := newTestServer(t, testConfig())
	// Block 4 holds window (unprefixed) and window-grid (prefixed): each keeps its own values.
	r := do(t, s, "GET", "/blocks/4?max_delay=3000&window-grid.max_delays=100,200", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if !strings.Contains(r.body, `name="window-grid.max_delays" value="100,200"`) {
		t.Error("grid form lost its values")
	}
	if !strings.Contains(r.body, `type="hidden" name="window-grid.max_delays" value="100,200"`) {
		t.Error("window form does not carry the grid's values")
	}
	if !strings.Contains(r.body, `type="hidden" name="max_delay" value="3000"`) {
		t.Error("grid form does not carry the window's values")
	}
}

// TestReadingsFollowTheRun changes the parameters on blocks 1, 4 and 6 and checks that the prose
// under the chart quotes the numbers of the run on screen, not the document's.
func TestReadingsFollowTheRun(t *testing.T) {
	s := newTestServer(t, testConfig())
	api := func(q string, v any) {
		r := do(t, s, "GET", q, nil)
		if r.status != 200 {
			t.Fatalf("%s: %d", q, r.status)
		}
		if err := json.Unmarshal([]byte(r.body), v); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("block 1", func(t *testing.T) {
		var got struct{ Result experiments.AssemblyResult }
		api("/api/experiments/assembly?jobs=50000&crash_rate=0.07&seed=3", &got)
		page := do(t, s, "GET", "/blocks/1?jobs=50000&crash_rate=0.07&seed=3", nil).body
		text := reading(t, page, "exp-assembly")
		lost := got.Result.Rows[0].Lost
		if lost == 398 || !strings.Contains(text, count(lost)) || !strings.Contains(text, "50,000") {
			t.Errorf("reading does not quote the run (lost %d):\n%s", lost, text)
		}
	})
	t.Run("block 4", func(t *testing.T) {
		var got struct{ Result experiments.WindowResult }
		api("/api/experiments/window?max_delay=7000&windows=500,4000,8000", &got)
		page := do(t, s, "GET", "/blocks/4?max_delay=7000&windows=500,4000,8000", nil).body
		text := reading(t, page, "exp-window")
		first := got.Result.Points[0].Escaped
		if !strings.Contains(text, count(first)) || !strings.Contains(text, "7,000") || !strings.Contains(text, "8,000") {
			t.Errorf("reading does not quote the run (escaped %d at 500):\n%s", first, text)
		}
		if strings.Contains(text, "380") {
			t.Errorf("reading quotes the document's 380:\n%s", text)
		}
	})
	t.Run("block 6", func(t *testing.T) {
		var got struct{ Result experiments.LeaseResult }
		api("/api/experiments/lease?timeouts=10,20,600&slow_mean_s=90", &got)
		page := do(t, s, "GET", "/blocks/6?timeouts=10,20,600&slow_mean_s=90", nil).body
		text := reading(t, page, "exp-lease")
		first := got.Result.Points[0].NoRenewal
		if first == 2448 || !strings.Contains(text, count(first)) {
			t.Errorf("reading does not quote the run (%d doubled at 10 s):\n%s", first, text)
		}
	})
}

// TestFragmentDoesOnlyItsOwnWork: an htmx rerun of one experiment runs that experiment alone and
// answers with its own status, whatever the page's other forms hold.
func TestFragmentDoesOnlyItsOwnWork(t *testing.T) {
	s := newTestServer(t, testConfig())
	hxGrid := map[string]string{"HX-Request": "true", "HX-Target": "exp-window-grid"}
	r := do(t, s, "GET", "/blocks/4?max_delay=0&window-grid.windows=700", hxGrid)
	if r.status != 200 || !strings.Contains(r.body, `id="exp-window-grid"`) || strings.Contains(r.body, `id="exp-window"`) {
		t.Errorf("a valid grid fragment beside a refused window form: status %d, %.200s", r.status, r.body)
	}
	if !strings.Contains(r.body, `type="hidden" name="max_delay" value="0"`) {
		t.Error("the fragment's form must still carry the other form's values")
	}
	win, _ := experiments.Lookup("window")
	p, err := win.Parse(map[string][]string{"max_delay": {"1700"}})
	if err != nil {
		t.Fatal(err)
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.windows=700", hxGrid)
	if _, ok := s.runner.Cache().Get(win.Key(p)); ok {
		t.Error("a grid fragment ran the window experiment as well")
	}
	do(t, s, "GET", "/blocks/4?max_delay=1700&window-grid.windows=700", nil)
	if _, ok := s.runner.Cache().Get(win.Key(p)); !ok {
		t.Error("the whole page did not run the window experiment")
	}
	tl := do(t, s, "GET", "/semantics?step=3", map[string]string{"HX-Request": "true", "HX-Target": "timeline"})
	if tl.status != 200 || !strings.HasPrefix(strings.TrimSpace(tl.body), `<section class="timeline"`) {
		t.Errorf("timeline fragment: status %d, %.100s", tl.status, tl.body)
	}
}

// TestStreamBelongsToThePage pins the rule for a page with several experiments: the stream's
// parameters are set in the first form only; a later experiment takes them from there, shows them
// instead of inputs of its own, ignores a prefixed copy, and is drawn again (out of band) when the
// first form is rerun, so the screen and the URL always agree.
func TestStreamBelongsToThePage(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/blocks/3?crash_rate=0.1", nil)
	if r.status != 200 {
		t.Fatalf("status %d", r.status)
	}
	if strings.Contains(r.body, `name="keys.crash_rate"`) {
		t.Error("the later form has an input of its own for the page's crash rate")
	}
	if !strings.Contains(r.body, `class="stream"`) || !strings.Contains(r.body, "<strong>0.1</strong>") {
		t.Error("the later experiment does not show the stream values it uses")
	}
	var got struct{ Result experiments.KeysResult }
	api := do(t, s, "GET", "/api/experiments/keys?crash_rate=0.1", nil)
	if err := json.Unmarshal([]byte(api.body), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.body, jobCountCell(got.Result.Rows[1].Duplicated)) {
		t.Errorf("keys table does not show the run at the page's crash_rate=0.1 (%d)", got.Result.Rows[1].Duplicated)
	}
	if strings.Contains(r.body, `type="hidden" name="keys.crash_rate"`) {
		t.Error("an inherited value was frozen into the first form")
	}
	// A value of its own for the page's crash rate is not taken and ignored: the later block is
	// refused, naming the key as the address has it and pointing at the first form's input, while
	// the first block runs on.
	own := do(t, s, "GET", "/blocks/3?crash_rate=0.1&keys.crash_rate=0.3", nil)
	keys := blockOf(t, own.body, "exp-keys")
	if own.status != http.StatusUnprocessableEntity ||
		!strings.Contains(keys, `<li><a href="#exp-assembly-crash_rate">keys.crash_rate</a>: this form takes crash rate from the first form on the page, so that every experiment here replays one stream: set crash_rate= there</li>`) ||
		strings.Contains(keys, `<div class="reading">`) || !strings.Contains(blockOf(t, own.body, "exp-assembly"), `<div class="reading">`) {
		t.Errorf("keys.crash_rate: status %d, keys block %.600s", own.status, keys)
	}
	// Block 5's outbox has its own crash-rate spec (per step, up to 0.5): nothing is shared.
	b5 := do(t, s, "GET", "/blocks/5?crash_rate=0.9", nil)
	if b5.status != 200 || !strings.Contains(b5.body, `name="outbox.crash_rate" value="0.02"`) {
		t.Errorf("outbox took a crash rate of another spec (status %d)", b5.status)
	}

	// Rerunning the first form redraws the experiments that use its stream, out of band.
	hx := map[string]string{"HX-Request": "true", "HX-Target": "exp-assembly"}
	frag := do(t, s, "GET", "/blocks/1?jobs=1000&crash-sweep.crash_rates=0.5", hx)
	if frag.status != 200 || !strings.Contains(frag.body, `id="exp-crash-sweep"`) || !strings.Contains(frag.body, `hx-swap-oob="outerHTML"`) {
		t.Fatalf("first-form fragment: status %d, no out-of-band crash sweep: %.300s", frag.status, frag.body)
	}
	if !strings.Contains(frag.body, "Ack before work, 1,000 jobs") {
		t.Error("the redrawn crash sweep does not use the first form's 1,000 jobs")
	}
	// ...and each block carries its own values for the next rerun of another form.
	if !strings.Contains(frag.body, `data-query="jobs=1000"`) || !strings.Contains(frag.body, `data-query="crash-sweep.crash_rates=0.5"`) {
		t.Errorf("blocks do not carry their own values in data-query: %.400s", frag.body)
	}
	// A rerun of the later form alone leaves the first alone.
	later := do(t, s, "GET", "/blocks/1?jobs=1000&crash-sweep.crash_rates=0.5", map[string]string{"HX-Request": "true", "HX-Target": "exp-crash-sweep"})
	if strings.Contains(later.body, `id="exp-assembly"`) {
		t.Error("a later form's rerun redrew the first")
	}
}

// TestStrayKeysRefused (the QA pass's item 3): a key under a page's experiment that the page does
// not read is refused in that block, naming the key: crash-sweep.jobs and crash-sweep.seed on block
// 1, window-grid's stream values on block 4, and a prefix on the first form's own value.
func TestStrayKeysRefused(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ path, block, key string }{
		{"/blocks/1?crash-sweep.jobs=100", "exp-crash-sweep", "crash-sweep.jobs"},
		{"/blocks/1?crash-sweep.seed=3", "exp-crash-sweep", "crash-sweep.seed"},
		{"/blocks/1?assembly.jobs=100", "exp-assembly", "assembly.jobs"},
		{"/blocks/4?window-grid.jobs=100&window-grid.crash_rate=0.5", "exp-window-grid", "window-grid.crash_rate"},
		{"/blocks/4?window-grid.jobs=100&window-grid.crash_rate=0.5", "exp-window-grid", "window-grid.jobs"},
	} {
		r := do(t, s, "GET", tc.path, nil)
		b := blockOf(t, r.body, tc.block)
		if r.status != http.StatusUnprocessableEntity || !strings.Contains(b, "Nothing was run.") || !strings.Contains(b, ">"+tc.key+"</") {
			t.Errorf("%s: status %d, %s does not refuse %s: %.500s", tc.path, r.status, tc.block, tc.key, b)
		}
	}
	// The form's own values under its prefix are read as before.
	if r := do(t, s, "GET", "/blocks/1?crash-sweep.crash_rates=0.5", nil); r.status != 200 {
		t.Errorf("crash-sweep.crash_rates: status %d", r.status)
	}
}

// TestBlocksShowThePlainMechanism: each block shows the dozen-line mechanism from
// experiments/mechanisms.go before the optimised function that measures it.
func TestBlocksShowThePlainMechanism(t *testing.T) {
	s := newTestServer(t, testConfig())
	for n, fn := range map[int]string{1: "AckBeforeWork", 2: "AckAfterWork", 3: "DedupAtSink", 4: "WindowedDedup", 5: "DualWrite", 6: "LeaseWithRenewal"} {
		body := do(t, s, "GET", "/blocks/"+strconv.Itoa(n), nil).body
		plain := strings.Index(body, "<code>"+fn+"</code> in <code>experiments/mechanisms.go</code>")
		fast := strings.Index(body, "The notebook measures with a faster function")
		if plain < 0 || fast < plain {
			t.Errorf("block %d does not show %s before the fast function", n, fn)
		}
	}
}

// TestQuizShowsEachQuestionsOwnMeasurement: the home page's questions carry the measurement at
// the document's values, as digits for the script and with thousands separators for the reader,
// whatever runs were made before.
func TestQuizShowsEachQuestionsOwnMeasurement(t *testing.T) {
	s := newTestServer(t, testConfig())
	if r := do(t, s, "GET", "/blocks/1?crash_rate=1", nil); r.status != 200 {
		t.Fatalf("block 1 at crash_rate=1: %d", r.status)
	}
	home := do(t, s, "GET", "/", nil).body
	for _, want := range []string{
		`data-question="q1" data-measured="398"`,
		`data-question="q2" data-measured="398"`,
		`data-question="q3" data-measured="0"`,
		`data-question="q4" data-measured="195"`,
		`data-question="q5" data-measured="2448"`,
		`<strong class="measured">2,448</strong>`,
	} {
		if !strings.Contains(home, want) {
			t.Errorf("home page lacks %s", want)
		}
	}
}

// TestBlock3ShowsDeliveriesBesideEffects: block 3's point is that redeliveries still happen while
// effects land once, so its table shows both counts (issue 8, item 21).
func TestBlock3ShowsDeliveriesBesideEffects(t *testing.T) {
	s := newTestServer(t, testConfig())
	body := do(t, s, "GET", "/blocks/3", nil).body
	for _, want := range []string{">deliveries</th>", ">effects applied</th>", ">20,398</td>", "still received 20,398 deliveries"} {
		if !strings.Contains(body, want) {
			t.Errorf("block 3 lacks %q", want)
		}
	}
}

// TestRefusedRunSaysWhy: the note under a refused form quotes each refused value's own message and
// links to its input, so a value that is not a number is never called out of bounds, and a stream
// value refused in a later block points at the first form, where it is set.
func TestRefusedRunSaysWhy(t *testing.T) {
	s := newTestServer(t, testConfig())
	problems := func(body string) []string {
		return regexp.MustCompile(`(?s)<div class="problem" role="alert">(.*?)</div>`).FindAllString(body, -1)
	}
	r := do(t, s, "GET", "/blocks/1?crash_rate=abc", nil)
	if r.status != http.StatusUnprocessableEntity {
		t.Fatalf("status %d, want 422", r.status)
	}
	ps := problems(r.body)
	if len(ps) == 0 {
		t.Fatal("no problem note")
	}
	for _, want := range []string{"One value needs fixing", `<a href="#exp-assembly-crash_rate">Crash rate</a>: &#34;abc&#34; is not a number`} {
		if !strings.Contains(ps[0], want) {
			t.Errorf("the note lacks %q:\n%s", want, ps[0])
		}
	}
	if strings.Contains(ps[0], "out of bounds") || strings.Contains(ps[0], "out of range") {
		t.Errorf("a value that is not a number is said to be out of range:\n%s", ps[0])
	}
	r = do(t, s, "GET", "/blocks/1?crash_rate=3&jobs=abc", nil)
	ps = problems(r.body)
	if len(ps) != 2 {
		t.Fatalf("%d problem notes, want one per block", len(ps))
	}
	for _, want := range []string{"2 values need fixing", "3 is out of range", "is not a number"} {
		if !strings.Contains(ps[0], want) {
			t.Errorf("the first block's note lacks %q:\n%s", want, ps[0])
		}
	}
	if !strings.Contains(ps[1], `<a href="#exp-assembly-jobs">Jobs</a>`) {
		t.Errorf("the sweep's note does not point at the first form's jobs:\n%s", ps[1])
	}
}
