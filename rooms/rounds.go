package rooms

import (
	"context"
	"time"
)

// This file holds a round's life as the Service runs it: opened with a question, answered,
// locked, measured and revealed (votes.go holds its second vote and its countdown).

// OpenRound puts a question to the room, one vote and no countdown; members may answer at once.
func (s *Service) OpenRound(ctx context.Context, host Caller, q Question) (Round, error) {
	return s.OpenRoundWith(ctx, host, q, RoundOptions{})
}

// OpenRoundWith puts a question to the room with o's votes and countdown; members may answer at
// once, and a countdown starts now. The store counts the room's rounds against MaxRounds in the
// same step as it adds this one.
func (s *Service) OpenRoundWith(ctx context.Context, host Caller, q Question, o RoundOptions) (Round, error) {
	q, err := q.Normalize()
	if err != nil {
		return Round{}, err
	}
	if o, err = o.normalize(); err != nil {
		return Round{}, err
	}
	if q.Kind == KindHandler && o.Votes != 1 {
		return Round{}, fieldErr("votes", ErrInvalid, "a handler round has one vote: members submit a handler, and may submit again while it is open")
	}
	var rd Round
	err = s.hostChange(ctx, host, func(r Room) (err error) {
		// One round takes answers at a time: the store locks an earlier one still open in the
		// same step, so it never keeps taking guesses out of sight (the host can still reveal it
		// from the earlier rounds), even when two opens race; a round past MaxRounds changes nothing.
		now := s.cfg.Now()
		nr := Round{RoomID: r.ID, Question: q, State: RoundOpen, OpenedAt: now, Votes: o.Votes, Vote: 1, Seconds: o.Seconds}
		if nr.Timed() {
			nr.Deadline = now.Add(time.Duration(o.Seconds) * time.Second)
		}
		rd, err = s.store.AddRound(ctx, nr, s.cfg.MaxRounds)
		return err
	})
	return rd, err
}

// Guess records a member's number for an open round, replacing any earlier one; after the lock
// the store refuses it, however close the two requests were.
func (s *Service) Guess(ctx context.Context, member Caller, seq int, value float64) error {
	return s.GuessWith(ctx, member, seq, value, "")
}

// GuessWith records a member's number, with how confident they are ("" for unsaid), for the vote
// of the round now taking answers, replacing their earlier answer to that vote. After the lock,
// the second vote's start or the countdown's end (by the Service's clock) the store refuses it,
// however close the two requests were: the last with the TimeUp error, an ErrTimeUp. So does a
// room closed, or a member removed, since the request read them.
func (s *Service) GuessWith(ctx context.Context, member Caller, seq int, value float64, confidence Confidence) error {
	confidence, err := ParseConfidence(string(confidence))
	if err != nil {
		return err
	}
	if err := member.may(AsMember); err != nil {
		return err
	}
	r, m := member.Room, member.Member
	if err := s.changing(ctx, r); err != nil {
		return err
	}
	rd, err := s.round(ctx, r.ID, seq)
	if err != nil {
		return err
	}
	if rd.Question.Kind == KindHandler {
		return fieldErr("seq", ErrInvalid, "round %d asks for a handler, not a number: submit one from the workbench", seq)
	}
	if err := rd.Question.Accepts(value); err != nil {
		return err
	}
	g := Guess{RoomID: r.ID, Seq: seq, MemberID: m.ID, Value: value, At: s.cfg.Now(), Vote: rd.Vote, Confidence: confidence}
	if err := s.store.PutGuess(ctx, g); err != nil {
		return notFoundAs(err, "seq", noRound)
	}
	s.changed(ctx, r.ID)
	return nil
}

// LockRound stops a round taking guesses. Locking a locked round is a no-op, so a double click
// is harmless; a revealed round cannot go back.
func (s *Service) LockRound(ctx context.Context, host Caller, seq int) (Round, error) {
	var rd Round
	err := s.hostChange(ctx, host, func(r Room) (err error) {
		rd, err = s.store.UpdateRound(ctx, r.ID, seq, lockRound)
		return notFoundAs(err, "seq", noRound)
	})
	return rd, err
}

func lockRound(rd *Round) error {
	switch rd.State {
	case RoundOpen:
		rd.State = RoundLocked
	case RoundRevealed:
		return fieldErr("round", ErrRoundState, "the round is already revealed")
	}
	return nil
}

// Measurer answers the true value of a round's question. The server implements it by rerunning
// the experiment at the stored parameters; the host types it for a custom question.
type Measurer interface {
	Measure(ctx context.Context, q Question) (float64, error)
}

// MeasureFunc lets a plain function serve as a Measurer.
type MeasureFunc func(ctx context.Context, q Question) (float64, error)

// Measure calls f.
func (f MeasureFunc) Measure(ctx context.Context, q Question) (float64, error) { return f(ctx, q) }

// Reveal locks the round if it is still open, measures the true value, and reveals. The lock is
// stored before measuring, so no guess lands while an experiment runs; if measuring fails the
// round stays locked and the host can try again.
func (s *Service) Reveal(ctx context.Context, host Caller, seq int, m Measurer) (Round, error) {
	if err := host.may(AsHost); err != nil {
		return Round{}, err
	}
	r := host.Room
	if err := s.changing(ctx, r); err != nil {
		return Round{}, err
	}
	// A custom round's true value is the one its host typed: it is checked before the round
	// locks, so that a typo (60 for a round answered from 0 to 50) is refused with the round still
	// taking answers, rather than locking it or revealing a truth no answer could have reached.
	var typed float64
	rd, err := s.store.UpdateRound(ctx, r.ID, seq, func(rd *Round) error {
		if rd.Question.Kind == KindCustom && rd.State != RoundRevealed {
			v, err := m.Measure(ctx, rd.Question)
			if err != nil {
				return err
			}
			if err := rd.Question.truth(v); err != nil {
				return err
			}
			typed = v
		}
		return lockRound(rd)
	})
	if err != nil {
		return Round{}, notFoundAs(err, "seq", noRound)
	}
	s.changed(ctx, r.ID) // members see "locked" while the experiment runs
	if rd.Question.Kind == KindHandler {
		return s.revealHandler(ctx, r, rd, m)
	}
	v := typed
	if rd.Question.Kind != KindCustom {
		if v, err = m.Measure(ctx, rd.Question); err != nil {
			return Round{}, err
		}
	}
	if !finite(v) {
		return Round{}, fieldErr("measured", ErrInvalid, "the measured value is not a finite number")
	}
	now := s.cfg.Now()
	rd, err = s.store.UpdateRound(ctx, r.ID, seq, func(rd *Round) error {
		if rd.State != RoundLocked {
			return fieldErr("round", ErrRoundState, "the round is already revealed")
		}
		rd.State, rd.Measured, rd.RevealedAt = RoundRevealed, v, now
		return nil
	})
	if err == nil {
		s.changed(ctx, r.ID)
	}
	return rd, err
}

// SetNamesVisible lets members see who guessed what in a round (or hides it again). Only the
// host sees names by default, so that a wrong guess does not embarrass anyone unasked.
func (s *Service) SetNamesVisible(ctx context.Context, host Caller, seq int, visible bool) error {
	return s.hostChange(ctx, host, func(r Room) error {
		_, err := s.store.UpdateRound(ctx, r.ID, seq, func(rd *Round) error { rd.NamesVisible = visible; return nil })
		return notFoundAs(err, "seq", noRound)
	})
}
