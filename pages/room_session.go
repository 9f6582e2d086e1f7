package pages

import "effectivelyonce/rooms"

// The study session's view helpers beside the room's own (room.go): the revealed round the bar
// keeps open, the questions about the page on screen, and the lab run the room watches.

// JustRevealed reports whether the newest round has been revealed, so the bar shows its histogram
// unfolded, where people are, until the member folds it or a new round opens.
func (v RoomView) JustRevealed() bool {
	rd := v.Current()
	return rd != nil && rd.State == rooms.RoundRevealed && rd.Result != nil
}

// SessionView is what a study session adds to a room's view: the host's questions about the page
// on screen, and the lab run the room watches.
type SessionView struct {
	// AskNumbers are the numbers the page on screen shows, for the host's "Ask about this page"
	// in the bar, by experiment; AskURL is where the bar fetches them again when the page's
	// address changes under it (a rerun with htmx).
	AskNumbers []NumberGroup
	AskURL     string
	// LabRun is the live lab's run the room watches, as this browser sees it (its own, with
	// Cancel, or the host's); nil when the room watches none, or the lab has moved on to another.
	LabRun *LabStatus
	// LabForm is the lab's small form on the host's room page, to start a run the room watches.
	LabForm *LabView
}

// PartLab is the live part of the lab run the room watches: its progress box, which polls the lab
// by itself, and once the run ends its table.
const PartLab = "lab"

// Sealed is a run a study room asks about in a round still open: a member's page shows its result
// hidden until the host reveals the answer, so that the number is guessed, not read.
type Sealed struct {
	Room     string // the room's id and the round's number, for the script that shows the
	Round    int    // result once the stream says the round is revealed
	Question string // the round's question, as the room asks it
	Show     string // the block's own address: "Show the result" once the host has revealed
}

// asksAbout names, for a member's view, the experiment an open round asks a number of, so that the
// page a member is on asks again for its experiments' blocks, which the server then draws with
// their results hidden (while a round asks, every experiment is sealed for members); "" otherwise.
func asksAbout(v RoomView, rd *rooms.RoundView) string {
	if !v.IsMember() || rd.State == rooms.RoundRevealed || rd.Question.Kind != rooms.KindMeasure {
		return ""
	}
	return rd.Question.Experiment
}
