package site

// The API's spread=N through the whole middleware stack: the JSON object and the CSV's second
// table, the refusals that name the spread field, and the rate limiter charged for N runs.

import (
	"encoding/json"
	"io"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/internal/cli"
	"effectivelyonce/internal/sitetest"
	"effectivelyonce/present"
)

// TestAPISpread: spread=5 on the window experiment's defaults runs seeds 13..17 (and delay seeds
// 17..21), and the document's own run (escaped 195 at window 1000) sits inside its summary.
func TestAPISpread(t *testing.T) {
	s := newTestServer(t, testConfig())
	r := do(t, s, "GET", "/api/experiments/window?spread=5", nil)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var body struct {
		Spread *experiments.SpreadResult `json:"spread"`
	}
	if err := json.Unmarshal([]byte(r.body), &body); err != nil || body.Spread == nil {
		t.Fatalf("no spread in %.300s (%v)", r.body, err)
	}
	sp := body.Spread
	if sp.N != 5 || len(sp.Seeds) != 5 {
		t.Fatalf("spread n %d with %d seed sets, want 5 and 5", sp.N, len(sp.Seeds))
	}
	for k, seeds := range sp.Seeds {
		if seeds["seed"] != int64(13+k) || seeds["delay_seed"] != int64(17+k) {
			t.Errorf("run %d used seeds %v, want seed %d and delay_seed %d", k, seeds, 13+k, 17+k)
		}
	}
	var found bool
	for _, c := range sp.Counts {
		if c.Point != "1000" || c.Name != "escaped" {
			continue
		}
		found = true
		if c.Value != 195 {
			t.Errorf("window 1000 escaped %v on the document's seeds, want 195", c.Value)
		}
		if !(c.Min <= c.P5 && c.P5 <= c.Median && c.Median <= c.P95 && c.P95 <= c.Max) {
			t.Errorf("summary out of order: min %v p5 %v median %v p95 %v max %v", c.Min, c.P5, c.Median, c.P95, c.Max)
		}
		if c.Value < c.Min || c.Value > c.Max {
			t.Errorf("this run's %v lies outside min %v and max %v", c.Value, c.Min, c.Max)
		}
	}
	if !found {
		t.Fatalf("no count escaped at point 1000 among %d counts", len(sp.Counts))
	}

	csv := do(t, s, "GET", "/api/experiments/window?format=csv&spread=5", nil)
	if csv.status != 200 {
		t.Fatalf("csv status %d: %s", csv.status, csv.body)
	}
	tables := strings.Split(csv.body, "\r\n\r\n")
	if len(tables) != 2 {
		t.Fatalf("csv has %d tables, want the result's and the spread's:\n%s", len(tables), csv.body)
	}
	header, _, _ := strings.Cut(tables[1], "\r\n")
	if header != "point,count,value,median,p5,p95,min,max,percentile" {
		t.Errorf("spread table header %q", header)
	}
	if !strings.Contains(tables[1], "\r\n1000,escaped,195,") {
		t.Errorf("spread table lacks the window 1000 escaped row with this run's 195:\n%s", tables[1])
	}
}

// TestAPISpreadRefused: every spread the API will not run is a 400 whose first error is on the
// spread field and says why.
func TestAPISpreadRefused(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct{ target, says string }{
		{"/api/experiments/window?spread=1", "out of range"},
		{"/api/experiments/window?spread=201", "out of range"},
		{"/api/experiments/window?spread=abc", "not a whole number"},
		{"/api/experiments/window?spread=", "the field is empty; it must be"},
		{"/api/experiments/window?spread=5&spread=6", "once"},
		{"/api/experiments/crash-sweep?spread=5", "draws nothing at random"},
		{"/api/experiments/window?jobs=10000000&spread=200", "at most"},
	} {
		t.Run(tc.target[len("/api/experiments/"):], func(t *testing.T) {
			r := do(t, s, "GET", tc.target, nil)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %.300s", r.status, r.body)
			}
			var body present.APIErrors
			if err := json.Unmarshal([]byte(r.body), &body); err != nil || len(body.Errors) == 0 {
				t.Fatalf("body %s", r.body)
			}
			if e := body.Errors[0]; e.Field != experiments.SpreadField || !strings.Contains(e.Message, tc.says) {
				t.Errorf("error %+v, want one on %q saying %q", e, experiments.SpreadField, tc.says)
			}
		})
	}
}

// TestAPISpreadCharged: a spread costs the client N runs of its allowance (at most half the burst),
// not one, and a summary already computed costs nothing.
func TestAPISpreadCharged(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 0.001, 10
	s := newTestServer(t, cfg)
	if r := do(t, s, "GET", "/api/experiments/window?seed=5&spread=8", nil); r.status != 200 {
		t.Fatalf("spread=8 with 10 runs allowed: status %d: %.300s", r.status, r.body)
	}
	if r := do(t, s, "GET", "/api/experiments/window?seed=5&spread=8", nil); r.status != 200 {
		t.Fatalf("the same spread again, from the cache: status %d: %.300s", r.status, r.body)
	}
	r := do(t, s, "GET", "/api/experiments/window?spread=5", nil)
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("spread=5 (5 runs, half the burst) with 4 runs left: status %d (Retry-After %q), want 429: %.300s", r.status, r.header.Get("Retry-After"), r.body)
	}
	if r := do(t, s, "GET", "/api/experiments/window?seed=99", nil); r.status != 200 {
		t.Errorf("a single run with 4 runs left: status %d", r.status)
	}
}

// frozenClock stops the rate limiter's clock, so that no token comes back unless the test moves
// the clock on; it returns the function that does.
func frozenClock(s *Server) func(time.Duration) {
	var at atomic.Int64
	at.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	s.limiter.SetClock(func() time.Time { return time.Unix(0, at.Load()) })
	return func(d time.Duration) { at.Add(int64(d)) }
}

// defaultRates is the rate limit the site serves with when nobody sets one.
func defaultRates(t *testing.T) (float64, int) {
	def, err := LoadConfig(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	return def.RatePerSec, def.RateBurst
}

// TestSpreadFitsAFreshClient: with the default burst, a client that has run nothing yet can ask
// for the largest spread on parameters nobody ran, on the API and on a page; neither is refused
// for want of one token. (Charged N runs after the run's own token, a spread of the burst's size
// could never run.)
func TestSpreadFitsAFreshClient(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = defaultRates(t)
	s := newTestServer(t, cfg)
	t.Cleanup(s.notebook.Stop)
	frozenClock(s)
	max := strconv.Itoa(experiments.MaxSpread)
	for _, n := range []string{"2", "60", max} {
		r := doFrom(s, "/api/experiments/window?jobs=500&seed=4242&spread="+n, "198.51.100."+n+":4000")
		if r.status != 200 {
			t.Errorf("API spread=%s on new parameters from a fresh client: status %d: %.300s", n, r.status, r.body)
		}
	}
	r := doFrom(s, "/blocks/4?jobs=500&seed=4343&spread="+max, "198.51.100.77:4000")
	if r.status != 200 || !strings.Contains(r.body, `class="spread-meter"`) || strings.Contains(r.body, "Too many runs") {
		t.Errorf("page spread=%s on new parameters from a fresh client: status %d, no running meter:\n%.2000s", max, r.status, r.body)
	}
}

// TestSpreadRetryAfterIsTrue: a spread refused for want of tokens says how long to wait, and after
// exactly that long the same request goes through (the run's token, taken before the spread was
// refused, was given back, so the client is not told a wait that falls one token short forever).
func TestSpreadRetryAfterIsTrue(t *testing.T) {
	cfg := testConfig()
	cfg.RatePerSec, cfg.RateBurst = 1, 60
	s := newTestServer(t, cfg)
	advance := frozenClock(s)
	if r := do(t, s, "GET", "/api/experiments/window?jobs=500&seed=1&spread=200", nil); r.status != 200 {
		t.Fatalf("first spread: status %d: %.300s", r.status, r.body)
	}
	r := do(t, s, "GET", "/api/experiments/window?jobs=500&seed=2&spread=200", nil)
	if r.status != 429 {
		t.Fatalf("second spread with 29 tokens left: status %d, want 429", r.status)
	}
	wait, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || wait < 1 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	advance(time.Duration(wait) * time.Second)
	if r := do(t, s, "GET", "/api/experiments/window?jobs=500&seed=2&spread=200", nil); r.status != 200 {
		t.Errorf("the same spread after the %d s Retry-After said: status %d: %.300s", wait, r.status, r.body)
	}
}

// doFrom is a GET from a client address of the test's choosing, which the rate limiter counts
// against.
func doFrom(s *Server, target, addr string) response {
	req := httptest.NewRequest("GET", target, nil)
	req.RemoteAddr = addr
	rec := httptest.NewRecorder()
	s.echo.ServeHTTP(rec, req)
	return response{rec.Code, rec.Header(), rec.Body.String()}
}

// TestSpreadProvenance: an answer that carries a spread is fingerprinted with its N, on the JSON,
// the CSV (which also says "# spread=N"), the page's footer of the banded block and the command
// line, so a pasted spread is never taken for the run alone or for a spread of another size.
func TestSpreadProvenance(t *testing.T) {
	s := newTestServer(t, testConfig())
	t.Cleanup(s.notebook.Stop)
	e, _ := experiments.Lookup("window")
	p, err := e.Parse(map[string][]string{"windows": {"100,1000"}, "jobs": {"2000"}})
	if err != nil {
		t.Fatal(err)
	}
	hash := e.SpreadParamsHash(p, 5)
	if hash == e.ParamsHash(p) || hash == e.SpreadParamsHash(p, 6) || len(hash) != 12 {
		t.Fatalf("spread hash %q is the run's (%s) or the 6-seed spread's (%s)", hash, e.ParamsHash(p), e.SpreadParamsHash(p, 6))
	}
	var body struct {
		Provenance present.Provenance `json:"provenance"`
	}
	js := do(t, s, "GET", "/api/experiments/window?jobs=2000&windows=100,1000&spread=5", nil)
	if err := json.Unmarshal([]byte(js.body), &body); err != nil {
		t.Fatal(err)
	}
	if body.Provenance != (present.Provenance{Version: "devel", ParamsHash: hash, Spread: 5}) {
		t.Errorf("JSON present.Provenance %+v, want devel, %s and spread 5", body.Provenance, hash)
	}
	csv := do(t, s, "GET", "/api/experiments/window?jobs=2000&windows=100,1000&spread=5&format=csv", nil).body
	if !strings.Contains(csv, "# version=devel\r\n# spread=5\r\n# params_hash="+hash+"\r\n") || strings.Contains(csv, e.ParamsHash(p)) {
		t.Errorf("CSV lacks the spread's present.Provenance (spread=5, %s) or still has the run's:\n%.600s", hash, csv)
	}
	page := do(t, s, "GET", "/blocks/4?jobs=2000&windows=100,1000&spread=5", nil) // the summary is cached now
	if !strings.Contains(page.body, "parameters <code>"+hash+"</code>") {
		t.Errorf("the banded block's footer lacks the spread's fingerprint %s", hash)
	}
	var out strings.Builder
	if err := cli.Run(t.Context(), []string{"window", "-jobs", "2000", "-windows", "100,1000", "-" + experiments.SpreadField, "5"}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "parameters "+hash+" over 5 seeds") {
		t.Errorf("site run -spread 5 prints no %s over 5 seeds:\n%s", hash, out.String())
	}
}

// TestSpreadPageIDsUnique: a page with a spread still running (its progress box beside the spread
// field) and a page with the band drawn have no two elements with one id; the box and the field
// once shared "exp-window-spread", and so did the chart of every count.
func TestSpreadPageIDsUnique(t *testing.T) {
	cfg := testConfig()
	cfg.spreadPace = time.Second // still running when the page is read
	s := newTestServer(t, cfg)
	t.Cleanup(s.notebook.Stop)
	unique := func(name, body string) {
		seen := map[string]bool{}
		for _, m := range regexp.MustCompile(`\sid="([^"]*)"`).FindAllStringSubmatch(body, -1) {
			if seen[m[1]] {
				t.Errorf("%s page: two elements have id %q", name, m[1])
			}
			seen[m[1]] = true
		}
	}
	running := do(t, s, "GET", "/blocks/4?jobs=500&seed=31&spread=20", nil)
	if !strings.Contains(running.body, `class="spread-meter"`) {
		t.Fatalf("no running spread on the page (status %d)", running.status)
	}
	unique("running", running.body)
	if r := do(t, s, "GET", "/api/experiments/assembly?spread=5", nil); r.status != 200 { // runs it and keeps it
		t.Fatalf("spread of the assembly: status %d: %s", r.status, r.body)
	}
	banded := do(t, s, "GET", "/assembly?spread=5", nil)
	if !strings.Contains(banded.body, "5th–95th percentile") {
		t.Fatalf("no band chart on /assembly?spread=5 (status %d)", banded.status)
	}
	unique("banded", banded.body)
}

func mustLookup(t *testing.T, name string) *experiments.Experiment {
	e, ok := experiments.Lookup(name)
	if !ok {
		t.Fatalf("no experiment %q", name)
	}
	return e
}

func mustDefaults(t *testing.T, name string) any { return mustLookup(t, name).Defaults() }

// TestVerifyOffersNoSpread: the verifier's block has no spread field, and a spread typed into its
// URL changes nothing (no progress box, no band, the run's own fingerprint), while the API still
// answers the claims' counts over N seeds.
func TestVerifyOffersNoSpread(t *testing.T) {
	s := newTestServer(t, testConfig())
	t.Cleanup(s.notebook.Stop)
	plain := do(t, s, "GET", "/verify", nil)
	if plain.status != 200 || strings.Contains(plain.body, `name="spread"`) || strings.Contains(plain.body, "Spread over N seeds") {
		t.Errorf("/verify (status %d) offers a spread field", plain.status)
	}
	api := do(t, s, "GET", "/api/experiments/claims?spread=3&jobs=500", nil)
	if api.status != 200 || !strings.Contains(api.body, `"spread":{`) {
		t.Fatalf("API claims spread=3: status %d: %.300s", api.status, api.body)
	}
	e := mustLookup(t, "claims")
	asked := do(t, s, "GET", "/verify?spread=3&jobs=500", nil) // its summary is cached now
	p, err := e.Parse(map[string][]string{"jobs": {"500"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(asked.body, "spread-progress") || strings.Contains(asked.body, "5th–95th percentile") ||
		!strings.Contains(asked.body, "parameters <code>"+e.ParamsHash(p)+"</code>") {
		t.Errorf("/verify?spread=3 (status %d) shows a spread, or not the run's own fingerprint", asked.status)
	}
}

// TestPageSpreadShowsThePagesRows (the QA pass's item 4): block 1 shows the assembly up to
// at-most-once, and its spread over seeds draws that design alone, in its bands and its table,
// not the designs of the blocks after it; the assembly's own page spreads every design.
func TestPageSpreadShowsThePagesRows(t *testing.T) {
	s := newTestServer(t, testConfig())
	spread := func(path string) string {
		var block string
		if !sitetest.WaitFor(sitetest.Patience, func() bool {
			block = blockOf(t, do(t, s, "GET", path, nil).body, "exp-assembly")
			return strings.Contains(block, "Spread over 3 seeds: this run against the others")
		}) {
			t.Fatalf("%s: the spread never finished: %.500s", path, block)
		}
		return block
	}
	one := spread("/blocks/1?jobs=500&spread=3")
	for _, later := range []string{"at-least-once", "dedup-transactional", "dedup-non-transactional"} {
		if strings.Contains(one, later) {
			t.Errorf("block 1's spread shows %s, a design the block has not introduced", later)
		}
	}
	if !strings.Contains(one, `-band-1"`) || !strings.Contains(one, "at-most-once") {
		t.Errorf("block 1's spread lost its own design: %.500s", one)
	}
	if all := spread("/assembly?jobs=500&spread=3"); !strings.Contains(all, "dedup-transactional") {
		t.Error("the assembly's spread lacks its last design")
	}
}
