package pages

import (
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// A handler round's views: the challenge, the verdicts members and the host see, the reference
// after the reveal and, on the projector, the check of the handler the host shows.

// ChallengeTemplate is a workbench template as the host's handler round form offers it, in words.
type ChallengeTemplate struct {
	Name, Title, Summary string
}

// HandlerRoundParts are what a room's view of a handler round needs beside the rooms' own view:
// the template in words and the workbench link that opens it at the round's parameters, the
// reference handler's title and, once revealed, its source and whether any handler could survive;
// on the projector, the handler shown.
type HandlerRoundParts struct {
	Seq             int
	TemplateTitle   string
	WorkbenchURL    string
	ReferenceTitle  string
	ReferenceSource string
	Shown           *ShownHandler
	// NoneSurvive, once the round is revealed, says that no handler survives its parameters, and
	// why; nil where the workbench cannot say so.
	NoneSurvive *NoneSurvive
}

// ShownHandler is a handler the host shows on the projector: whose it is (Title, never a name the
// members may not see), its source and its check at the round's parameters, drawn with the
// workbench's own table; Problem says why the check is not at hand.
type ShownHandler struct {
	Title, Source, Problem string
	Result                 *WorkbenchResult
}

// HandlerParts answers the parts of handler round rd, when the view has them.
func (v RoomView) HandlerParts(rd *rooms.RoundView) *HandlerRoundParts {
	if h := v.Handlers; h != nil && h.Seq == rd.Seq {
		return h
	}
	return nil
}

// IsHandler reports whether the newest round is a handler round.
func (v RoomView) IsHandler() bool {
	rd := v.Current()
	return rd != nil && rd.Handler != nil
}

// SubmissionURL opens a submitted handler (by its share's hash) in the workbench at the round's
// parameters.
func (v RoomView) SubmissionURL(rd *rooms.RoundView, hash string) string {
	u := v.Site.URL("/workbench/s/" + hash)
	if rd.Question.Params != "" {
		u += "?" + rd.Question.Params
	}
	return u
}

// VerdictText says a verdict in a line: "survives all 5 crash points", or "survives 2 of 3 crash
// points: 394 duplicated".
func VerdictText(v rooms.Verdict) string {
	if v.Survived == v.Points && v.Survives {
		if v.Points == 1 {
			return "survives its crash point"
		}
		return "survives all " + strconv.Itoa(v.Points) + " crash points"
	}
	s := "survives " + strconv.Itoa(v.Survived) + " of " + present.Plural(int64(v.Points), "crash point", "crash points")
	var costs []string
	if v.Lost > 0 {
		costs = append(costs, experiments.Thousands(v.Lost)+" lost")
	}
	if v.Duplicated > 0 {
		costs = append(costs, experiments.Thousands(v.Duplicated)+" duplicated")
	}
	if v.Events != nil && *v.Events > 0 {
		costs = append(costs, present.Plural(*v.Events, "event fault", "event faults"))
	}
	if len(costs) > 0 {
		s += ": " + strings.Join(costs, ", ")
	}
	return s
}

// survivedText is a verdict's crash points in a table's cell: "2 of 3".
func survivedText(v rooms.Verdict) string {
	return strconv.Itoa(v.Survived) + " of " + strconv.Itoa(v.Points)
}

// eventsText is a verdict's event faults in a table's cell: "—" for a handler that publishes none.
func eventsText(v rooms.Verdict) string {
	if v.Events == nil {
		return "—"
	}
	return experiments.Thousands(*v.Events)
}

// anyEvents reports whether a submission the caller sees publishes events, so its table needs
// their column.
func anyEvents(h *rooms.HandlerView) bool {
	for _, s := range h.Submissions {
		if s.Verdict.Events != nil {
			return true
		}
	}
	return false
}

// handlerStateText says where a handler round is, for its badge.
func handlerStateText(v RoomView, s rooms.RoundState) string {
	switch {
	case v.Room.Closed && s != rooms.RoundRevealed:
		return "closed, not revealed"
	case s == rooms.RoundOpen:
		return "open for handlers"
	case s == rooms.RoundLocked:
		return "submissions locked"
	}
	return "revealed"
}

// answeredWord is what the count of a round's answers counts: guesses, or handlers submitted.
func answeredWord(rd *rooms.RoundView) string {
	if rd.Handler != nil {
		return "submitted"
	}
	return "answered"
}

// unansweredWords heads the host's list of the members who have not answered yet.
func unansweredWords(rd *rooms.RoundView) string {
	if rd.Handler != nil {
		return "Not submitted yet"
	}
	return "Not answered yet"
}

// submitterName names a submission in a table: the name the caller may see, "you" for their
// own, else "—".
func submitterName(s rooms.SubmissionView) string {
	switch {
	case s.Name != "" && s.Yours:
		return s.Name + " (you)"
	case s.Name != "":
		return s.Name
	case s.Yours:
		return "you"
	}
	return "—"
}

// shownValue is what "Show on the projector" posts for a submission: its author's id.
func shownValue(s rooms.SubmissionView) string { return s.MemberID }

// handlerKey is what the history draws of an earlier handler round, for its PartKey.
func handlerKey(rd *rooms.RoundView) string {
	h := rd.Handler
	if h == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(h.Survive()) + "/" + strconv.Itoa(len(h.Submissions)))
	if h.Reference != nil {
		b.WriteString("|ref " + survivedText(*h.Reference))
	}
	if h.Yours != nil {
		b.WriteString("|yours " + survivedText(h.Yours.Verdict))
	}
	return b.String()
}
