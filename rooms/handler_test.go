package rooms

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"strings"
	"sync"
	"testing"
)

// fakeChecker judges a handler by a line in it ("# survives" passes), and records the questions
// it was asked to check at.
type fakeChecker struct {
	mu     sync.Mutex
	params []string
	err    error
}

func (c *fakeChecker) Check(ctx context.Context, q Question, source string) (Verdict, error) {
	c.mu.Lock()
	c.params = append(c.params, q.Params)
	c.mu.Unlock()
	if c.err != nil {
		return Verdict{}, c.err
	}
	if strings.Contains(source, "# survives") {
		return Verdict{Points: 5, Survived: 5, Survives: true}, nil
	}
	return Verdict{Points: 3, Survived: 2, Duplicated: 394}, nil
}

func (c *fakeChecker) Reference(ctx context.Context, q Question) (Verdict, error) {
	c.mu.Lock()
	c.params = append(c.params, "reference:"+q.Params)
	c.mu.Unlock()
	return Verdict{Points: 5, Survived: 5, Survives: true}, nil
}

// Measure makes the checker a Measurer too, as the server's is.
func (c *fakeChecker) Measure(ctx context.Context, q Question) (float64, error) {
	return 0, errors.New("a handler round is not measured")
}

var challenge = Question{Kind: KindHandler, Template: "ack-after-work", Reference: "dedup-in-tx",
	Params: "max_delay=2000&key_window=1000", Text: "Write a handler that survives: key_window=1,000, max_delay=2,000"}

// TestHandlerRound runs a handler round through the Service: submissions checked at the round's
// parameters and kept one per member, what each caller sees before and after the reveal, the
// reference hidden from members until then, the projector, and the export.
func TestHandlerRound(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada, bob := f.join(t, "Ada"), f.join(t, "Bob")
	f.join(t, "Cy")
	host := f.as(t, f.host)
	if _, err := f.svc.OpenRoundWith(ctx, host, challenge, RoundOptions{Votes: 2}); fieldOf(err) != "votes" {
		t.Fatalf("a two-vote handler round: %v, want a refusal naming votes", err)
	}
	rd, err := f.svc.OpenRoundWith(ctx, host, challenge, RoundOptions{Seconds: 120})
	if err != nil {
		t.Fatal(err)
	}
	if rd.Question.Params != "key_window=1000&max_delay=2000" {
		t.Errorf("the parameters were kept as %q, want them as a sorted query", rd.Question.Params)
	}
	ch := &fakeChecker{}
	if err := f.svc.GuessWith(ctx, f.as(t, ada), rd.Seq, 5, ""); !errors.Is(err, ErrInvalid) {
		t.Errorf("a guess on a handler round: %v", err)
	}
	if _, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, "  \n", ch); fieldOf(err) != "source" {
		t.Errorf("an empty handler: %v", err)
	}
	if _, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, strings.Repeat("#", MaxSource+1), ch); fieldOf(err) != "source" {
		t.Errorf("a handler over 16 KB: %v", err)
	}
	if _, err := f.svc.Submit(ctx, host, rd.Seq, "# survives\n", ch); !errors.Is(err, ErrForbidden) {
		t.Errorf("the host submitted: %v", err)
	}
	if _, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, "pass\n", ch); err != nil {
		t.Fatal(err)
	}
	sub, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, "pass\n# survives\n", ch)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Hash != ShareHash("pass\n# survives\n") || !sub.Verdict.Survives {
		t.Errorf("Ada's resubmission: %+v", sub)
	}
	if _, err := f.svc.Submit(ctx, f.as(t, bob), rd.Seq, "pass\n", ch); err != nil {
		t.Fatal(err)
	}
	for _, p := range ch.params {
		if p != "key_window=1000&max_delay=2000" {
			t.Errorf("a handler was checked at %q, not the round's parameters", p)
		}
	}
	if src, err := f.store.Share(ctx, sub.Hash); err != nil || src != "pass\n# survives\n" {
		t.Errorf("the submission's share holds %q, %v", src, err)
	}

	// Before the reveal: a member sees their own verdict and the count; the host everything.
	mv, err := f.svc.State(ctx, f.as(t, bob), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := mv.Rounds[0]
	if m.Handler == nil || m.Handler.Yours == nil || m.Handler.Yours.Verdict.Survived != 2 || m.Handler.Yours.Hash == "" ||
		len(m.Handler.Submissions) != 0 || m.Answered != 2 || m.Of != 3 || m.Question.Reference != "" || m.Unanswered != nil {
		t.Errorf("Bob before the reveal: %+v, handler %+v", m, m.Handler)
	}
	hv, err := f.svc.State(ctx, host, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := hv.Rounds[0]
	if len(h.Handler.Submissions) != 2 || h.Handler.Submissions[0].Name != "Ada" || h.Handler.Submissions[0].MemberID == "" ||
		h.Question.Reference != "dedup-in-tx" || len(h.Unanswered) != 1 || h.Unanswered[0] != "Cy" {
		t.Errorf("the host before the reveal: %+v, handler %+v", h, h.Handler)
	}
	if err := f.svc.ShowOnProjector(ctx, host, rd.Seq, ShownReference, ch); !errors.Is(err, ErrRoundState) {
		t.Errorf("shown before the reveal: %v", err)
	}

	if _, err := f.svc.Reveal(ctx, host, rd.Seq, ch); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(ctx, f.as(t, bob), rd.Seq, "pass\n# survives\n", ch); !errors.Is(err, ErrRoundState) {
		t.Errorf("a submission after the reveal: %v", err)
	}
	mv, _ = f.svc.State(ctx, f.as(t, bob), nil)
	m = mv.Rounds[0]
	if m.State != RoundRevealed || m.Question.Reference != "dedup-in-tx" || m.Handler.Reference == nil || !m.Handler.Reference.Survives ||
		len(m.Handler.Submissions) != 2 || m.Handler.Submissions[0].Name != "" || m.Handler.Submissions[0].Hash != "" ||
		m.Handler.Submissions[1].Verdict.Survived != 2 || !m.Handler.Submissions[1].Yours || m.Handler.Survive() != 1 {
		t.Errorf("Bob after the reveal: %+v, handler %+v", m, m.Handler)
	}
	if err := f.svc.SetNamesVisible(ctx, host, rd.Seq, true); err != nil {
		t.Fatal(err)
	}
	mv, _ = f.svc.State(ctx, f.as(t, bob), nil)
	if s := mv.Rounds[0].Handler.Submissions; s[0].Name != "Ada" || s[0].Hash != "" || s[0].MemberID != "" {
		t.Errorf("Bob with names shown: %+v", s)
	}

	// The projector: Ada's handler, checked again at the round's parameters, its source read
	// into the host's snapshot.
	adaID := f.as(t, ada).Member.ID
	if err := f.svc.ShowOnProjector(ctx, host, rd.Seq, "nobody", ch); !errors.Is(err, ErrNotFound) {
		t.Errorf("showing a member who submitted nothing: %v", err)
	}
	if err := f.svc.ShowOnProjector(ctx, f.as(t, bob), rd.Seq, adaID, ch); !errors.Is(err, ErrForbidden) {
		t.Errorf("a member put a handler on the projector: %v", err)
	}
	if err := f.svc.ShowOnProjector(ctx, host, rd.Seq, adaID, ch); err != nil {
		t.Fatal(err)
	}
	sn, err := f.svc.Snapshot(ctx, f.created.Room.ID)
	if err != nil {
		t.Fatal(err)
	}
	hc, _ := sn.Caller(f.host, HashKey(f.host))
	if hh := sn.View(hc, nil).Rounds[0].Handler; hh.Shown != adaID || hh.ShownName != "Ada" || hh.ShownSource != "pass\n# survives\n" {
		t.Errorf("the host's snapshot shows %+v", hh)
	}
	bc, _ := sn.Caller(bob, HashKey(bob))
	if bh := sn.View(bc, nil).Rounds[0].Handler; bh.Shown != "" || bh.ShownSource != "" {
		t.Errorf("a member's view carries the projector's handler: %+v", bh)
	}

	ex, err := f.svc.Export(ctx, host)
	if err != nil {
		t.Fatal(err)
	}
	er := ex.Rounds[0]
	if er.Challenge == nil || er.Challenge.Template != "ack-after-work" || er.Challenge.Reference != "dedup-in-tx" ||
		er.Challenge.Params != "key_window=1000&max_delay=2000" || er.Challenge.ReferenceVerdict == nil || er.Measured != nil ||
		er.Revealed == nil || len(er.Submissions) != 2 {
		t.Fatalf("the export's handler round: %+v", er)
	}
	names := map[string]ExportSubmission{}
	for _, s := range er.Submissions {
		names[s.Name] = s
	}
	if a := names["Ada"]; a.Hash != sub.Hash || !a.Verdict.Survives {
		t.Errorf("Ada's submission in the export: %+v", a)
	}
	var buf bytes.Buffer
	if err := ex.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var subRows int
	for _, r := range rows[1:] {
		switch r[0] {
		case "round":
			if r[col["template"]] != "ack-after-work" || r[col["reference"]] != "dedup-in-tx" || r[col["survives"]] != "true" ||
				r[col["params"]] != "key_window=1000&max_delay=2000" {
				t.Errorf("the round's CSV row: %v", r)
			}
		case "submission":
			subRows++
			if r[col["hash"]] == "" || r[col["crash_points"]] == "" || r[col["name"]] == "" {
				t.Errorf("a submission's CSV row: %v", r)
			}
		}
	}
	if subRows != 2 {
		t.Errorf("%d submission rows in the CSV, want 2", subRows)
	}
}

// TestSubmitChecksNothingLate: a locked round, or a countdown run out, refuses a submission before
// it costs a check.
func TestSubmitChecksNothingLate(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	ada := f.join(t, "Ada")
	host := f.as(t, f.host)
	rd, err := f.svc.OpenRoundWith(ctx, host, challenge, RoundOptions{Seconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	ch := &fakeChecker{}
	f.clock.add(31e9)
	if _, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, "pass\n", ch); !errors.Is(err, ErrTimeUp) {
		t.Errorf("a submission after the countdown: %v", err)
	}
	if len(ch.params) != 0 {
		t.Errorf("a late submission was checked: %v", ch.params)
	}
	// A mistake in the handler is the checker's, unchanged, and keeps nothing.
	rd, _ = f.svc.OpenRoundWith(ctx, host, challenge, RoundOptions{})
	mistake := errors.New("line 2: undefined: x")
	ch.err = mistake
	if _, err := f.svc.Submit(ctx, f.as(t, ada), rd.Seq, "x\n", ch); !errors.Is(err, mistake) {
		t.Errorf("a handler with a mistake: %v", err)
	}
	if subs, _ := f.store.Submissions(ctx, f.created.Room.ID); len(subs) != 0 {
		t.Errorf("a refused submission was kept: %+v", subs)
	}
}

func fieldOf(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}
