package rooms

import (
	"context"
	"time"
)

// This file holds a round's two votes and its countdown as the host runs them: peer instruction
// (members answer alone, the host alone sees how they spread, the room discusses, members answer
// again) and a clock every screen reads from the server.

// RoundOptions are how a round is run, beside what it asks: one vote or two, and the countdown
// each vote is given (0 for none, else MinSeconds to MaxSeconds).
type RoundOptions struct {
	Votes   int // 1 or 2; 0 is 1
	Seconds int
}

func (o RoundOptions) normalize() (RoundOptions, error) {
	if o.Votes == 0 {
		o.Votes = 1
	}
	if o.Votes != 1 && o.Votes != 2 {
		return o, fieldErr("votes", ErrInvalid, "a round has 1 or 2 votes")
	}
	if o.Seconds != 0 && (o.Seconds < MinSeconds || o.Seconds > MaxSeconds) {
		return o, fieldErr("seconds", ErrInvalid, "a countdown is %d to %d seconds", MinSeconds, MaxSeconds)
	}
	return o, nil
}

// SecondVote starts the second vote of a two-vote round: the first takes nothing more, members
// see their first answer and answer again, and a countdown starts afresh from the round's
// Seconds. It may follow the first vote directly (the host skipping the lock) or its lock, and
// any other round still open is locked in the same step. Pressing it twice is harmless; a
// one-vote round, a second vote already locked or a revealed round refuse with ErrRoundState, and
// a round that is not the room's newest with NotNewest (the store judges it as it writes, so a
// round opened meanwhile counts): members answer the question on screen.
func (s *Service) SecondVote(ctx context.Context, host Caller, seq int) (Round, error) {
	now := s.cfg.Now()
	return s.changeRound(ctx, host, seq, func(rd *Round) error {
		switch {
		case rd.State == RoundRevealed:
			return fieldErr("round", ErrRoundState, "the round is already revealed")
		case rd.Votes != 2:
			return fieldErr("round", ErrRoundState, "the round has one vote")
		case rd.Vote == 2 && rd.State == RoundOpen:
			return nil
		case rd.Vote == 2:
			return fieldErr("round", ErrRoundState, "the second vote is over")
		}
		rd.State, rd.Vote, rd.PausedLeft = RoundOpen, 2, 0
		if rd.Timed() {
			rd.Deadline = now.Add(time.Duration(rd.Seconds) * time.Second)
		}
		return nil
	})
}

// SetPaused stops a round's countdown where it is (guesses are still taken; only the clock stands
// still), or starts it again from there. Pausing a paused countdown, or resuming a running one,
// changes nothing. A round without a countdown, or one no longer open, or whose time is up,
// refuses with ErrRoundState.
func (s *Service) SetPaused(ctx context.Context, host Caller, seq int, paused bool) (Round, error) {
	now := s.cfg.Now()
	return s.changeRound(ctx, host, seq, func(rd *Round) error {
		if err := runningTimer(rd, now); err != nil {
			return err
		}
		switch {
		case paused && !rd.Paused():
			rd.Deadline, rd.PausedLeft = time.Time{}, rd.Deadline.Sub(now)
		case !paused && rd.Paused():
			rd.Deadline, rd.PausedLeft = now.Add(rd.PausedLeft), 0
		}
		return nil
	})
}

// ExtendTimer gives a round's countdown seconds more (1 to MaxSeconds), paused or not, as long
// as what is left stays within MaxSeconds. Once the time is up it is too late: the round took no
// guesses at zero, and a later extension would take them after all.
func (s *Service) ExtendTimer(ctx context.Context, host Caller, seq, seconds int) (Round, error) {
	if seconds < 1 || seconds > MaxSeconds {
		return Round{}, fieldErr("extend", ErrInvalid, "a countdown is extended by 1 to %d seconds", MaxSeconds)
	}
	d := time.Duration(seconds) * time.Second
	now := s.cfg.Now()
	return s.changeRound(ctx, host, seq, func(rd *Round) error {
		if err := runningTimer(rd, now); err != nil {
			return err
		}
		if rd.TimeLeft(now)+d > MaxSeconds*time.Second {
			return fieldErr("extend", ErrInvalid, "a countdown has at most %d seconds left, so this is too many seconds more", MaxSeconds)
		}
		if rd.Paused() {
			rd.PausedLeft += d
		} else {
			rd.Deadline = rd.Deadline.Add(d)
		}
		return nil
	})
}

// runningTimer refuses a change to a countdown that is not there to change.
func runningTimer(rd *Round, now time.Time) error {
	switch {
	case !rd.Timed():
		return fieldErr("round", ErrRoundState, "the round has no countdown")
	case rd.State != RoundOpen:
		return fieldErr("round", ErrRoundState, "the round is %s; its countdown is over", rd.State)
	case rd.TimeUp(now):
		return TimeUp(rd.Seq, rd.Deadline)
	}
	return nil
}

// changeRound is a host change to one round through the store's atomic update, gated and
// announced as every host change is.
func (s *Service) changeRound(ctx context.Context, host Caller, seq int, fn func(*Round) error) (Round, error) {
	var rd Round
	err := s.hostChange(ctx, host, func(r Room) (err error) {
		rd, err = s.store.UpdateRound(ctx, r.ID, seq, fn)
		return notFoundAs(err, "seq", noRound)
	})
	return rd, err
}
