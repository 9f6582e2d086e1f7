package pages

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/workbench"
)

// WorkbenchRound is a study room's handler round as the workbench's form offers it to a member:
// a second submit button that posts the editor's handler to Action, the room's action, where the
// server checks it at the round's parameters (Params, in words), whatever the form says.
type WorkbenchRound struct {
	Action string
	Seq    int
	Room   string // the room's title
	Params string // ChallengeParams of the round's
}

// RoundNote says, above a check's result, what became of a handler submitted to a room's round:
// OK when it was kept, with its verdict; else why it was not. RoomURL leads to the room.
type RoundNote struct {
	OK            bool
	Text, RoomURL string
}

// RoundAnswer is the workbench's answer to a submission, which the rooms hand to the workbench to
// draw: the editor keeps Source (started from Template), the parameters show the round's
// (Params, a query), and the result is the check at them (nil when none ran), or the handler's
// mistake at its line (CodeError).
type RoundAnswer struct {
	Source, Template, Params string
	Result                   *workbench.Result
	CodeError                *workbench.CodeError
	Note                     RoundNote
	Round                    *WorkbenchRound
}

// ChallengeParams writes a check's parameters (a workbench permalink's query) as a handler
// round states them, by name as the query sorts them, whole numbers with separators:
// "key_window=1,000, max_delay=2,000"; "the workbench's defaults" for none.
func ChallengeParams(query string) string {
	v, err := url.ParseQuery(query)
	if err != nil || len(v) == 0 {
		return "the workbench's defaults"
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(v)) {
		val := v.Get(name)
		if n, err := strconv.ParseInt(val, 10, 64); err == nil && isInt(name) {
			val = experiments.Thousands(n)
		}
		parts = append(parts, name+"="+val)
	}
	return strings.Join(parts, ", ")
}

// isInt reports whether the workbench's parameter called name is a whole number.
func isInt(name string) bool {
	return slices.ContainsFunc(workbench.Fields(), func(f workbench.Param) bool { return f.Name == name && f.Kind == experiments.KindInt })
}

// NoneSurvive is a handler round whose parameters no handler can survive (see
// workbench.NoHandlerSurvives): the host's form says so before the round opens, and the reveal
// beside the reference's verdict. Block4URL opens block 4's experiment at the same window, delays
// and stream.
type NoneSurvive struct {
	workbench.Forgetting
	Block4URL string
}

// Why says what forgets: "a key window of 1,000 ids forgets keys before redeliveries up to 2,000
// jobs late arrive".
func (n NoneSurvive) Why() string {
	return "a key window of " + experiments.Thousands(n.KeyWindow) + " ids forgets keys before redeliveries up to " +
		experiments.Thousands(n.MaxDelay) + " jobs late arrive"
}

// Late says how many of the stream's redeliveries find their key gone.
func (n NoneSurvive) Late() string {
	if n.Forgetting.Late == 1 {
		return "1 of this stream's redeliveries finds its key gone"
	}
	return experiments.Thousands(n.Forgetting.Late) + " of this stream's redeliveries find their key gone"
}

// HandlerRoundAskView is the page that asks a host without script whether to open a handler
// round no handler can survive: the same form's fields, posted again with confirmed=yes.
type HandlerRoundAskView struct {
	Site   Site
	Title  string // the room's
	None   NoneSurvive
	Action string
	Fields []Hidden
	Back   string
}
