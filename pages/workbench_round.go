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
