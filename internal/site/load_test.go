package site

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	loadRun      = flag.Bool("load", false, "run the loopback load test (make load)")
	loadClients  = flag.Int("load-clients", 64, "concurrent clients in the load test")
	loadDuration = flag.Duration("load-duration", 20*time.Second, "how long the load test runs")
)

// TestLoad drives the real server over loopback with a study group's worth of readers: page views,
// reruns with random seeds, heavy reruns and static assets, all at once. It only reports figures;
// speed is never asserted in tests, but correctness under load is: no 5xx other than the deliberate
// 503 for heavy reruns, and no page view refused.
func TestLoad(t *testing.T) {
	if !*loadRun {
		t.Skip("the load test runs with -load (make load)")
	}
	cfg := testConfig()
	cfg.MaxRuns = maxRunsDefault()
	cfg.QueueWait = 2 * time.Second
	cfg.RatePerSec, cfg.RateBurst = 1e6, 1<<20 // every client shares 127.0.0.1 here
	s := newTestServer(t, cfg)
	ts := httptest.NewServer(s.echo)
	defer ts.Close()

	home := get(t, ts.URL+"/blocks/4")
	assets := regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`).FindAllStringSubmatch(home, -1)
	if len(assets) == 0 {
		t.Fatal("no assets on the page")
	}
	pagesList := pagePaths()

	// sample is one request's outcome, kept whole so the report can group it by kind and code.
	type sample struct {
		kind   string
		status int
		d      time.Duration
	}
	var (
		mu      sync.Mutex
		samples []sample
		peakRSS atomic.Int64
		stop    = make(chan struct{})
		wg      sync.WaitGroup
	)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
				if v := rssKB(); v > peakRSS.Load() {
					peakRSS.Store(v)
				}
			}
		}
	}()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: *loadClients}}
	deadline := time.Now().Add(*loadDuration)
	for i := range *loadClients {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(id), 7))
			for time.Now().Before(deadline) {
				var kind, path string
				switch x := rng.IntN(100); {
				case x < 50:
					kind, path = "page", pagesList[rng.IntN(len(pagesList))]
				case x < 75:
					kind, path = "rerun", fmt.Sprintf("/blocks/4?seed=%d", rng.IntN(1_000_000))
				case x < 80:
					kind, path = "heavy", fmt.Sprintf("/api/experiments/window?jobs=3000000&seed=%d", rng.IntN(1_000_000))
				default:
					kind, path = "static", assets[rng.IntN(len(assets))][1]
				}
				start := time.Now()
				req, _ := http.NewRequest("GET", ts.URL+path, nil)
				req.Header.Set("Accept-Encoding", "gzip")
				resp, err := client.Do(req)
				status := 0
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = resp.StatusCode
				}
				mu.Lock()
				samples = append(samples, sample{kind, status, time.Since(start)})
				mu.Unlock()
			}
		}(i)
	}
	wg.Wait()
	close(stop)

	byKind := map[string][]time.Duration{}
	codes := map[string]map[int]int{}
	for _, s := range samples {
		byKind[s.kind] = append(byKind[s.kind], s.d)
		if codes[s.kind] == nil {
			codes[s.kind] = map[int]int{}
		}
		codes[s.kind][s.status]++
	}
	pct := func(ds []time.Duration, p float64) time.Duration {
		if len(ds) == 0 {
			return 0
		}
		slices.Sort(ds)
		return ds[min(len(ds)-1, int(float64(len(ds))*p))]
	}
	var report strings.Builder
	fmt.Fprintf(&report, "load: %d clients, %s, %d requests, %.0f req/s, peak RSS %d MB\n",
		*loadClients, *loadDuration, len(samples), float64(len(samples))/loadDuration.Seconds(), peakRSS.Load()/1024)
	for _, k := range []string{"page", "rerun", "heavy", "static"} {
		fmt.Fprintf(&report, "  %-6s n=%-6d p50=%-8s p99=%-8s codes=%v\n", k, len(byKind[k]),
			pct(byKind[k], 0.50).Round(time.Microsecond*100), pct(byKind[k], 0.99).Round(time.Microsecond*100), codes[k])
	}
	t.Log("\n" + report.String())
	fmt.Fprint(os.Stderr, report.String())

	for kind, cs := range codes {
		for code, n := range cs {
			if code == 503 && kind == "heavy" {
				continue
			}
			if code != 200 {
				t.Errorf("%d %s requests answered %d", n, kind, code)
			}
		}
	}
}

// get fetches url and returns its body: the load test reads the asset links of a real page
// instead of a hand-kept list of files.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// rssKB reads the process's resident set size from /proc (Linux); 0 elsewhere.
func rssKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb
		}
	}
	return 0
}
