package site

import (
	"effectivelyonce/internal/sitetest"
	"net/url"
	"regexp"
	"testing"
	"time"
)

var doneCount = regexp.MustCompile(`data-count="done"[^>]*>([0-9,]+)`)

// BenchmarkLabFirstProgress measures what a reader waits for after pressing Run on /lab: from the
// POST until the progress fragment the page polls shows jobs done (the goal: under
// 300 ms; the page polls every 300 ms on top of this). Each iteration cancels its run.
func BenchmarkLabFirstProgress(b *testing.B) {
	s := newTestServer(b, testConfig())
	w := &sitetest.Workers{}
	s.lab.Runner().Command = w.Command
	br := &browser{t: b, s: s, cookies: map[string]string{}}
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		r := br.send("POST", "/lab/runs", url.Values{"design": {"ack-after-work"}, "jobs": {"2000"}, "workers": {"4"},
			"crash_rate": {"0.02"}, "seed": {"13"}}, false)
		if r.status != 303 {
			b.Fatalf("Run: %d %s", r.status, r.body)
		}
		for {
			p := br.send("GET", "/lab/progress", nil, false)
			if m := doneCount.FindStringSubmatch(p.body); m != nil && m[1] != "0" {
				break
			}
			if time.Since(start) > 30*time.Second {
				b.Fatal("no progress within 30 s")
			}
			time.Sleep(5 * time.Millisecond)
		}
		total += time.Since(start)
		cur := s.lab.Runner().Current()
		s.lab.Runner().Cancel(cur.ID, cur.Data.Owner())
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-progress")
}
