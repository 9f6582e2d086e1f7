package site

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// histAligned is a script that answers, for every histogram on the page, how far (in px) the axis
// values under it stand from the ends of the axis they label: the first value's left edge from the
// axis' start, the last one's right edge from its end, the axis mapped from the drawing's own
// coordinates (pages/room_chart.go: 14 to 586 of 600) through the SVG's screen transform.
const histAligned = `[...document.querySelectorAll("figure.histogram")].filter(f => f.offsetParent !== null).map(f => {
	const svg = f.querySelector("svg"), m = svg.getScreenCTM(), ends = f.querySelectorAll(".hist-ends span");
	const start = m.e + 14 * m.a, end = m.e + 586 * m.a;
	const a = ends[0].getBoundingClientRect(), b = ends[ends.length - 1].getBoundingClientRect();
	return Math.max(Math.abs(a.left - start), Math.abs(b.right - end));
})`

// TestBrowserRoomHistogramAndProjector: a revealed round's histogram has its axis values under the
// axis' ends, in the bar and on the room page, at 390 px light and dark and at 1,280 (QA report,
// item 10: at 390 the bar's drawing was letterboxed inside a wider box whose edges held the
// values); and the projector uses a 1,920 px screen (larger type for the code, the counts and the
// histograms, a wide column) without overflowing at 1,280 (item 13).
func TestBrowserRoomHistogramAndProjector(t *testing.T) {
	b := startBrowserSuite(t)
	host, roomPath, code := hostRoomTab(t, b, "Histogram room")

	ada := openRoomTab(t, b)
	ada.open("/j/" + code)
	ada.retype("#join-name", "Ada")
	ada.do(chromedp.Click(chromedp.CSS(`main form button[type="submit"]`)))
	within(ada, "Ada's room page", `!!document.querySelector(".you strong")`)
	var bob struct {
		Key string `json:"member_key"`
	}
	resp, err := http.Post(b.base+"/api/rooms/"+code+"/members", "application/json", strings.NewReader(`{"name":"Bob"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.NewDecoder(resp.Body).Decode(&bob); err != nil || bob.Key == "" {
		t.Fatalf("Bob's join: %v %q", err, bob.Key)
	}
	resp.Body.Close()

	// The round goes through the room's own forms, posted from each person's tab (their cookies).
	post := func(tb *browserTab, path, form string) {
		t.Helper()
		st := browserEval[int](tb, `fetch(`+jsString(path)+`, {method: "POST", headers: {"HX-Request": "true", "Content-Type": "application/x-www-form-urlencoded"}, body: `+jsString(form)+`}).then(r => r.status)`,
			chromedp.EvalAwaitPromise)
		if st != http.StatusNoContent {
			t.Fatalf("POST %s %s: %d", path, form, st)
		}
	}
	post(host, roomPath+"/rounds", "question=custom&text=How+many+escape%3F&min=0&max=2000")
	post(ada, roomPath+"/rounds/1/guess", "value=450")
	req, _ := http.NewRequest("PUT", b.base+"/api/rooms/"+code+"/rounds/1/guess", strings.NewReader(`{"value":1200}`))
	req.Header.Set("Authorization", "Bearer "+bob.Key)
	req.Header.Set("Content-Type", "application/json")
	if r, err := http.DefaultClient.Do(req); err != nil || r.StatusCode != http.StatusNoContent {
		t.Fatalf("Bob's guess: %v %v", err, r)
	}
	post(host, roomPath+"/rounds/1/reveal", "measured=195")

	check := func(tb *browserTab, where string) {
		t.Helper()
		offs := browserEval[[]float64](tb, histAligned)
		if len(offs) == 0 {
			t.Errorf("%s: no histogram shown", where)
		}
		for _, off := range offs {
			if off > 3 {
				t.Errorf("%s: an axis value stands %.0f px from the end of the axis it labels", where, off)
			}
		}
	}
	for _, view := range []struct {
		w, h   int64
		mobile bool
		scheme string
	}{{390, 844, true, "light"}, {390, 844, true, "dark"}, {1280, 900, false, "light"}} {
		ada.emulate(view.w, view.h, view.mobile, view.scheme)
		name := func(page string) string {
			return "roomfix-" + page + "-" + strconv.FormatInt(view.w, 10) + "-" + view.scheme
		}
		ada.open("/blocks/4")
		within(ada, "the bar's histogram", `!!document.querySelector(".roombar figure.histogram")`)
		check(ada, "the bar at "+name("bar"))
		browserEval[chromedp.Void](ada, `window.scrollTo(0, 0)`)
		screenShot(t, ada, name("bar"))
		ada.open(roomPath)
		within(ada, "the room page's histogram", `!!document.querySelector("article.room figure.histogram")`)
		check(ada, "the room page at "+name("room"))
		browserEval[chromedp.Void](ada, `document.querySelector("article.room figure.histogram").scrollIntoView({block: "center"})`)
		screenShot(t, ada, name("room"))
	}

	// The projector: at 1,920 a wide column and large type; at 1,280 nothing sideways.
	host.emulate(1920, 1080, false, "light")
	host.open(roomPath + "/projector")
	within(host, "the projector", `!!document.querySelector(".projector figure.histogram")`)
	check(host, "the projector at 1920")
	px := func(sel string) float64 {
		return browserEval[float64](host, `parseFloat(getComputedStyle(document.querySelector(`+jsString(sel)+`)).fontSize)`)
	}
	if w := browserEval[float64](host, `document.querySelector("main").getBoundingClientRect().width`); w < 1500 {
		t.Errorf("the projector at 1,920 px uses a column of %.0f px", w)
	}
	for sel, least := range map[string]float64{".join-code": 64, ".projector-join .help": 24, ".question": 40, ".hist-ends": 22, ".result-facts": 26} {
		if got := px(".projector " + sel); got < least {
			t.Errorf("the projector at 1,920 px: %s is %.0f px, want at least %.0f", sel, got, least)
		}
	}
	if got := browserEval[float64](host, `document.querySelector(".projector .hist-count").getBoundingClientRect().height`); got < 18 {
		t.Errorf("the projector at 1,920 px: a bar's count is %.0f px tall", got)
	}
	shot(t, host, "roomfix-projector-1920")
	host.emulate(1280, 800, false, "light")
	host.open(roomPath + "/projector")
	within(host, "the projector at 1,280", `!!document.querySelector(".projector figure.histogram")`)
	check(host, "the projector at 1280")
	for _, wide := range browserEval[[]string](host, host.script("sideways-overflow.js")) {
		t.Errorf("the projector at 1,280 px overflows sideways: %s", wide)
	}
	if got := px(".projector .join-code"); got > 60 {
		t.Errorf("the projector at 1,280 px grew its code to %.0f px: the big screen's sizes leak to a laptop", got)
	}
	shot(t, host, "roomfix-projector-1280")
	for who, tb := range map[string]*browserTab{"host": host, "Ada": ada} {
		if p := tb.takeProblems(); len(p) > 0 {
			t.Errorf("%s's tab reported: %v", who, p)
		}
	}
}

// screenShot writes what tb's viewport shows as name.png: the part of a long page a check is about.
func screenShot(t *testing.T, tb *browserTab, name string) {
	t.Helper()
	png, err := chromedp.Run(tb.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shotDir(t), name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
