package roomsweb

import "effectivelyonce/rooms"

// HandlerJSON is a handler round's submissions as the caller may see them (see rooms.HandlerView):
// their own always; everyone's for the host, and for members once revealed, best verdict first;
// the reference's verdict once revealed; what the projector shows, for the host. The round's
// question carries the challenge: its template, parameters and (for the host, or once revealed)
// its reference.
type HandlerJSON struct {
	YourSubmission *SubmittedJSON  `json:"your_submission,omitempty"`
	Submissions    []SubmittedJSON `json:"submissions"`
	Survive        int             `json:"survive"`
	Reference      *VerdictJSON    `json:"reference_verdict,omitempty"`
	Shown          string          `json:"shown,omitempty"`
}

// SubmittedJSON is one submission: name empty unless the caller may see names; member and hash
// the host's (and hash the author's own).
type SubmittedJSON struct {
	Name     string      `json:"name"`
	MemberID string      `json:"member,omitempty"`
	Hash     string      `json:"hash,omitempty"`
	Yours    bool        `json:"yours,omitempty"`
	Verdict  VerdictJSON `json:"verdict"`
	At       string      `json:"at"`
}

func handlerJSONOf(h *rooms.HandlerView) HandlerJSON {
	out := HandlerJSON{Submissions: []SubmittedJSON{}, Survive: h.Survive(), Shown: h.Shown}
	sub := func(s rooms.SubmissionView) SubmittedJSON {
		return SubmittedJSON{Name: s.Name, MemberID: s.MemberID, Hash: s.Hash, Yours: s.Yours, Verdict: verdictJSONOf(s.Verdict), At: s.At}
	}
	if h.Yours != nil {
		y := sub(*h.Yours)
		out.YourSubmission = &y
	}
	for _, s := range h.Submissions {
		out.Submissions = append(out.Submissions, sub(s))
	}
	if h.Reference != nil {
		r := verdictJSONOf(*h.Reference)
		out.Reference = &r
	}
	return out
}
