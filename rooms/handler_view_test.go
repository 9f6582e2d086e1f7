package rooms

import (
	"testing"
	"time"
)

// TestHandlerRoundCountsWhomTheHostWaitsFor: a handler round's "N of M answered" counts, as a
// number round's does, only the members the host waits for. Ada submitted and then became the
// host through a host link: her submission stays on the board, but she is neither in M nor in N,
// which once read "2 of 1".
func TestHandlerRoundCountsWhomTheHostWaitsFor(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	ms := []Member{{ID: "ada", Name: "Ada", Hosting: true}, {ID: "ben", Name: "Ben"}, {ID: "cat", Name: "Cat"}}
	ix := newViewIndex(ms, nil)
	ix.subs = map[int][]Submission{1: {{Seq: 1, MemberID: "ada"}, {Seq: 1, MemberID: "ben"}}}
	rd := Round{Seq: 1, State: RoundOpen, OpenedAt: now, Question: Question{Kind: KindHandler, Template: "ack-after-work"}}
	v := roundView(rd, ix, Caller{Role: AsHost}, now)
	if v.Answered != 1 || len(v.Unanswered) != 1 || v.Unanswered[0] != "Cat" {
		t.Errorf("answered %d, not answered yet %v; want 1 (Ben) and [Cat]", v.Answered, v.Unanswered)
	}
}
