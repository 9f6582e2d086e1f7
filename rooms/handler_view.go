package rooms

import (
	"cmp"
	"slices"
	"time"
)

// HandlerView is a handler round as one caller may see it: their own submission always; every
// submission for the host, and for a member once the round is revealed (before that, members see
// only how many have submitted, so nobody copies a verdict they have not earned); names as the
// round's NamesVisible says, for everyone but the host. The reference handler's name stays the
// host's until the reveal, when its verdict comes with it.
type HandlerView struct {
	Yours       *SubmissionView
	Submissions []SubmissionView // best verdict first, so the order says nothing of who was first
	Reference   *Verdict         // the reference handler's verdict, once revealed
	// Shown is what the projector shows, for the host: "" nothing, ShownReference, or a member's
	// id. ShownName, ShownHash and ShownSource are that member's submission (the source as read
	// for the projector, "" when it was not).
	Shown, ShownName, ShownHash, ShownSource string
}

// Survive counts the submissions the caller sees that survive every crash point.
func (h *HandlerView) Survive() int {
	n := 0
	for _, s := range h.Submissions {
		if s.Verdict.Survives {
			n++
		}
	}
	return n
}

// SubmissionView is one submission as the caller may see it. MemberID is the host's (to show it on
// the projector); Hash the host's and its author's (the share a workbench link opens); Name empty
// unless the caller may see names.
type SubmissionView struct {
	MemberID string
	Name     string
	Hash     string
	Yours    bool
	Verdict  Verdict
	At       string // RFC 3339
}

// withHandlers adds the handler rounds' submissions (the seated members') and the sources read
// for the projector to the index every view of a room shares.
func (ix *viewIndex) withHandlers(subs []Submission, sources map[string]string) *viewIndex {
	ix.subs, ix.sources = map[int][]Submission{}, sources
	for _, s := range subs {
		if _, ok := ix.seated[s.MemberID]; ok {
			ix.subs[s.Seq] = append(ix.subs[s.Seq], s)
		}
	}
	return ix
}

// handlerRoundView is roundView for a handler round, by the rules HandlerView states.
func handlerRoundView(rd Round, ix *viewIndex, c Caller, now time.Time) RoundView {
	subs := ix.subs[rd.Seq]
	host, revealed := c.Role == AsHost, rd.State == RoundRevealed
	q := rd.Question
	if !host && !revealed {
		q.Reference = ""
	}
	in := make(map[string]bool, len(subs))
	answered := 0 // by members the host waits for, as a number round's "N of M" counts
	for _, s := range subs {
		in[s.MemberID] = true
		if ix.waitedFor(s.MemberID) {
			answered++
		}
	}
	v := RoundView{Seq: rd.Seq, Question: q, State: rd.StateAt(now), Answered: answered,
		NamesVisible: rd.NamesVisible, Votes: 1, Vote: 1, Seconds: rd.Seconds}
	v.timer(rd, now)
	if v.State == RoundOpen && host {
		v.Unanswered = ix.unanswered(func(id string) bool { return in[id] })
	}
	h := &HandlerView{}
	if revealed {
		h.Reference = rd.Reference
	}
	names := host || rd.NamesVisible
	for _, s := range subs {
		sv := SubmissionView{Verdict: s.Verdict, At: s.At.UTC().Format(timeFormat),
			Yours: c.Role == AsMember && s.MemberID == c.Member.ID}
		if names || sv.Yours {
			sv.Name = ix.seated[s.MemberID]
		}
		if host || sv.Yours {
			sv.Hash = s.Hash
		}
		if host {
			sv.MemberID = s.MemberID
		}
		if sv.Yours {
			mine := sv
			h.Yours = &mine
		}
		if host || revealed {
			if !names {
				sv.Name = ""
			}
			h.Submissions = append(h.Submissions, sv)
		}
	}
	slices.SortStableFunc(h.Submissions, func(a, b SubmissionView) int {
		return cmp.Or(-cmp.Compare(a.Verdict.Survived, b.Verdict.Survived),
			cmp.Compare(a.Verdict.Lost+a.Verdict.Duplicated, b.Verdict.Lost+b.Verdict.Duplicated), cmp.Compare(a.Name, b.Name))
	})
	if host && revealed {
		h.Shown = rd.Shown
		for _, s := range subs {
			if s.MemberID == rd.Shown {
				h.ShownName, h.ShownHash, h.ShownSource = ix.seated[s.MemberID], s.Hash, ix.sources[s.Hash]
			}
		}
	}
	v.Handler = h
	return v
}
