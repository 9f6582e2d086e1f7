package rooms

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"net/url"
	"strings"
	"time"

	"effectivelyonce/experiments"
)

// This file holds handler rounds: the host puts a workbench challenge to the room (a template to
// start from and the parameters a handler must survive), members write a handler in the workbench
// and submit it, the server checks it at the challenge's parameters and keeps its verdict, and
// the reveal shows a reference handler beside everyone's verdicts.

// Verdict is a handler's check in the few numbers a room shows of it: how many of its crash
// points it survives, and what the others cost, summed over the crash points (each point is a run
// of the whole stream). Events counts the events lost, sent for nothing or received twice, for a
// handler that publishes; nil for one that does not.
type Verdict struct {
	Points     int    `json:"points"`
	Survived   int    `json:"survived"`
	Lost       int64  `json:"lost"`
	Duplicated int64  `json:"duplicated"`
	Events     *int64 `json:"events,omitempty"`
	Survives   bool   `json:"survives"`
}

func (v Verdict) valid() error {
	if v.Points < 1 || v.Survived < 0 || v.Survived > v.Points || v.Lost < 0 || v.Duplicated < 0 || (v.Events != nil && *v.Events < 0) {
		return fieldErr("verdict", ErrInvalid, "a verdict counts at least one crash point, and nothing below zero")
	}
	return nil
}

// Submission is a member's handler for a handler round, with the verdict of its check at the
// round's parameters. The source is kept as a workbench share under Hash (ShareHash), so the same
// handler submitted twice, or shared from the workbench, is one row. A member has one submission
// per round; a later one replaces it while the round takes them.
type Submission struct {
	RoomID   string
	Seq      int
	MemberID string
	Hash     string
	Verdict  Verdict
	At       time.Time
}

// ShownReference as a Round's Shown puts the round's reference handler on the projector.
const ShownReference = "reference"

// MaxSource is the largest handler a room takes, the workbench's share limit (16 KB): a
// submission is kept as a share.
const MaxSource = 16 << 10

// ShareHash is the key a handler's source is kept under as a workbench share: the first 60 bits
// of its SHA-256, in lower-case base32 (12 characters). Short enough for a URL someone reads
// aloud, and a collision among the handlers one site will ever hold is out of reach (birthday
// bound ~2^30 handlers).
func ShareHash(source string) string {
	sum := sha256.Sum256([]byte(source))
	enc := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:8])
	return strings.ToLower(enc[:12])
}

// Checker checks handlers for handler rounds. The server implements it with the workbench's
// check in its sandbox, at q.Params: the round's parameters, never any a member sent, so that
// every submission is judged on the same stream.
type Checker interface {
	// Check answers the verdict of source; a mistake in the handler is the checker's error (the
	// workbench's, with its line), which Submit answers unchanged.
	Check(ctx context.Context, q Question, source string) (Verdict, error)
	// Reference answers the verdict of the round's reference handler (q.Reference).
	Reference(ctx context.Context, q Question) (Verdict, error)
}

// normalizeHandler checks a handler challenge: the names of its templates (the server checks that
// they exist, since the rooms know no workbench), its parameters as a query string and its words.
func (q Question) normalizeHandler() (Question, error) {
	if q.Template == "" || !plain(q.Template, 64) {
		return q, fieldErr("template", ErrInvalid, "a template to start from is needed")
	}
	if q.Reference == "" || !plain(q.Reference, 64) {
		return q, fieldErr("reference", ErrInvalid, "a reference handler is needed")
	}
	if len(q.Params) > maxParams {
		return q, fieldErr("params", ErrInvalid, "the parameters are longer than %s bytes", experiments.Thousands(maxParams))
	}
	v, err := url.ParseQuery(q.Params)
	if err != nil {
		return q, fieldErr("params", ErrInvalid, "the parameters are not a query string")
	}
	if q.Text = strings.TrimSpace(q.Text); !plain(q.Text, maxMeasureText) {
		return q, fieldErr("text", ErrInvalid, "the challenge is at most %d characters of plain text", maxMeasureText)
	}
	return Question{Kind: KindHandler, Template: q.Template, Reference: q.Reference, Params: v.Encode(), Text: q.Text}, nil
}

// TakesHandler answers nil when the round takes a submission made at at, and the refusal
// otherwise: it must be a handler round, open, and its countdown, if any, not run out by then.
// Every Store applies it in the same step as writing the submission, as Takes for a guess.
func (r Round) TakesHandler(at time.Time) error {
	switch {
	case r.Question.Kind != KindHandler:
		return fieldErr("seq", ErrInvalid, "round %d asks for a number, not a handler", r.Seq)
	case r.State != RoundOpen:
		return fieldErr("round", ErrRoundState, "the round is %s and takes no more handlers", r.State)
	case r.TimeUp(at):
		return TimeUp(r.Seq, r.Deadline)
	}
	return nil
}

// Submit checks a member's handler at handler round seq's parameters with ch, and keeps it (as a
// share) with its verdict as the member's submission, replacing their earlier one. The round must
// take it when the request came (TakesHandler, judged before the check, which takes seconds, and
// again by the store as it writes: a lock or a reveal meanwhile refuses it); a mistake in the
// handler is ch's error, unchanged, and nothing is kept.
func (s *Service) Submit(ctx context.Context, member Caller, seq int, source string, ch Checker) (Submission, error) {
	if strings.TrimSpace(source) == "" {
		return Submission{}, fieldErr("source", ErrInvalid, "the handler is empty; write one to submit")
	}
	if len(source) > MaxSource {
		return Submission{}, fieldErr("source", ErrInvalid, "the handler is %s bytes long; a handler may have at most %s (16 KB)",
			experiments.Thousands(int64(len(source))), experiments.Thousands(MaxSource))
	}
	if err := member.may(AsMember); err != nil {
		return Submission{}, err
	}
	r := member.Room
	if err := s.changing(ctx, r); err != nil {
		return Submission{}, err
	}
	rd, err := s.round(ctx, r.ID, seq)
	if err != nil {
		return Submission{}, err
	}
	at := s.cfg.Now()
	if err := rd.TakesHandler(at); err != nil {
		return Submission{}, err
	}
	v, err := ch.Check(ctx, rd.Question, source)
	if err != nil {
		return Submission{}, err
	}
	if err := v.valid(); err != nil {
		return Submission{}, err
	}
	sub := Submission{RoomID: r.ID, Seq: seq, MemberID: member.Member.ID, Hash: ShareHash(source), Verdict: v, At: at}
	if err := s.store.PutSubmission(ctx, sub, source); err != nil {
		return Submission{}, notFoundAs(err, "seq", noRound)
	}
	s.changed(ctx, r.ID)
	return sub, nil
}

// round reads the room's round numbered seq.
func (s *Service) round(ctx context.Context, roomID string, seq int) (Round, error) {
	rounds, err := s.store.Rounds(ctx, roomID)
	if err != nil {
		return Round{}, err
	}
	if seq < 1 || seq > len(rounds) {
		return Round{}, notFoundAs(ErrNotFound, "seq", noRound)
	}
	return rounds[seq-1], nil
}

// ShowOnProjector puts a revealed handler round's reference (ShownReference) or a member's
// submission (their id) on the projector, or takes it off (""). The handler is checked with ch
// first, so that every projector draws its table from the check's cache rather than waiting.
func (s *Service) ShowOnProjector(ctx context.Context, host Caller, seq int, shown string, ch Checker) error {
	return s.hostChange(ctx, host, func(r Room) error {
		if shown != "" {
			rd, err := s.round(ctx, r.ID, seq)
			if err != nil {
				return err
			}
			if err := shownRound(&rd); err != nil {
				return err
			}
			if err := s.checkShown(ctx, r.ID, rd, shown, ch); err != nil {
				return err
			}
		}
		_, err := s.store.UpdateRound(ctx, r.ID, seq, func(rd *Round) error {
			if err := shownRound(rd); err != nil {
				return err
			}
			rd.Shown = shown
			return nil
		})
		return notFoundAs(err, "seq", noRound)
	})
}

// shownRound refuses a round whose handlers cannot be shown: not a handler round, or not revealed.
func shownRound(rd *Round) error {
	switch {
	case rd.Question.Kind != KindHandler:
		return fieldErr("seq", ErrInvalid, "round %d has no handlers to show", rd.Seq)
	case rd.State != RoundRevealed:
		return fieldErr("round", ErrRoundState, "the round's handlers go on the projector once it is revealed")
	}
	return nil
}

// checkShown checks what is to be shown: the reference, or member's submission, read back from
// its share.
func (s *Service) checkShown(ctx context.Context, roomID string, rd Round, shown string, ch Checker) error {
	if shown == ShownReference {
		_, err := ch.Reference(ctx, rd.Question)
		return err
	}
	subs, err := s.store.Submissions(ctx, roomID)
	if err != nil {
		return err
	}
	sub, ok := submissionOf(subs, rd.Seq, shown)
	if !ok {
		return fieldErr("member", ErrNotFound, "nobody of this id submitted a handler in round %d", rd.Seq)
	}
	src, err := s.store.Share(ctx, sub.Hash)
	if err != nil {
		return err
	}
	_, err = ch.Check(ctx, rd.Question, src)
	return err
}

// submissionOf is member's submission to round seq among subs.
func submissionOf(subs []Submission, seq int, member string) (Submission, bool) {
	for _, sub := range subs {
		if sub.Seq == seq && sub.MemberID == member {
			return sub, true
		}
	}
	return Submission{}, false
}

// revealHandler reveals a handler round, already locked: its reference handler is checked (m
// must be a Checker) and its verdict kept with the round.
func (s *Service) revealHandler(ctx context.Context, r Room, rd Round, m Measurer) (Round, error) {
	ch, ok := m.(Checker)
	if !ok {
		return Round{}, errors.New("rooms: a handler round is revealed with a Checker")
	}
	v, err := ch.Reference(ctx, rd.Question)
	if err != nil {
		return Round{}, err
	}
	if err := v.valid(); err != nil {
		return Round{}, err
	}
	now := s.cfg.Now()
	rd, err = s.store.UpdateRound(ctx, r.ID, rd.Seq, func(rd *Round) error {
		if rd.State != RoundLocked {
			return fieldErr("round", ErrRoundState, "the round is already revealed")
		}
		rd.State, rd.RevealedAt, rd.Reference = RoundRevealed, now, &v
		return nil
	})
	if err == nil {
		s.changed(ctx, r.ID)
	}
	return rd, err
}

// handlerReads reads what a room's handler rounds add to its views: the submissions, only when the
// room has a handler round, and, with sources, the source of the submission the newest round shows
// on the projector. A room without handler rounds costs no read more.
func (s *Service) handlerReads(ctx context.Context, roomID string, rounds []Round, sources bool) ([]Submission, map[string]string, error) {
	if !hasHandlerRound(rounds) {
		return nil, nil, nil
	}
	subs, err := s.store.Submissions(ctx, roomID)
	if err != nil || !sources {
		return subs, nil, err
	}
	newest := rounds[len(rounds)-1]
	if newest.Shown == "" || newest.Shown == ShownReference {
		return subs, nil, nil
	}
	sub, ok := submissionOf(subs, newest.Seq, newest.Shown)
	if !ok {
		return subs, nil, nil
	}
	src, err := s.store.Share(ctx, sub.Hash)
	if errors.Is(err, ErrNotFound) {
		return subs, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return subs, map[string]string{sub.Hash: src}, nil
}

func hasHandlerRound(rounds []Round) bool {
	for _, rd := range rounds {
		if rd.Question.Kind == KindHandler {
			return true
		}
	}
	return false
}
