package rooms

import (
	"errors"
	"fmt"
	"time"

	"effectivelyonce/experiments"
)

// The sentinel errors below are the kinds of refusal the rules can give. Callers test them with
// errors.Is and map each to one answer (an HTTP status, say) without reading messages; the
// message for a person travels in a FieldError that wraps the sentinel.
var (
	// ErrNotFound means the room, member, round or pin does not exist (or no longer does).
	ErrNotFound = errors.New("not found")
	// ErrForbidden means the key given is not the host's (or not a member's) key for this room.
	ErrForbidden = errors.New("forbidden")
	// ErrKicked means the key belongs to a member the host removed; it stops working at once.
	ErrKicked = errors.New("member was removed from the room")
	// ErrInvalid means a value does not meet the rules for its field.
	ErrInvalid = errors.New("invalid")
	// ErrTaken means a value that must be unique (a display name, a join code) is in use.
	ErrTaken = errors.New("taken")
	// ErrLimit means a count limit (members, open rooms, pins) has been reached.
	ErrLimit = errors.New("limit reached")
	// ErrRoomLocked means the host locked the room to new members.
	ErrRoomLocked = errors.New("room is locked")
	// ErrRoomClosed means the room closed (by its host or after being idle) and takes no changes.
	ErrRoomClosed = errors.New("room is closed")
	// ErrRoundState means the round is not in a state that allows the action (a guess after lock).
	ErrRoundState = errors.New("round state does not allow this")
	// ErrTimeUp means the round's countdown has run out: the guess came at or after its
	// deadline by the Service's clock. It is a kind of ErrRoundState (a transport that answers
	// 409 for one answers it for both); a TimeUpError says which round and when.
	ErrTimeUp = fmt.Errorf("the round's time is up: %w", ErrRoundState)
	// ErrUnavailable means the store cannot be reached just now (its database is restarting, or
	// out of reach); nothing is wrong with the request, which may be made again shortly.
	ErrUnavailable = errors.New("the rooms' database cannot be reached")
)

// FieldError is a refusal that names the field it concerns, so that an API can answer
// {"field","message"} next to the right input. Err is one of the sentinels above.
type FieldError struct {
	Field   string
	Message string
	Err     error
}

// Error joins the field and the message because a log line needs both.
func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

// Unwrap exposes the sentinel so errors.Is can classify the refusal.
func (e *FieldError) Unwrap() error { return e.Err }

func fieldErr(field string, kind error, format string, args ...any) error {
	return &FieldError{Field: field, Message: fmt.Sprintf(format, args...), Err: kind}
}

// LimitError reports which limit was hit and its value, so the message can tell a host what the
// instance allows. Stores return it too, since they enforce count limits atomically.
type LimitError struct {
	Field string
	Max   int
}

// Error says the limit in words a host can act on.
func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: at most %s allowed", e.Field, experiments.Thousands(int64(e.Max)))
}

// Unwrap makes every LimitError match ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// TimeUpError reports a guess that came after its round's countdown ended: which round, and the
// deadline it missed, so a message can say when the time ran out. Stores return it too, since
// they judge the guess's time against the stored deadline in the same step as the write.
type TimeUpError struct {
	Seq      int
	Deadline time.Time
}

// Error says which round's time ran out and when.
func (e *TimeUpError) Error() string {
	return fmt.Sprintf("round %d: the time ran out at %s", e.Seq, e.Deadline.UTC().Format(time.TimeOnly))
}

// Unwrap makes every TimeUpError match ErrTimeUp, and so ErrRoundState.
func (e *TimeUpError) Unwrap() error { return ErrTimeUp }

// TimeUp answers the refusal of a guess at or after the round's deadline: a FieldError "round",
// as the other refusals of a guess, wrapping a TimeUpError.
func TimeUp(seq int, deadline time.Time) error {
	return &FieldError{Field: "round", Message: "the time for this round is up; it takes no more guesses",
		Err: &TimeUpError{Seq: seq, Deadline: deadline}}
}

// RoomClosed answers the refusal of a change to a closed room: a FieldError "code" wrapping
// ErrRoomClosed. Stores answer it too, since they check the room in the same step as the write
// (a room closed after a request read it must take nothing more).
func RoomClosed() error {
	return &FieldError{Field: "code", Message: "the room is closed; its host can still export it", Err: ErrRoomClosed}
}

// NotNewest answers the refusal to open again (a second vote) a round that is not the room's
// newest: members answer the question on screen, and opening an earlier one would lock the newer
// one out of sight. A FieldError "seq" wrapping ErrRoundState; stores answer it, since a round
// added meanwhile must count.
func NotNewest(seq, newest int) error {
	return &FieldError{Field: "seq", Err: ErrRoundState,
		Message: fmt.Sprintf("round %d is not the newest (round %d is); only the newest round takes answers again", seq, newest)}
}

// notFoundAs names the field by which a missing thing was asked for (the join code, the round's
// "seq", a member or a pin), so that an answer points at the right input and a missing round is
// never mistaken for a wrong join code. Other errors pass unchanged.
func notFoundAs(err error, field, msg string) error {
	var fe *FieldError
	if errors.Is(err, ErrNotFound) && !errors.As(err, &fe) {
		return &FieldError{Field: field, Message: msg, Err: err}
	}
	return err
}

// The messages of notFoundAs for the things a route names.
const (
	noRoom   = "no room has this code"
	noRound  = "the room has no round with this number"
	noMember = "the room has no member with this id"
	noPin    = "the room has no pin with this id"
)
