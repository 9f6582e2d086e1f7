package site

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLinksOnlyFromHostsTheServerAnswersFor checks where absolute links (the join link, its QR
// code, the host link) take their host from: PUBLIC_ORIGIN when it is set; else the request's
// Host only when it names the listen address or one of the configured hosts; never a Host header
// as sent ("Host: evil.example" once gave a join link to http://evil.example/j/...).
func TestLinksOnlyFromHostsTheServerAnswersFor(t *testing.T) {
	cfg := testConfig()
	cfg.Hosts = []string{"class.example:8080", "notebook.example"}
	s := newTestServer(t, cfg)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	s.origins.Listening(ln.Addr())
	listen := ln.Addr().String()
	_, port, _ := net.SplitHostPort(listen)

	links := func(s *Server, host string) (join, hostURL string) {
		t.Helper()
		req := httptest.NewRequest("POST", "/api/rooms", strings.NewReader(`{"title":"Links"}`))
		req.Host = host
		rec := httptest.NewRecorder()
		s.echo.ServeHTTP(rec, req)
		var c created
		if err := json.Unmarshal(rec.Body.Bytes(), &c); err != nil || rec.Code != http.StatusCreated {
			t.Fatalf("create with Host %q: %d %s", host, rec.Code, rec.Body)
		}
		return c.JoinURL, c.HostURL
	}
	// A Host the server does not answer for gets links to the first host HOSTS names, the name
	// readers use; without HOSTS, to the listen address.
	const first = "http://class.example:8080"
	for host, want := range map[string]string{
		listen:                          "http://" + listen,
		"localhost:" + port:             "http://localhost:" + port,
		"class.example:8080":            first,
		"CLASS.Example:8080":            first,
		"notebook.example":              "http://notebook.example",
		"notebook.example:80":           "http://notebook.example",
		"notebook.example.":             "http://notebook.example",
		"evil.example":                  first,
		"class.example:9999":            first,
		"127.0.0.1:1":                   first,
		"evil.example/j/x?":             first,
		"notebook.example.evil.example": first,
	} {
		join, hostURL := links(s, host)
		if !strings.HasPrefix(join, want+"/j/") || !strings.HasPrefix(hostURL, want+"/rooms/") {
			t.Errorf("Host %q: join %s, host link %s; want both on %s", host, join, hostURL, want)
		}
	}
	plain := newTestServer(t, testConfig())
	plain.origins.Listening(ln.Addr())
	for _, h := range []string{"evil.example", "localhost:1"} {
		if join, _ := links(plain, h); !strings.HasPrefix(join, "http://"+listen+"/j/") {
			t.Errorf("without HOSTS, Host %q: join %s, want it on the listen address %s", h, join, listen)
		}
	}

	// The host's room page draws the join link and its QR code from the same origin.
	host := newBrowser(t, s)
	roomPath, _ := startRoom(t, host, "QR")
	page := host.send("GET", roomPath, nil, false, "Host", "evil.example")
	if strings.Contains(page.body, "evil.example") {
		t.Errorf("the host's page names the Host header's evil.example in its join box or QR code")
	}

	pub := testConfig()
	pub.PublicOrigin = "https://eo.example.org"
	ps := newTestServer(t, pub)
	for _, h := range []string{"evil.example", "eo.example.org"} {
		if join, _ := links(ps, h); !strings.HasPrefix(join, "https://eo.example.org/j/") {
			t.Errorf("with PUBLIC_ORIGIN, Host %q: join %s", h, join)
		}
	}
}

// TestHostsConfig checks HOSTS: a comma-separated list of hosts (with a port when not the default),
// and a refusal naming the setting for anything that is not a host.
func TestHostsConfig(t *testing.T) {
	env := func(k string) string {
		if k == "HOSTS" {
			return "Class.Example:8080, notebook.example"
		}
		return ""
	}
	c, err := LoadConfig(nil, env, io.Discard)
	if err != nil || strings.Join(c.Hosts, " ") != "class.example:8080 notebook.example" {
		t.Errorf("HOSTS: %q %v", c.Hosts, err)
	}
	for _, bad := range []string{"https://eo.example.org", "eo.example.org/notebook", "a b", "user@eo.example.org", ":8080"} {
		if _, err := LoadConfig([]string{"-hosts", bad}, func(string) string { return "" }, io.Discard); err == nil || !strings.Contains(err.Error(), "hosts") {
			t.Errorf("-hosts %q: err %v, want one naming hosts", bad, err)
		}
	}
}
