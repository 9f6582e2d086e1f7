package rooms

import (
	"strconv"
	"time"
)

// ExportChallenge is a handler round's challenge in an export: the template members started
// from, the check's parameters (a workbench permalink's query), the reference handler, and the
// reference's verdict once the round was revealed.
type ExportChallenge struct {
	Template         string   `json:"template"`
	Params           string   `json:"params"`
	Reference        string   `json:"reference"`
	ReferenceVerdict *Verdict `json:"reference_verdict"`
}

// ExportSubmission is one handler submitted in an export: who, the share its source is kept under
// (the workbench opens it at /workbench/s/HASH), and its verdict at the round's parameters.
type ExportSubmission struct {
	Name    string    `json:"name"`
	Hash    string    `json:"hash"`
	Verdict Verdict   `json:"verdict"`
	At      time.Time `json:"at"`
}

// exportHandler fills a handler round's part of its export: the challenge, the reveal's time, and
// every submission (kicked members' too: the record is of what was said).
func exportHandler(er *ExportRound, rd Round, subs []Submission, names map[string]string) {
	q := rd.Question
	er.Challenge = &ExportChallenge{Template: q.Template, Params: q.Params, Reference: q.Reference, ReferenceVerdict: rd.Reference}
	if rd.State == RoundRevealed {
		at := rd.RevealedAt.UTC()
		er.Revealed = &at
	}
	er.Submissions = []ExportSubmission{}
	for _, s := range subs {
		if s.Seq == rd.Seq {
			er.Submissions = append(er.Submissions, ExportSubmission{Name: names[s.MemberID], Hash: s.Hash, Verdict: s.Verdict, At: s.At.UTC()})
		}
	}
}

// csvChallenge puts a handler round's challenge into its round's row: the template, the
// reference and, once revealed, the reference's verdict.
func csvChallenge(kv map[string]string, c *ExportChallenge) {
	if c == nil {
		return
	}
	kv["template"], kv["reference"] = cell(c.Template), cell(c.Reference)
	if c.ReferenceVerdict != nil {
		csvVerdict(kv, *c.ReferenceVerdict)
	}
}

// csvSubmission is a submission's row.
func csvSubmission(seq string, s ExportSubmission) map[string]string {
	kv := map[string]string{"record": "submission", "round": seq, "name": cell(s.Name), "hash": s.Hash,
		"at": s.At.UTC().Format(time.RFC3339)}
	csvVerdict(kv, s.Verdict)
	return kv
}

func csvVerdict(kv map[string]string, v Verdict) {
	kv["crash_points"], kv["survived"] = strconv.Itoa(v.Points), strconv.Itoa(v.Survived)
	kv["lost"], kv["duplicated"] = strconv.FormatInt(v.Lost, 10), strconv.FormatInt(v.Duplicated, 10)
	if v.Events != nil {
		kv["events"] = strconv.FormatInt(*v.Events, 10)
	}
	kv["survives"] = strconv.FormatBool(v.Survives)
}
