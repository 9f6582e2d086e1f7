package pages

import (
	"cmp"
	"reflect"
	"slices"
	"time"

	"effectivelyonce/rooms"
)

// The keys of the parts the board, the history, the roster and the tools do not cover (room.go):
// every live part has a key now, since a stream draws a part only when its key changed, and the
// streams of a room share what one of them drew for a key (see the room's event stream). A key is
// a fingerprint of everything its part reads and of nothing else: of the newest round, the round
// part reads the caller's own guess but not how many answered, so that a guess by someone else
// draws the count once for the whole room and leaves every member's round as it stands.
// TestPartKeysDecideHTML (in the rooms' web package) holds every key to its part's HTML over a
// room's life, seen by the host, each member, the bar and the projector.

// header writes what every part reads of the view besides its own: who it is drawn for and where
// its links and forms go. The site contributes its base alone (every link of a part is made with
// Site.URL); the rest of Site is the page's, not the parts'.
func (v RoomView) header(k keyWriter) {
	k.int(int64(v.Room.Role))
	k.bool(v.Room.Closed)
	k.bool(v.Room.Locked)
	k.bool(v.Bar)
	k.str(v.Actions)
	k.str(v.URL)
	k.str(v.Site.Base)
	k.str(v.Here)
	k.str(v.Room.RoomID)
	k.str(v.Room.Code)
	k.str(v.Room.Title)
}

// sessionKey writes the keys of the parts the session added, and those drawn from the newest
// round: status, presenting, round, count, timer, tally, screen and lab.
func (v RoomView) sessionKey(k keyWriter, name string) bool {
	rd := v.Current()
	switch name {
	case PartStatus:
		deepKey(k, reflect.ValueOf(v.Room.You))
		deepKey(k, reflect.ValueOf(v.JoinQR))
	case PartPresenting:
		k.str(v.Room.Presenting)
		k.str(v.PresentingTitle())
	case PartRound:
		if rd == nil {
			break
		}
		// What the count, the timer and the host's tally draw of the round, and only they: the
		// answers change with every guess, the time left at every redraw.
		r := *rd
		r.Answered, r.Of, r.Left, r.Unanswered, r.First = 0, 0, 0, nil, nil
		deepKey(k, reflect.ValueOf(r))
		k.str(v.Ask(rd.Question))
		deepKey(k, reflect.ValueOf(v.Handlers))
		deepKey(k, reflect.ValueOf(v.Room.YourCalibration))
	case PartCount:
		if rd != nil {
			k.str(string(rd.State))
			k.int(int64(rd.Answered))
			k.int(int64(rd.Of))
			k.bool(rd.Handler != nil)
		}
	case PartTimer:
		if rd != nil && rd.Seconds > 0 && rd.State != rooms.RoundRevealed {
			k.str(string(rd.State))
			k.bool(rd.TimeUp)
			k.bool(rd.Paused)
			k.int(int64(rd.Left))
			k.str(rd.Deadline)
			k.str(v.ServerClock())
		}
	case PartTally:
		if rd != nil && v.IsHost() { // a member's is empty
			deepKey(k, reflect.ValueOf(*rd))
		}
	case PartScreen:
		k.int(int64(v.Room.Seated))
		deepKey(k, reflect.ValueOf(v.JoinQR))
		if rd != nil {
			deepKey(k, reflect.ValueOf(*rd))
			k.str(v.Ask(rd.Question))
			k.str(v.ServerClock())
		}
		deepKey(k, reflect.ValueOf(v.Handlers))
	case PartLab:
		// The box polls the lab for its moving counts and its tables itself: its key is the run,
		// whose it is, how it ended and its tables once it has, so that a stream sends it when the
		// room starts watching a run, and when the run ends, not at every change of the room (nor
		// mid-run, which would replace the host's Cancel under their hand). (Two streams with one key
		// may so be given a box drawn a moment apart, whose counts and tables its next poll renews.)
		if s := v.LabRun; s != nil {
			run := *s
			run.Left, run.Design, run.Index, run.Done, run.Killed, run.Redelivered, run.Elapsed = "", "", 0, 0, 0, 0, ""
			if run.Running {
				run.Results = nil // the box's poll appends a design's table as it ends, beside Cancel
			}
			deepKey(k, reflect.ValueOf(run))
		} else {
			k.h.WriteByte(0)
		}
	default:
		return false
	}
	return true
}

var timeType = reflect.TypeFor[time.Time]()

// deepKey writes every value reachable from x into k: every field of a struct, every element of
// a slice, what a pointer points at (or that it is nil), a map's entries in the order of their
// keys. A field added to a view later is then in the keys that read its struct whole, with no
// list to keep. A function (such as a templ component) is written by its identity.
func deepKey(k keyWriter, x reflect.Value) {
	switch x.Kind() {
	case reflect.Invalid:
		k.h.WriteByte(0)
	case reflect.Bool:
		k.bool(x.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		k.int(x.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		k.int(int64(x.Uint()))
	case reflect.Float32, reflect.Float64:
		k.num(x.Float())
	case reflect.String:
		k.str(x.String())
	case reflect.Pointer, reflect.Interface:
		if x.IsNil() {
			k.h.WriteByte(0)
			return
		}
		k.h.WriteByte(1)
		if x.Kind() == reflect.Interface {
			k.str(x.Elem().Type().String())
		}
		deepKey(k, x.Elem())
	case reflect.Slice, reflect.Array:
		if x.Kind() == reflect.Slice && x.IsNil() {
			k.int(-1) // a nil slice draws differently from an empty one in places ("Unanswered")
			return
		}
		k.int(int64(x.Len()))
		for i := range x.Len() {
			deepKey(k, x.Index(i))
		}
	case reflect.Map:
		if x.IsNil() {
			k.int(-1)
			return
		}
		keys := x.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return cmp.Compare(a.String(), b.String()) })
		k.int(int64(len(keys)))
		for _, key := range keys {
			deepKey(k, key)
			deepKey(k, x.MapIndex(key))
		}
	case reflect.Struct:
		if x.Type() == timeType && x.CanInterface() {
			t := x.Interface().(time.Time)
			k.int(t.UnixNano())
			_, off := t.Zone()
			k.int(int64(off))
			return
		}
		for i := range x.NumField() {
			deepKey(k, x.Field(i))
		}
	default: // functions, channels: by identity
		k.int(int64(x.Pointer()))
	}
}
