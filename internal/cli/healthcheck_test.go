package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck asks a server for base path + /healthz: an address on every interface is asked
// on the loopback, and an answer other than 200 is a failure that says the status.
func TestHealthcheck(t *testing.T) {
	status := http.StatusOK
	var asked string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.Path
		w.WriteHeader(status)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().String()[strings.LastIndex(srv.Listener.Addr().String(), ":"):]
	for _, addr := range []string{srv.Listener.Addr().String(), "0.0.0.0" + port, port} {
		if err := Healthcheck(t.Context(), addr, "/sub"); err != nil || asked != "/sub/healthz" {
			t.Errorf("healthcheck %s: %v, asked %q", addr, err, asked)
		}
	}
	status = http.StatusServiceUnavailable
	if err := Healthcheck(t.Context(), port, ""); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a 503: %v, want a failure naming it", err)
	}
}
