package rooms

import (
	"context"
	"strings"
	"testing"
)

// TestWatchLab: the host records the lab run the room watches, every seat's view carries it and
// the change is announced; a member may not, an id that is not plain text is refused, and a
// closed room takes no more.
func TestWatchLab(t *testing.T) {
	ctx := context.Background()
	var told []string
	f := newFixture(t, Config{Notify: func(_ context.Context, id string) { told = append(told, id) }})
	ada := f.join(t, "Ada")
	run := "0123456789abcdef0123456789abcdef"
	is(t, f.svc.WatchLab(ctx, f.as(t, ada), run), ErrForbidden)
	is(t, f.svc.WatchLab(ctx, f.as(t, f.host), "run\u202e1"), ErrInvalid)
	is(t, f.svc.WatchLab(ctx, f.as(t, f.host), strings.Repeat("a", 65)), ErrInvalid)
	before := len(told)
	if err := f.svc.WatchLab(ctx, f.as(t, f.host), run); err != nil {
		t.Fatal(err)
	}
	if len(told) != before+1 {
		t.Errorf("watching a lab run told the room %d times, want once", len(told)-before)
	}
	for _, key := range []string{ada, f.host} {
		v, err := f.svc.State(ctx, f.as(t, key), nil)
		if err != nil || v.LabRun != run {
			t.Errorf("the view carries lab run %q (%v), want %q", v.LabRun, err, run)
		}
	}
	if v, _ := f.svc.State(ctx, f.as(t, ""), nil); v.LabRun != "" {
		t.Error("nobody's view names the lab run")
	}
	if err := f.svc.CloseRoom(ctx, f.as(t, f.host)); err != nil {
		t.Fatal(err)
	}
	is(t, f.svc.WatchLab(ctx, f.as(t, f.host), ""), ErrRoomClosed)
}
