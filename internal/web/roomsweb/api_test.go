package roomsweb

import (
	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
	"encoding/json"
	"errors"
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

// TestRefusal checks the statuses the rooms' refusals become, and that a field error's own
// message and field reach the answer, while a fault of the server's is left as it is.
func TestRefusal(t *testing.T) {
	for _, c := range []struct {
		err    error
		status int
		field  string
	}{
		{rooms.ErrUnavailable, http.StatusServiceUnavailable, ""},
		{&rooms.FieldError{Field: "code", Message: "no room has it", Err: rooms.ErrNotFound}, http.StatusNotFound, "code"},
		{rooms.ErrTaken, http.StatusConflict, ""},
		{rooms.ErrKicked, http.StatusForbidden, ""},
		{rooms.ErrRoomClosed, http.StatusGone, ""},
		{&rooms.LimitError{Field: "pins", Max: 3}, http.StatusConflict, "pins"},
	} {
		var he *web.Error
		if !web.As(Refusal(c.err), &he) || he.Status != c.status || ErrorField(he.Err) != c.field {
			t.Errorf("%v: %+v, want status %d on field %q", c.err, he, c.status, c.field)
		}
		var fe *rooms.FieldError
		if errors.As(c.err, &fe) && he.Msg != fe.Message {
			t.Errorf("%v: message %q, want the field error's own", c.err, he.Msg)
		}
	}
	fault := errors.New("disk on fire")
	if got := Refusal(fault); got != fault {
		t.Errorf("a fault of the server's became %v", got)
	}
}
