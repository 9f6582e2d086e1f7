package present

import (
	"testing"

	"effectivelyonce/rooms"
)

// TestRoomsAskThePagesQuestions: a study room's rounds use the home page's five question ids and
// units; rooms may not import pages, so this test keeps the two lists in step.
func TestRoomsAskThePagesQuestions(t *testing.T) {
	if len(rooms.Predictions) != len(QuestionSpecs) {
		t.Fatalf("rooms knows %d questions, the home page asks %d", len(rooms.Predictions), len(QuestionSpecs))
	}
	for i, q := range QuestionSpecs {
		if p := rooms.Predictions[i]; p.ID != q.ID || p.Unit != q.Unit {
			t.Errorf("question %d: rooms has %s (%s), the home page %s (%s)", i+1, p.ID, p.Unit, q.ID, q.Unit)
		}
	}
}
