package site

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// TestProvenanceEverywhere checks that the JSON, the CSV and the page of one run carry the same
// version and parameters' fingerprint, and that the fingerprint follows the parameters, not the
// way the URL spells them.
func TestProvenanceEverywhere(t *testing.T) {
	srv := newTestServer(t, testConfig())
	e, _ := experiments.Lookup("window")
	p, err := e.Parse(map[string][]string{"windows": {"100,1000"}})
	if err != nil {
		t.Fatal(err)
	}
	hash := e.ParamsHash(p)
	if hash == e.ParamsHash(e.Defaults()) || len(hash) != 12 {
		t.Fatalf("hash %q: want 12 hex digits that differ from the defaults'", hash)
	}
	var body struct {
		Provenance present.Provenance `json:"provenance"`
	}
	js := do(t, srv, http.MethodGet, "/api/experiments/window?windows=100,1000", nil).body
	if err := json.Unmarshal([]byte(js), &body); err != nil {
		t.Fatal(err)
	}
	if body.Provenance != (present.Provenance{Version: "devel", ParamsHash: hash}) {
		t.Errorf("JSON present.Provenance %+v, want devel and %s", body.Provenance, hash)
	}
	csv := do(t, srv, http.MethodGet, "/api/experiments/window?windows=0100,1000&format=csv", nil).body
	if !strings.Contains(csv, "# version=devel\r\n# params_hash="+hash+"\r\n") {
		t.Errorf("CSV lacks the present.Provenance of %s:\n%s", hash, csv)
	}
	page := do(t, srv, http.MethodGet, "/blocks/4?windows=100,1000", nil)
	if page.status != http.StatusOK || !strings.Contains(page.body, "parameters <code>"+hash+"</code>") {
		t.Errorf("page (%d) does not show the parameters' fingerprint %s", page.status, hash)
	}
}
