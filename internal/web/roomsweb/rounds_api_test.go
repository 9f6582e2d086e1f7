package roomsweb

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a rooms clock a test moves by hand, so that a countdown runs out without waiting.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// state reads the room through the API as the holder of key.
func (s *harness) state(t *testing.T, code, key string) RoomJSON {
	t.Helper()
	var v RoomJSON
	must(t, s.call("GET", "/api/rooms/"+code, key, ""), http.StatusOK, &v)
	return v
}

// TestTwoVoteRoundAPI runs a peer-instruction round through the API: the first vote's spread is
// the host's alone, the second vote shows members their first answer, and the reveal answers
// both votes, how many moved closer to the truth and how far off each confidence level was.
func TestTwoVoteRoundAPI(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Peer instruction")
	ada, bob, cy := s.join(t, code, "Ada"), s.join(t, code, "Bob"), s.join(t, code, "Cy")
	path := "/api/rooms/" + code
	var opened struct{ Seq int }
	must(t, s.call("POST", path+"/rounds", host, `{"text":"How many escape?","min":0,"max":1000,"votes":2,"seconds":120}`), http.StatusCreated, &opened)
	round := path + "/rounds/1"
	must(t, s.call("PUT", round+"/guess", ada, `{"value":10,"confidence":"low"}`), http.StatusNoContent, nil)
	must(t, s.call("PUT", round+"/guess", bob, `{"value":50,"confidence":"high"}`), http.StatusNoContent, nil)
	must(t, s.call("PUT", round+"/guess", cy, `{"value":100}`), http.StatusNoContent, nil)

	hv := s.state(t, code, host)
	rd := hv.Rounds[0]
	if rd.Votes != 2 || rd.Vote != 1 || rd.Seconds != 120 || rd.Deadline == "" || rd.LeftSeconds == nil || *rd.LeftSeconds <= 0 {
		t.Errorf("host's round: %+v", rd)
	}
	if f := rd.First; f == nil || len(f.Guesses) != 3 || f.Median != 50 || f.Min != 10 || f.Max != 100 || f.Q1 != 30 || f.Q3 != 75 {
		t.Errorf("the host sees the first vote's spread before the reveal, min, quartiles and max too: %+v", rd.First)
	}
	if hv.Unanswered == nil || len(*hv.Unanswered) != 0 {
		t.Errorf("host: unanswered %v, want an empty list once everyone answered", hv.Unanswered)
	}
	mv := s.state(t, code, ada)
	if mv.Unanswered != nil || mv.Rounds[0].Unanswered != nil || mv.Rounds[0].First != nil || mv.Rounds[0].YourConfidence != "low" {
		t.Errorf("a member sees who has not answered, or the first spread: %+v", mv)
	}

	var sv TimerJSON
	must(t, s.call("POST", round+"/second-vote", host, ""), http.StatusOK, &sv)
	if sv.Vote != 2 || sv.State != "open" {
		t.Errorf("second vote: %+v", sv)
	}
	if r := s.call("POST", round+"/second-vote", ada, ""); r.status != http.StatusForbidden {
		t.Errorf("a member started the second vote: %d %s", r.status, r.body)
	}
	mv = s.state(t, code, ada)
	if g := mv.Rounds[0].YourFirstGuess; g == nil || *g != 10 || mv.Rounds[0].YourGuess != nil {
		t.Errorf("in the second vote a member sees their first answer, and no second yet: %+v", mv.Rounds[0])
	}
	must(t, s.call("PUT", round+"/guess", ada, `{"value":40,"confidence":"medium"}`), http.StatusNoContent, nil)
	must(t, s.call("PUT", round+"/guess", bob, `{"value":48,"confidence":"high"}`), http.StatusNoContent, nil)
	if hv := s.state(t, code, host); hv.Unanswered == nil || !slices.Equal(*hv.Unanswered, []string{"Cy"}) {
		t.Errorf("host in the second vote: unanswered %v, want [Cy]", hv.Unanswered)
	}

	var res ResultJSON
	must(t, s.call("POST", round+"/reveal", host, `{"measured":45}`), http.StatusOK, &res)
	if len(res.Guesses) != 2 || res.Median != 44 {
		t.Errorf("the reveal's guesses are the second vote's: %+v", res)
	}
	if res.First == nil || len(res.First.Guesses) != 3 || res.First.Median != 50 {
		t.Errorf("first: %+v", res.First)
	}
	if res.MovedCloser != 2 || res.AnsweredBoth != 2 {
		t.Errorf("moved_closer %d of answered_both %d, want 2 of 2 (Ada 10 to 40, Bob 50 to 48, with 45 measured; Cy did not vote again)",
			res.MovedCloser, res.AnsweredBoth)
	}
	want := []CalibrationJSON{{"medium", 1, 5}, {"high", 1, 3}}
	if !slices.Equal(res.Calibration, want) {
		t.Errorf("calibration %+v, want %+v", res.Calibration, want)
	}
	if want := []CalibrationJSON{{"low", 1, 35}, {"high", 1, 5}}; !slices.Equal(res.First.Calibration, want) {
		t.Errorf("first vote's calibration %+v, want %+v", res.First.Calibration, want)
	}
	mv = s.state(t, code, bob)
	if r := mv.Rounds[0].Result; r == nil || r.YourDistance == nil || *r.YourDistance != 3 || r.YourFirstDistance == nil || *r.YourFirstDistance != 5 {
		t.Errorf("Bob's own distances: %+v", r)
	}
	// Bob's own record across rounds is relative (3 off a measured 45), and named so: a round's
	// mean_distance is in its unit.
	if c := mv.YourCalibration; len(c) != 1 || c[0].Confidence != "high" || c[0].Guesses != 1 || math.Abs(c[0].MeanRelativeDistance-3.0/45) > 1e-12 {
		t.Errorf("Bob's own calibration: %+v", mv.YourCalibration)
	}
	raw := s.call("GET", path, bob, "").body
	if !strings.Contains(raw, `"your_calibration":[{"confidence":"high","guesses":1,"mean_relative_distance":0.0666`) {
		t.Errorf("your_calibration as the API writes it: %s", raw)
	}
}

// TestSecondVoteOnlyOnTheNewestRound: once the host has moved on to another round, a second vote
// on an earlier one is refused with 409 naming seq, and the newer round keeps taking answers.
func TestSecondVoteOnlyOnTheNewestRound(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Moved on")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1","votes":2}`), http.StatusCreated, nil)
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q2"}`), http.StatusCreated, nil)
	r := s.call("POST", path+"/rounds/1/second-vote", host, "")
	var got apiErrors
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != http.StatusConflict || len(got.Errors) != 1 || got.Errors[0].Field != "seq" {
		t.Errorf("a second vote on round 1 after round 2 opened: %d %s; want 409 naming seq", r.status, r.body)
	}
	must(t, s.call("PUT", path+"/rounds/2/guess", ada, `{"value":3}`), http.StatusNoContent, nil)
	if v := s.state(t, code, host); v.Rounds[0].State != "locked" || v.Rounds[1].State != "open" {
		t.Errorf("after the refusal: round 1 %s, round 2 %s; want locked, open", v.Rounds[0].State, v.Rounds[1].State)
	}
}

// TestExportWordsThePredictions: the export carries a prediction round's question in the words of
// the predictions page, as the room showed it, not its id.
func TestExportWordsThePredictions(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Record")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q3"}`), http.StatusCreated, nil)
	var ex struct {
		Rounds []struct {
			Text     string `json:"text"`
			Question struct {
				Prediction string `json:"prediction"`
			} `json:"question"`
		} `json:"rounds"`
	}
	must(t, s.call("GET", path+"/export", host, ""), http.StatusOK, &ex)
	want := s.h.askedTitle("q3")
	if len(ex.Rounds) != 1 || ex.Rounds[0].Text != want || want == "q3" || !strings.HasSuffix(want, "?") || ex.Rounds[0].Question.Prediction != "q3" {
		t.Errorf("the export's round: %+v; want its text %q, the predictions page's words", ex.Rounds, want)
	}
}

// TestGuessAfterTimeUp: at zero the server locks the round whatever the client says; a paused
// countdown stands still and an extended one runs longer.
func TestGuessAfterTimeUp(t *testing.T) {
	clk := newClock()
	s := newHarness(t, limits{now: clk.Now})
	code, host := s.createRoom(t, "Countdown")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1","seconds":30}`), http.StatusCreated, nil)
	round := path + "/rounds/1"
	clk.advance(10 * time.Second)
	must(t, s.call("PUT", round+"/guess", ada, `{"value":3}`), http.StatusNoContent, nil)

	var tv TimerJSON
	must(t, s.call("POST", round+"/timer", host, `{"paused":true}`), http.StatusOK, &tv)
	if !tv.Paused || tv.LeftSeconds == nil || *tv.LeftSeconds != 20 || tv.Deadline != "" {
		t.Errorf("paused: %+v", tv)
	}
	clk.advance(5 * time.Minute)
	must(t, s.call("PUT", round+"/guess", ada, `{"value":4}`), http.StatusNoContent, nil)
	tv = TimerJSON{}
	must(t, s.call("POST", round+"/timer", host, `{"paused":false,"extend":30}`), http.StatusOK, &tv)
	if tv.Paused || tv.LeftSeconds == nil || *tv.LeftSeconds != 50 {
		t.Errorf("resumed with 30 s more: %+v", tv)
	}
	clk.advance(49 * time.Second)
	must(t, s.call("PUT", round+"/guess", ada, `{"value":5}`), http.StatusNoContent, nil)
	clk.advance(time.Second)
	for _, c := range []struct{ method, target, key, body string }{
		{"PUT", round + "/guess", ada, `{"value":6}`},
		{"POST", round + "/timer", host, `{"extend":30}`},
	} {
		if r := s.call(c.method, c.target, c.key, c.body); r.status != http.StatusConflict {
			t.Errorf("%s %s after the time ran out: %d %s, want 409", c.method, c.target, r.status, r.body)
		}
	}
	v := s.state(t, code, ada)
	if rd := v.Rounds[0]; rd.State != "locked" || !rd.TimeUp || rd.YourGuess == nil || *rd.YourGuess != 5 {
		t.Errorf("after zero: %+v", rd)
	}
}

// TestRoundFieldErrors: a wrong votes, seconds, confidence or timer change is refused with the
// field it concerns.
func TestRoundFieldErrors(t *testing.T) {
	s := newHarness(t, limits{})
	code, host := s.createRoom(t, "Mistakes")
	ada := s.join(t, code, "Ada")
	path := "/api/rooms/" + code
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1"}`), http.StatusCreated, nil)
	for _, c := range []struct {
		method, target, key, body string
		status                    int
		field                     string
		says                      string // what the message must say, when the case holds it to words
	}{
		{"POST", path + "/rounds", host, `{"question":"q1","votes":3}`, 400, "votes", ""},
		{"POST", path + "/rounds", host, `{"question":"q1","votes":"two"}`, 400, "votes", ""},
		{"POST", path + "/rounds", host, `{"question":"q1","seconds":14}`, 400, "seconds", ""},
		{"POST", path + "/rounds", host, `{"question":"q1","seconds":601}`, 400, "seconds", ""},
		{"PUT", path + "/rounds/1/guess", ada, `{"value":1,"confidence":"sure"}`, 400, "confidence", ""},
		{"POST", path + "/rounds/1/timer", host, `{}`, 400, "paused", ""},
		{"POST", path + "/rounds/1/timer", host, `{"paused":true}`, 409, "round", ""},
		{"POST", path + "/rounds/1/second-vote", host, ``, 409, "round", ""},
		// The QA's second pass: a null or missing value named no field, and a timer's extension
		// out of range named "seconds", a field the timer does not take.
		{"PUT", path + "/rounds/1/guess", ada, `{"value":null}`, 400, "value", "number"},
		{"PUT", path + "/rounds/1/guess", ada, `{"confidence":"low"}`, 400, "value", "number"},
		{"PUT", path + "/rounds/1/guess", ada, `{"value":"12"}`, 400, "value", "without quotes"},
		{"POST", path + "/rounds/1/timer", host, `{"extend":700}`, 400, "extend", "1 to 600"},
		{"POST", path + "/rounds/1/timer", host, `{"extend":-5}`, 400, "extend", "1 to 600"},
		{"POST", path + "/rounds/1/timer", host, `{"extend":0}`, 400, "extend", "1 to 600"},
		{"POST", path + "/rounds/1/timer", host, `{"extend":"30"}`, 400, "extend", "without quotes"},
		{"POST", path + "/rounds/1/timer", host, `{"paused":"yes"}`, 400, "paused", "true or false"},
		{"POST", path + "/rounds/1/timer", host, `{"extend":null}`, 400, "paused", "extend"},
		{"POST", path + "/rounds/1/reveal", host, `{"measured":"42"}`, 400, "measured", "without quotes"},
	} {
		r := s.call(c.method, c.target, c.key, c.body)
		var got apiErrors
		if err := json.Unmarshal([]byte(r.body), &got); err != nil || r.status != c.status || len(got.Errors) != 1 || got.Errors[0].Field != c.field ||
			!strings.Contains(got.Errors[0].Message, c.says) {
			t.Errorf("%s %s %s: %d %s; want %d naming %s, saying %q", c.method, c.target, c.body, r.status, r.body, c.status, c.field, c.says)
		}
	}
	// A countdown extended past 600 s left names the extension too.
	must(t, s.call("POST", path+"/rounds", host, `{"question":"q1","seconds":600}`), http.StatusCreated, nil)
	r := s.call("POST", path+"/rounds/2/timer", host, `{"extend":30}`)
	var got apiErrors
	if json.Unmarshal([]byte(r.body), &got) != nil || r.status != 400 || len(got.Errors) != 1 || got.Errors[0].Field != "extend" || !strings.Contains(got.Errors[0].Message, "600") {
		t.Errorf("extending a full countdown: %d %s; want 400 naming extend", r.status, r.body)
	}
}
