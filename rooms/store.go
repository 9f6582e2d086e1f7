package rooms

import (
	"context"
	"time"
)

// Store keeps rooms and everything in them. It is written in the domain's terms so that the rules
// never see a query; each method that must check and write together (a limit, a unique name, a
// guess only while its round is open) does so atomically, because two requests can race between
// a check in the Service and a write here. In particular every write to what a room holds (its
// members, rounds, guesses and pins) refuses a closed room with RoomClosed in the same step: the
// Service decides on the room as the request read it, and a close may land in between.
//
// Errors: ErrNotFound for a missing room, member, round or pin; the FieldError and LimitError
// values documented on each method otherwise; and an error wrapping ErrUnavailable whenever the
// database cannot be reached, after the store has retried once what a single dropped connection
// made fail. The update methods run fn on a copy of the current
// record and store the copy only if fn returns nil; fn must not call the Store (a store may hold a
// lock or a transaction while it runs), and its error is returned unchanged.
// roomstest.Run checks all of this for any implementation.
type Store interface {
	// CreateRoom stores a new room. It answers a FieldError "code" wrapping ErrTaken when the code
	// is in use, and a LimitError "rooms" when maxOpen rooms are already open (not Closed).
	CreateRoom(ctx context.Context, r Room, maxOpen int) error
	// RoomByCode finds a room by its current join code.
	RoomByCode(ctx context.Context, code string) (Room, error)
	// RoomByID finds a room by its permanent id.
	RoomByID(ctx context.Context, id string) (Room, error)
	// UpdateRoom changes a room atomically; a new Code that is taken answers a FieldError "code"
	// wrapping ErrTaken. fn may not change the ID.
	UpdateRoom(ctx context.Context, id string, fn func(*Room) error) (Room, error)
	// CloseIdleRooms closes every open room whose LastActivity is before the cutoff, and every
	// open room nobody has joined (no member, kicked or not) whose LastActivity is before
	// unjoinedBefore, answering how many it closed.
	CloseIdleRooms(ctx context.Context, before, unjoinedBefore time.Time) (int, error)
	// DeleteIdleRooms removes every closed room whose LastActivity is before the cutoff, with its
	// members, rounds, guesses and pins, answering how many rooms it removed.
	DeleteIdleRooms(ctx context.Context, before time.Time) (int, error)

	// AddMember seats a member. It answers ErrRoomClosed or ErrRoomLocked (wrapped in a
	// FieldError "code") when the room takes no one, a FieldError "name" wrapping ErrTaken when
	// NameKey(m.Name) is in use in the room (kicked members keep their name), and a LimitError
	// "members" when max members who were not kicked are seated.
	AddMember(ctx context.Context, m Member, max int) error
	// Members lists a room's members, kicked ones too, in the order they joined.
	Members(ctx context.Context, roomID string) ([]Member, error)
	// MemberByTokenHash finds the member of a room whose key hashes to h.
	MemberByTokenHash(ctx context.Context, roomID string, h Hash) (Member, error)
	// TouchMember records when a member's event stream last showed them present (zero: they
	// left). It is written on every connect and heartbeat, so it is a plain overwrite, not an
	// update through fn.
	TouchMember(ctx context.Context, roomID, memberID string, at time.Time) error
	// UpdateMember changes a member atomically (the host kicking one); RoomClosed in a closed
	// room. fn may not change the ID, room or name.
	UpdateMember(ctx context.Context, roomID, memberID string, fn func(*Member) error) (Member, error)

	// AddRound stores a round, giving it the room's next Seq (1 for the first), and answers it; a
	// LimitError "rounds" when the room already has max rounds, and RoomClosed in a closed room,
	// either of which changes nothing. When r is
	// open, every other round of the room still open is locked in the same step: one round takes
	// answers at a time however many are added at once (a double submit, a host on two devices),
	// and a guess that raced the lock lands wholly before it or is refused. A zero Votes or Vote
	// is stored (and answered) as 1.
	AddRound(ctx context.Context, r Round, max int) (Round, error)
	// Rounds lists a room's rounds by Seq.
	Rounds(ctx context.Context, roomID string) ([]Round, error)
	// UpdateRound changes a round atomically; the state machine's checks run inside fn, so two
	// hosts' clicks cannot both move a round. When fn opens a round that was not open (a second
	// vote), it must be the room's newest round (NotNewest otherwise, however recently the newer
	// one was added), and every other open round of the room is locked in the same step, as
	// AddRound does, so that one round still takes answers at a time. RoomClosed in a closed room.
	// A zero Votes or Vote is stored as 1.
	UpdateRound(ctx context.Context, roomID string, seq int, fn func(*Round) error) (Round, error)
	// PutGuess stores a member's guess for one vote of a round, replacing their earlier one for
	// that vote (a zero Vote is vote 1). It answers a FieldError "round" wrapping ErrRoundState
	// unless the round is open and g.Vote is the round's Vote at the moment of writing, the
	// FieldError of TimeUp (wrapping a TimeUpError) when the round's countdown runs and g.At is not
	// before its Deadline, and ErrKicked when the member was removed: a lock, a second vote, a
	// pause or a kick that has returned is never undone by a guess that raced it. The guess's own
	// At is what is judged, so the deadline is read by the Service's clock, not the store's.
	PutGuess(ctx context.Context, g Guess) error
	// Guesses lists every guess in a room by Seq, then by Vote, then by time.
	Guesses(ctx context.Context, roomID string) ([]Guess, error)

	// AddPin stores a pin; a LimitError "pins" when the member already has max pins (hidden ones
	// count, so hiding a pin does not hand its author another).
	// A LimitError "board" when the room's board already holds perRoom pins, hidden ones too;
	// ErrKicked when the member was removed, RoomClosed when the room was closed.
	AddPin(ctx context.Context, p Pin, perMember, perRoom int) error
	// Pins lists a room's pins, newest first.
	Pins(ctx context.Context, roomID string) ([]Pin, error)
	// UpdatePin changes a pin atomically (the host hiding one); RoomClosed in a closed room. fn may
	// not change the ID or room.
	UpdatePin(ctx context.Context, roomID, pinID string, fn func(*Pin) error) (Pin, error)

	// PutSubmission keeps source as a workbench share under sub.Hash (a share kept already stays
	// as it is) and sub as the member's submission for the round, replacing their earlier one, in
	// one step. It answers the refusal of the round's TakesHandler(sub.At) as it stands at the
	// write, ErrKicked for a removed member and RoomClosed in a closed room, as PutGuess does.
	PutSubmission(ctx context.Context, sub Submission, source string) error
	// Submissions lists a room's submissions by Seq, then by time.
	Submissions(ctx context.Context, roomID string) ([]Submission, error)
	// Share answers the source kept under a share's hash; ErrNotFound for none.
	Share(ctx context.Context, hash string) (string, error)
}
