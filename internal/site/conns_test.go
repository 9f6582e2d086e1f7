package site

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"effectivelyonce/internal/web"
)

// TestConnLimiterEvictsIdleFirst drives the limiter's bookkeeping directly: at a client's bound the

// oldest idle connection goes, then the oldest that has sent nothing, a busy one never; when all

// are busy the new one is refused; the bound in all works the same across clients.

// TestOneClientCannotTakeEveryConnection: over loopback, one address (127.0.0.2) opens far more

// connections than its bound and holds them; it keeps at most its bound, the rest are refused with

// a 503, and another address (127.0.0.3) is still served. Then many addresses fill the bound in

// all, and a new address is still served: idle connections make room.

func TestOneClientCannotTakeEveryConnection(t *testing.T) {
	cfg := testConfig()
	cfg.MaxConns, cfg.MaxConnsPerClient = 60, 20
	s := newTestServer(t, cfg)
	addr, conns := startServer(t, s)

	var held []net.Conn
	t.Cleanup(func() {
		for _, c := range held {
			c.Close()
		}
	})
	for range 100 {
		c, err := dialFrom(addr, "127.0.0.2")
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	// The server accepts them one by one; wait (generously) until it has seen all 100.
	closed := func() int {
		m := do(t, s, "GET", "/metrics", nil).body
		return metricValue(m, `site_connections_limited_total{outcome="evicted"}`) + metricValue(m, `site_connections_limited_total{outcome="refused_client"}`)
	}
	key := netip.MustParseAddr("127.0.0.2")
	for deadline := time.Now().Add(30 * time.Second); closed()+conns.HeldBy(key) < 100 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := conns.HeldBy(key); got > 20 {
		t.Errorf("one address holds %d connections, bound 20", got)
	}
	if closed() < 80 {
		t.Errorf("%d of 100 connections from one address were closed, want 80", closed())
	}
	// The survivors are the newest: each evicted one is closed on the client's side too.
	eof := 0
	for _, c := range held[:80] {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			eof++
		}
	}
	if eof != 80 {
		t.Errorf("%d of the 80 oldest connections were closed, want 80", eof)
	}
	if code := getFrom(t, addr, "127.0.0.3", "/healthz"); code != 200 {
		t.Errorf("another address got %d while one held its bound", code)
	}

	// Fill the bound in all from many addresses; each connection has made one request and is idle.
	for i := range 60 {
		src := fmt.Sprintf("127.0.1.%d", 1+i/15)
		c, err := dialFrom(addr, src)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	if n := conns.OpenConns(); n > 60 {
		t.Errorf("%d connections open, bound 60", n)
	}
	if code := getFrom(t, addr, "127.0.0.4", "/healthz"); code != 200 {
		t.Errorf("a new address got %d at the bound in all", code)
	}
}

// TestGoErrorsCarrySecurityHeaders: the answers net/http writes by itself (a request it cannot

// parse, headers over the limit) and "OPTIONS *" carry the same security headers as every page.

func TestGoErrorsCarrySecurityHeaders(t *testing.T) {
	s := newTestServer(t, testConfig())
	addr, _ := startServer(t, s)
	for name, raw := range map[string]string{
		"400":       "GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
		"431":       "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 64<<10) + "\r\n\r\n",
		"OPTIONS *": "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, err := dialFrom(addr, "127.0.0.1")
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(30 * time.Second))
			go io.WriteString(c, raw)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if name != "OPTIONS *" && fmt.Sprint(resp.StatusCode) != name {
				t.Errorf("status %d", resp.StatusCode)
			}
			if resp.Header.Get("Content-Security-Policy") != web.CSP || resp.Header.Get("X-Content-Type-Options") != "nosniff" || resp.Header.Get("X-Frame-Options") != "DENY" {
				t.Errorf("%d without the security headers: %v", resp.StatusCode, resp.Header)
			}
		})
	}
}

// startServer serves s over loopback the way serve does, within its connection bounds, until the

// test ends.

func startServer(t *testing.T, s *Server) (string, *web.ConnLimiter) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs, conns := s.httpServer(ln)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); hs.Serve(conns) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if hs.Shutdown(ctx) != nil {
			hs.Close()
		}
		wg.Wait()
	})
	return ln.Addr().String(), conns
}

// getFrom makes one GET from the source address src and returns the status (0 on failure).

func getFrom(t *testing.T, addr, src, path string) int {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
			return d.DialContext(ctx, network, a)
		},
		DisableKeepAlives: true,
	}}
	resp, err := client.Get("http://" + addr + path)
	if err != nil {
		t.Logf("GET %s from %s: %v", path, src, err)
		return 0
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
