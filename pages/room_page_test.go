package pages

import (
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/rooms"
)

// roomPageHTML draws the whole room page of v.
func roomPageHTML(t *testing.T, v RoomView) string {
	t.Helper()
	var b strings.Builder
	if err := RoomPage(v).Render(t.Context(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	idAttr     = regexp.MustCompile(` id="([^"]+)"`)
	regionName = regexp.MustCompile(`role="region" aria-label="([^"]+)"|<section[^>]* aria-labelledby="([^"]+)"`)
	headingOf  = regexp.MustCompile(`<h2 id="([^"]+)"[^>]*>([^<]+)<`)
)

// TestRoomPageIDsAndRegions: the room page, as the host (with the lab run's form and box) and as a
// member, has each id once (the lab's form and the lab's live part were both "room-lab") and no
// two regions of the same name (the earlier rounds' section and the table in it were both
// "Earlier rounds"), which axe reports as landmark-unique.
func TestRoomPageIDsAndRegions(t *testing.T) {
	earlier := rooms.RoundView{Seq: 1, State: rooms.RoundRevealed, Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many?", Max: 100},
		Result: &rooms.Result{Measured: 45, Median: 44, Guesses: []rooms.GuessView{{Value: 40}, {Value: 48}}}}
	now := rooms.RoundView{Seq: 2, State: rooms.RoundOpen, Question: rooms.Question{Kind: rooms.KindCustom, Text: "How many now?", Max: 100}}
	run := &LabStatus{ID: "run-1", Running: true, ProgressURL: "/lab/progress", CancelURL: "/lab/cancel", Count: 1, Index: 1, Jobs: 300}
	for _, role := range []rooms.Role{rooms.AsHost, rooms.AsMember} {
		who := map[rooms.Role]string{rooms.AsHost: "the host", rooms.AsMember: "a member"}[role]
		v := RoomView{URL: "/rooms/r", Actions: "/rooms/r", Stream: "/rooms/r/events",
			Room: rooms.View{RoomID: "r", Role: role, Title: "Tuesday", Presenting: "/blocks/4", Rounds: []rooms.RoundView{earlier, now}}}
		v.LabRun = run
		if role == rooms.AsHost {
			v.LabForm = &LabView{}
		} else {
			v.Room.You = &rooms.RosterEntry{Name: "Ada"}
		}
		page := roomPageHTML(t, v)
		seen := map[string]int{}
		for _, m := range idAttr.FindAllStringSubmatch(page, -1) {
			seen[m[1]]++
		}
		for id, n := range seen {
			if n > 1 {
				t.Errorf("%s: id %q is on %d elements of the room page", who, id, n)
			}
		}
		if role == rooms.AsHost && seen["room-lab-start"] != 1 {
			t.Errorf("the host's room page has no form to start a lab run (id room-lab-start): %v", seen)
		}
		headings := map[string]string{}
		for _, m := range headingOf.FindAllStringSubmatch(page, -1) {
			headings[m[1]] = strings.TrimSpace(m[2])
		}
		names := map[string]int{}
		for _, m := range regionName.FindAllStringSubmatch(page, -1) {
			name := m[1]
			if m[2] != "" {
				name = headings[m[2]]
			}
			names[name]++
		}
		if names["Earlier rounds"] != 1 {
			t.Errorf("%s: regions by name %v; want one called Earlier rounds", who, names)
		}
		for name, n := range names {
			if n > 1 {
				t.Errorf("%s: %d regions are called %q", who, n, name)
			}
		}
	}
}

// TestFollowLineSaysWhatMoves: on the room page, which never moves, a member reads that their
// notebook pages follow the host and this one stays (not "yours goes there"); the bar on notebook
// pages keeps its lines, the one for a member away from the host's page among them.
func TestFollowLineSaysWhatMoves(t *testing.T) {
	v := RoomView{URL: "/rooms/r", Actions: "/rooms/r", Stream: "/rooms/r/events",
		Room: rooms.View{RoomID: "r", Role: rooms.AsMember, Title: "Tuesday", Presenting: "/blocks/4", You: &rooms.RosterEntry{Name: "Ada"}}}
	page := roomPageHTML(t, v)
	for _, w := range []string{"Your notebook pages follow the host; this page stays here.", "data-follow-stop", "data-follow-start"} {
		if !strings.Contains(page, w) {
			t.Errorf("the member's room page lacks %q", w)
		}
	}
	if strings.Contains(page, "data-follow-away") || strings.Contains(page, "yours goes there") {
		t.Error("the member's room page says a new page of the host's moves it")
	}
	v.Bar = true
	bar := barHTML(t, v)
	for _, w := range []string{"Your page follows the host.", "data-follow-away", "when the host presents a new one, yours goes there", "You are exploring on your own."} {
		if !strings.Contains(bar, w) {
			t.Errorf("the member's bar lacks %q", w)
		}
	}
	if strings.Contains(bar, "this page stays here") {
		t.Error("the bar says the room page's line")
	}
}
