package main

import (
	"bytes"
	"context"
	"effectivelyonce/internal/sitetest"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slowRun is a heavy run that takes a second or more on the 2-core machine and holds almost no
// memory (outbox keeps counts); seed makes each one a cache miss of its own.
func slowRun(seed int) string {
	return fmt.Sprintf("/api/experiments/outbox?events=10000000&seed=%d", seed)
}

// TestShutdownAnswersQueuedRuns serves with one heavy slot and a long queue wait, starts one slow
// run and queues three more, then ends the context: every queued run is answered at once with a
// 503 and Retry-After (before the running one finishes), the running one completes with 200, no
// request is cut off, and serve returns nil (exit 0).
func TestShutdownAnswersQueuedRuns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"site", "serve", "-addr", "127.0.0.1:0", "-max-runs", "1", "-queue-wait", "60s", "-run-timeout", "60s", "-data-dir", t.TempDir()},
			func(string) string { return "" }, out, io.Discard)
	}()
	base := waitServing(t, out, done)

	// result is one request's outcome, in the order the answers came.
	type result struct {
		seed, status int
		retryAfter   string
		err          error
	}
	results := make(chan result, 4)
	client := &http.Client{Timeout: 120 * time.Second}
	for seed := range 4 {
		go func() {
			resp, err := client.Get(base + slowRun(7000+seed))
			r := result{seed: seed, err: err}
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				r.status, r.retryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
			}
			results <- r
		}()
		if seed == 0 {
			waitMisses(t, base, 1) // the first takes the slot; the others queue behind it
		}
	}
	waitMisses(t, base, 4)
	cancel()

	var order []result
	for range 4 {
		order = append(order, <-results)
	}
	ok, refused := 0, 0
	for i, r := range order {
		switch {
		case r.err != nil:
			t.Errorf("request %d was cut off: %v", r.seed, r.err)
		case r.status == 200:
			ok++
			if i != 3 {
				t.Errorf("the running request answered before a queued one was refused: %+v", order)
			}
		case r.status == 503 && r.retryAfter != "":
			refused++
		default:
			t.Errorf("request %d: %d, Retry-After %q", r.seed, r.status, r.retryAfter)
		}
	}
	if ok != 1 || refused != 3 {
		t.Errorf("%d answered 200 and %d refused with 503, want 1 and 3", ok, refused)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve returned %v, want nil (exit 0)", err)
		}
	case <-time.After(120 * time.Second):
		t.Fatal("serve did not return")
	}
	if !strings.Contains(out.String(), "stopped") {
		t.Errorf("no 'stopped' in the log:\n%s", out.String())
	}
}

// TestSignals runs the real main in a child process: one SIGTERM lets the running request finish
// and exits 0; a second SIGTERM ends the process at once, cutting the running request off.
func TestSignals(t *testing.T) {
	for _, twice := range []bool{false, true} {
		t.Run(fmt.Sprint("twice=", twice), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestHelperMain$")
			cmd.Env = append(os.Environ(), "SITE_HELPER_MAIN=serve -addr 127.0.0.1:0 -max-runs 1", "DATA_DIR="+t.TempDir())
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			out := &syncBuffer{}
			go io.Copy(out, stdout)
			base := waitServing(t, out, nil)

			answered := make(chan error, 1)
			go func() {
				resp, err := (&http.Client{Timeout: 120 * time.Second}).Get(base + slowRun(9000))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				answered <- err
			}()
			waitMisses(t, base, 1)
			cmd.Process.Signal(syscall.SIGTERM)
			if twice {
				// The second signal is the default action's once shutdown has begun; send it until
				// it lands (a few tries at most), which a graceful exit would take a second for.
				waitLog(t, out, "shutting down")
				for range 20 {
					time.Sleep(50 * time.Millisecond)
					if cmd.Process.Signal(syscall.SIGTERM) != nil {
						break // gone
					}
				}
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			reqErr := <-answered
			if !twice {
				if err != nil || reqErr != nil {
					t.Errorf("one SIGTERM: exit %v, running request %v; want exit 0 and 200", err, reqErr)
				}
				return
			}
			if !errors.As(err, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
				t.Errorf("two SIGTERMs: exit %v, want killed by the signal", err)
			}
			if reqErr == nil {
				t.Error("two SIGTERMs: the running request still finished; the process waited")
			}
		})
	}
}

// TestHelperMain is the child process of TestSignals: it runs the real main with the arguments
// in SITE_HELPER_MAIN, and is skipped otherwise.
func TestHelperMain(t *testing.T) {
	args := os.Getenv("SITE_HELPER_MAIN")
	if args == "" {
		t.Skip("the child process of TestSignals")
	}
	os.Args = append([]string{"site"}, strings.Fields(args)...)
	main()
	os.Exit(0)
}

// waitServing waits for serve's "serving" log line and returns the base URL.
func waitServing(t *testing.T, out *syncBuffer, done chan error) string {
	t.Helper()
	re := regexp.MustCompile(`addr=(http://127\.0\.0\.1:\d+)/`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended before serving: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("not serving:\n%s", out.String())
	return ""
}

// waitLog waits for text in the log.
func waitLog(t *testing.T, out *syncBuffer, text string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if strings.Contains(out.String(), text) {
			return
		}
	}
	t.Fatalf("no %q in the log:\n%s", text, out.String())
}

// waitMisses waits until the server has counted n result-cache misses: n runs have asked for a
// slot.
func waitMisses(t *testing.T, base string, n int) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if sitetest.MetricValue(string(b), `site_result_cache_total{outcome="miss"}`) >= n {
			return
		}
	}
	t.Fatalf("the server never saw %d runs", n)
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
