package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/internal/sitetest"
	"effectivelyonce/internal/web"
)

var attackRun = flag.Bool("attack", false, "run the loopback attack figures of issues 9 and 18, each asserting its bound (go test ./cmd/site -run '^TestAttack' -v -args -attack)")

// child is the real server in a process of its own (the real main, through TestHelperMain), so
// that its memory and file descriptors are its own and can be read from /proc.
type child struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	base string
}

func startChild(t *testing.T, args string, env ...string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$")
	cmd.Env = append(append(os.Environ(), "SITE_HELPER_MAIN="+args, "DATA_DIR="+t.TempDir()), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, out: &syncBuffer{}}
	go io.Copy(c.out, stdout)
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c.base = waitServing(t, c.out, nil)
	return c
}

// status reads a field (VmRSS, VmHWM) of the child's /proc status, in MB.
func (c *child) status(field string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
			return kb >> 10
		}
	}
	return 0
}

// metric reads one series of the child's /metrics.
func (c *child) metric(series string) int {
	resp, err := http.Get(c.base + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return sitetest.MetricValue(string(b), series)
}

// timedGet makes one GET from src on a fresh connection and returns the status and the time.
func timedGet(base, src, path string) (int, time.Duration) {
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true,
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
			return d.DialContext(ctx, network, a)
		}}}
	start := time.Now()
	resp, err := client.Get(base + path)
	if err != nil {
		return 0, time.Since(start)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// TestAttackConnections: one address (127.0.0.2) redials as fast as it can for 8 s, sending half a
// request on each connection and holding up to 19,000; another (127.0.0.4) holds idle keep-alives.
// Reports how many the server holds from them and how long requests from 127.0.0.3 take meanwhile.
func TestAttackConnections(t *testing.T) {
	if !*attackRun {
		t.Skip("-attack")
	}
	c := startChild(t, "serve -addr 127.0.0.1:0")
	addr := strings.TrimPrefix(c.base, "http://")
	stop := make(chan struct{})
	var dialed, dialErrs atomic.Int64
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []net.Conn
			defer func() {
				for _, c := range mine {
					c.Close()
				}
			}()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cn, err := sitetest.DialFrom(addr, "127.0.0.2")
				if err != nil {
					dialErrs.Add(1)
					time.Sleep(time.Millisecond)
					continue
				}
				dialed.Add(1)
				io.WriteString(cn, "GET / HTTP/1.1\r\nHost: x\r\n") // and never the blank line
				mine = append(mine, cn)
				if len(mine) > 19_000/8 {
					mine[0].Close()
					mine = mine[1:]
				}
				_ = w
			}
		}()
	}
	// Idle keep-alives from a second address: a full request each, then silence.
	var idle []net.Conn
	for range 2000 {
		cn, err := sitetest.DialFrom(addr, "127.0.0.4")
		if err != nil {
			break
		}
		io.WriteString(cn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		idle = append(idle, cn)
	}
	time.Sleep(4 * time.Second)
	var lat []time.Duration
	codes := map[int]int{}
	for i := range 20 {
		path := "/healthz"
		if i%2 == 1 {
			path = "/blocks/4"
		}
		code, d := timedGet(c.base, "127.0.0.3", path)
		codes[code]++
		lat = append(lat, d)
		time.Sleep(200 * time.Millisecond)
	}
	open := c.metric("site_open_connections")
	evicted := c.metric(`site_connections_limited_total{outcome="evicted"}`)
	refused := c.metric(`site_connections_limited_total{outcome="refused_client"}`)
	close(stop)
	wg.Wait()
	for _, cn := range idle {
		cn.Close()
	}
	slices.Sort(lat)
	report := fmt.Sprintf("connections: 127.0.0.2 dialed %d in about 8 s (%d dial errors), 127.0.0.4 opened %d idle keep-alives; "+
		"the server held %d in all (bound per address 256), evicted %d, refused %d; RSS %d MB (peak %d MB);\n"+
		"  meanwhile 127.0.0.3: %d requests, codes %v, median %s, max %s",
		dialed.Load(), dialErrs.Load(), len(idle), open, evicted, refused, c.status("VmRSS"), c.status("VmHWM"),
		len(lat), codes, lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond))
	t.Log(report)
	fmt.Fprintln(os.Stderr, report)
	if codes[200] != len(lat) {
		t.Errorf("another address was not served: %v", codes)
	}
}

// TestAttackAddressFlood: requests that each run something new, from a new spoofed address each
// (X-Forwarded-For, trusted from loopback), for 40 s; reports the limiter's size and the server's
// heap and RSS as it goes. A second part drives the limiter alone with 3 million addresses.
func TestAttackAddressFlood(t *testing.T) {
	if !*attackRun {
		t.Skip("-attack")
	}
	c := startChild(t, "serve -addr 127.0.0.1:0 -client-ip x-forwarded-for")
	var sent atomic.Int64
	deadline := time.Now().Add(40 * time.Second)
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			for time.Now().Before(deadline) {
				n := sent.Add(1)
				req, _ := http.NewRequest("GET", fmt.Sprintf("%s/api/experiments/scale?replay_days=%d.%d", c.base, n%36000, n), nil)
				req.Header.Set("X-Forwarded-For", fmt.Sprintf("%d.%d.%d.%d", 1+rng.IntN(220), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
				resp, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	var lines []string
	var maxClients, maxRSS int64
	for time.Now().Before(deadline) {
		time.Sleep(5 * time.Second)
		maxClients, maxRSS = max(maxClients, int64(c.metric("site_rate_limiter_clients"))), max(maxRSS, c.status("VmRSS"))
		lines = append(lines, fmt.Sprintf("  after %6d addresses: limiter %6d clients, result cache %3d MB (estimated), heap in use %4d MB, RSS %4d MB",
			sent.Load(), c.metric("site_rate_limiter_clients"), c.metric("site_result_cache_bytes")>>20, c.metric("go_memstats_heap_inuse_bytes")>>20, c.status("VmRSS")))
	}
	wg.Wait()
	report := "address flood through HTTP (one new address and one new run a request):\n" + strings.Join(lines, "\n")

	l := web.NewRateLimiter(20, 60, 100_000)
	var ms0, ms1 runtimeMem
	ms0.read()
	start := time.Now()
	for i := range 3_000_000 {
		l.Allow(addrOf(uint32(i) * 2654435761))
	}
	ms1.read()
	report += fmt.Sprintf("\nlimiter alone: 3,000,000 addresses in %s, %d tracked, heap %d MB before, %d MB after",
		time.Since(start).Round(time.Millisecond), l.Size(), ms0.heap>>20, ms1.heap>>20)
	t.Log(report)
	fmt.Fprintln(os.Stderr, report)
	// The bounds: the limiter never tracks more than RATE_CLIENTS, so memory stays flat (the
	// result cache at its 64 MB and the limiter's 100,000 entries fit well under 512 MB).
	if maxClients > 100_000 || l.Size() > 100_000 || maxRSS > 512 {
		t.Errorf("limiter %d clients through HTTP and %d alone (want at most 100,000), RSS up to %d MB (want under 512)", maxClients, l.Size(), maxRSS)
	}
}

// TestAttackMemory: MAX_RUNS=4 and eight of the largest window runs at once (10 million jobs, all
// crashing, a window and a delay of 10 million): the peak RSS, first with the default memory
// limit, then under GOMEMLIMIT=1GiB.
func TestAttackMemory(t *testing.T) {
	if !*attackRun {
		t.Skip("-attack")
	}
	for _, env := range []string{"", "GOMEMLIMIT=1GiB"} {
		c := startChild(t, "serve -addr 127.0.0.1:0 -max-runs 4 -queue-wait 60s -run-timeout 60s", env)
		start := time.Now()
		codes := map[int]int{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				code, _ := timedGet(c.base, "127.0.0.1", fmt.Sprintf("/api/experiments/window?jobs=10000000&crash_rate=1&windows=10000000&max_delay=10000000&seed=%d", 500+i))
				mu.Lock()
				codes[code]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		peak := c.status("VmHWM")
		report := fmt.Sprintf("memory: MAX_RUNS=4, 8 largest window runs, %s: codes %v in %s, peak RSS %d MB; log: %s",
			cmpOr(env, "default limit"), codes, time.Since(start).Round(time.Millisecond), peak, sitetest.GrepLine(c.out.String(), "time="))
		t.Log(report)
		fmt.Fprintln(os.Stderr, report)
		// Every run is answered (200, or 503 when it cannot fit), and under a limit of 1 GiB the
		// process stays under it: the runs wait for each other instead.
		if codes[200]+codes[503] != 8 || env != "" && peak > 1024 {
			t.Errorf("%s: codes %v (want only 200 and 503), peak RSS %d MB", cmpOr(env, "default limit"), codes, peak)
		}
	}
}

// TestAttackShutdown: QUEUE_WAIT=30s, one heavy slot, 64 heavy requests in flight, then SIGTERM:
// when each request was answered, how, and when and how the process ended.
func TestAttackShutdown(t *testing.T) {
	if !*attackRun {
		t.Skip("-attack")
	}
	c := startChild(t, "serve -addr 127.0.0.1:0 -max-runs 1 -queue-wait 30s")
	type result struct {
		status int
		at     time.Time
	}
	results := make(chan result, 64)
	for i := range 64 {
		go func() {
			// four addresses: 64 runs from one would pass its burst of 60
			code, _ := timedGet(c.base, fmt.Sprintf("127.0.0.%d", 10+i%4), slowRun(20_000+i))
			results <- result{status: code, at: time.Now()}
		}()
	}
	waitMisses(t, c.base, 64)
	signalled := time.Now()
	c.cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- c.cmd.Wait() }()
	codes := map[int]int{}
	var order []int // the statuses in the order the answers came
	var last, lastRefused time.Duration
	for range 64 {
		r := <-results
		codes[r.status]++
		order = append(order, r.status)
		last = max(last, r.at.Sub(signalled))
		if r.status == 503 {
			lastRefused = max(lastRefused, r.at.Sub(signalled))
		}
	}
	err := <-exited
	report := fmt.Sprintf("shutdown: 64 in flight (1 running, 63 queued, QUEUE_WAIT=30s): codes %v (0 = cut off), last 503 %s and last answer %s after SIGTERM, "+
		"process exited %s after it with %v", codes, lastRefused.Round(time.Millisecond), last.Round(time.Millisecond), time.Since(signalled).Round(time.Millisecond), err)
	t.Log(report)
	fmt.Fprintln(os.Stderr, report)
	// Nothing is cut off: every queued run gets its 503 at once, before the running one is
	// answered (not after waiting out QUEUE_WAIT behind it), the running one is answered, and the
	// process exits cleanly, which it does only within the grace period (Serve's error otherwise).
	if codes[0] != 0 || codes[503] < 63 || codes[200]+codes[503] != 64 || err != nil {
		t.Errorf("shutdown: codes %v (want 63 refused and the running one answered, none cut off), exit %v", codes, err)
	}
	if codes[200] == 1 && order[len(order)-1] != 200 {
		t.Errorf("shutdown: the running run was answered before every queued one was refused: %v", order)
	}
}

// runtimeMem is the heap in use, read after a collection.
type runtimeMem struct{ heap uint64 }

func (m *runtimeMem) read() {
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	m.heap = ms.HeapInuse
}

// addrOf spreads a counter over the IPv4 space.
func addrOf(x uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(x >> 24), byte(x >> 16), byte(x >> 8), byte(x)})
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
