package roomstest

// Handler rounds (issue 23): a submission's source is kept as a share under its hash and its
// verdict with the member's one submission per round; what refuses a guess refuses a submission,
// in the same step as the write; a round keeps its reference's verdict and what the projector
// shows.

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"effectivelyonce/rooms"
)

const (
	passing = "def handle(job, queue, db, bus):\n    tx = db.begin()\n    if tx.remember(job.id):\n        tx.apply(job.id)\n    tx.commit()\n    queue.ack()\n"
	failing = "def handle(job, queue, db, bus):\n    db.apply(job.id)\n    queue.ack()\n"
)

// handlerSeed makes a room with n members and one open handler round.
func handlerSeed(t *testing.T, s rooms.Store, n int) (rooms.Room, []rooms.Member) {
	t.Helper()
	r, ms := seed(t, s, n) // round 1 asks for a number
	_, err := s.AddRound(context.Background(), rooms.Round{RoomID: r.ID, State: rooms.RoundOpen, OpenedAt: t0,
		Question: rooms.Question{Kind: rooms.KindHandler, Template: "ack-after-work", Reference: "dedup-in-tx",
			Params: "key_window=1000&max_delay=2000", Text: "Write a handler that survives"}}, 100)
	must(t, err)
	return r, ms
}

func submission(r rooms.Room, m rooms.Member, src string, v rooms.Verdict, at time.Time) rooms.Submission {
	return rooms.Submission{RoomID: r.ID, Seq: 2, MemberID: m.ID, Hash: rooms.ShareHash(src), Verdict: v, At: at}
}

func testSubmissions(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := handlerSeed(t, s, 3)
	events := int64(4)
	good := rooms.Verdict{Points: 5, Survived: 5, Survives: true}
	bad := rooms.Verdict{Points: 3, Survived: 2, Lost: 0, Duplicated: 394, Events: &events}
	must(t, s.PutSubmission(ctx, submission(r, ms[0], failing, bad, t0), failing))
	must(t, s.PutSubmission(ctx, submission(r, ms[1], failing, bad, t0.Add(time.Second)), failing))
	// A resubmission replaces the member's first.
	must(t, s.PutSubmission(ctx, submission(r, ms[0], passing, good, t0.Add(2*time.Second)), passing))
	subs, err := s.Submissions(ctx, r.ID)
	must(t, err)
	if len(subs) != 2 {
		t.Fatalf("%d submissions kept, want one per member: %+v", len(subs), subs)
	}
	b, a := subs[0], subs[1] // by time: Bob's, then Ada's second
	if b.MemberID != ms[1].ID || b.Hash != rooms.ShareHash(failing) || b.Seq != 2 || !b.At.Equal(t0.Add(time.Second)) ||
		b.Verdict.Points != 3 || b.Verdict.Survived != 2 || b.Verdict.Duplicated != 394 || b.Verdict.Survives ||
		b.Verdict.Events == nil || *b.Verdict.Events != 4 {
		t.Errorf("the failing submission read back as %+v (events %v)", b, b.Verdict.Events)
	}
	if a.MemberID != ms[0].ID || a.Hash != rooms.ShareHash(passing) || a.Verdict.Events != nil || !a.Verdict.Survives || a.Verdict.Survived != 5 {
		t.Errorf("the resubmission read back as %+v", a)
	}
	for src, want := range map[string]string{rooms.ShareHash(passing): passing, rooms.ShareHash(failing): failing} {
		got, err := s.Share(ctx, src)
		must(t, err)
		if got != want {
			t.Errorf("share %s holds %q, want %q", src, got, want)
		}
	}
	_, err = s.Share(ctx, "nosuchhash00")
	wantErr(t, err, rooms.ErrNotFound)

	// The round keeps its reference's verdict and what the projector shows.
	_, err = s.UpdateRound(ctx, r.ID, 2, func(rd *rooms.Round) error {
		rd.State, rd.Reference, rd.Shown = rooms.RoundRevealed, &good, ms[1].ID
		return nil
	})
	must(t, err)
	rs, err := s.Rounds(ctx, r.ID)
	must(t, err)
	rd := rs[1]
	if rd.Reference == nil || *rd.Reference != good || rd.Shown != ms[1].ID || rd.Question.Kind != rooms.KindHandler ||
		rd.Question.Template != "ack-after-work" || rd.Question.Reference != "dedup-in-tx" || rd.Question.Params != "key_window=1000&max_delay=2000" {
		t.Errorf("the handler round read back as %+v (reference %v)", rd, rd.Reference)
	}
	if rs[0].Reference != nil || rs[0].Shown != "" {
		t.Errorf("a number round read back with a reference %v or a shown %q", rs[0].Reference, rs[0].Shown)
	}
}

// testSubmissionRefused: what refuses a guess refuses a submission in the store's own step, and
// nothing of a refused one is kept, its share included.
func testSubmissionRefused(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	r, ms := handlerSeed(t, s, 3)
	v := rooms.Verdict{Points: 2, Survived: 1}
	src := func(i int) string { return failing + "# " + string(rune('a'+i)) + "\n" }
	_, err := s.UpdateMember(ctx, r.ID, ms[2].ID, func(m *rooms.Member) error { m.Kicked = true; return nil })
	must(t, err)
	wantErr(t, s.PutSubmission(ctx, submission(r, ms[2], src(0), v, t0), src(0)), rooms.ErrKicked)
	// A round that asks for a number takes no handler.
	onNumber := submission(r, ms[0], src(1), v, t0)
	onNumber.Seq = 1
	err = s.PutSubmission(ctx, onNumber, src(1))
	wantErr(t, err, rooms.ErrInvalid)
	wantField(t, err, "seq")
	missing := submission(r, ms[0], src(2), v, t0)
	missing.Seq = 9
	wantErr(t, s.PutSubmission(ctx, missing, src(2)), rooms.ErrNotFound)
	// A countdown is judged by the submission's own time.
	deadline := t0.Add(time.Minute)
	_, err = s.UpdateRound(ctx, r.ID, 2, func(rd *rooms.Round) error { rd.Seconds, rd.Deadline = 60, deadline; return nil })
	must(t, err)
	must(t, s.PutSubmission(ctx, submission(r, ms[0], src(3), v, deadline.Add(-time.Microsecond)), src(3)))
	err = s.PutSubmission(ctx, submission(r, ms[1], src(4), v, deadline), src(4))
	wantErr(t, err, rooms.ErrTimeUp)
	wantField(t, err, "round")
	_, err = s.UpdateRound(ctx, r.ID, 2, func(rd *rooms.Round) error { rd.Deadline, rd.State = time.Time{}, rooms.RoundLocked; return nil })
	must(t, err)
	err = s.PutSubmission(ctx, submission(r, ms[1], src(5), v, t0), src(5))
	wantErr(t, err, rooms.ErrRoundState)
	wantField(t, err, "round")
	_, err = s.UpdateRoom(ctx, r.ID, func(r *rooms.Room) error { r.Closed = true; return nil })
	must(t, err)
	wantErr(t, s.PutSubmission(ctx, submission(r, ms[1], src(6), v, t0), src(6)), rooms.ErrRoomClosed)

	subs, err := s.Submissions(ctx, r.ID)
	must(t, err)
	if len(subs) != 1 || subs[0].MemberID != ms[0].ID || subs[0].Hash != rooms.ShareHash(src(3)) {
		t.Fatalf("refused submissions were kept: %+v", subs)
	}
	for _, i := range []int{0, 1, 2, 4, 5, 6} {
		if _, err := s.Share(ctx, rooms.ShareHash(src(i))); !errors.Is(err, rooms.ErrNotFound) {
			t.Errorf("the share of refused submission %d was kept (%v)", i, err)
		}
	}
}

// testSubmissionRush is a class submitting at once, many the same handler, while the host locks:
// each submission lands wholly before the lock or is refused, and a source submitted by many is
// one share.
func testSubmissionRush(t *testing.T, s rooms.Store) {
	ctx := context.Background()
	const n = 20
	r, ms := handlerSeed(t, s, n)
	v := rooms.Verdict{Points: 5, Survived: 5, Survives: true}
	accepted := make([]bool, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Go(func() {
			<-start
			err := s.PutSubmission(ctx, submission(r, m, passing, v, t0), passing)
			switch {
			case err == nil:
				accepted[i] = true
			case !errors.Is(err, rooms.ErrRoundState):
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		<-start
		if _, err := s.UpdateRound(ctx, r.ID, 2, func(rd *rooms.Round) error { rd.State = rooms.RoundLocked; return nil }); err != nil {
			t.Error(err)
		}
	})
	close(start)
	wg.Wait()
	subs, err := s.Submissions(ctx, r.ID)
	must(t, err)
	want := 0
	for _, a := range accepted {
		if a {
			want++
		}
	}
	if len(subs) != want {
		t.Fatalf("%d submissions stored, %d accepted", len(subs), want)
	}
	for _, sub := range subs {
		if !accepted[slicesIndex(ms, sub.MemberID)] {
			t.Fatalf("a refused submission by %s was stored", sub.MemberID)
		}
	}
	if got, err := s.Share(ctx, rooms.ShareHash(passing)); want > 0 && (err != nil || got != passing) {
		t.Fatalf("the source every accepted submission shares reads %q, %v", got, err)
	}
}
