package roomsweb

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestUnknownRoundIsNotAWrongCode: a round number that is no round's is a 404 naming "seq", and
// it costs nothing from the join allowance, which is for guessing join codes.
func TestUnknownRoundIsNotAWrongCode(t *testing.T) {
	s := newHarness(t, limits{joinsPerMinute: 2})
	code, hostKey := s.createRoom(t, "Rounds")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", hostKey, `{"question":"q1"}`), http.StatusCreated, nil)
	for _, c := range []struct{ method, target, key, body string }{
		{"PUT", path + "/rounds/9/guess", ada, `{"value":5}`},
		{"PUT", path + "/rounds/0/guess", ada, `{"value":5}`},
		{"POST", path + "/rounds/9/lock", hostKey, ""},
		{"POST", path + "/rounds/9/reveal", hostKey, ""},
		{"PUT", path + "/rounds/9/guess", ada, `{"value":5}`},
	} {
		r := s.call(c.method, c.target, c.key, c.body)
		var got apiErrors
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != http.StatusNotFound ||
			len(got.Errors) != 1 || got.Errors[0].Field != "seq" {
			t.Errorf("%s %s: %d %s; want 404 naming the field seq", c.method, c.target, r.status, r.body)
		}
	}
	s.join(t, code, "Bob") // the allowance of 2 is whole: one join so far
}
