package rooms

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestHostLinks checks the host link's promises: it hands the host key to the browser that uses
// it, once; never a member's key or a guess at a token; not after HostLinkTTL, a newer link or a
// replaced host key; and the store keeps neither the key nor the token.
func TestHostLinks(t *testing.T) {
	ctx := context.Background()
	st := NewMemStore()
	c := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	svc := NewService(st, Config{Now: c.Now})
	cr, err := svc.CreateRoom(ctx, "Links")
	if err != nil {
		t.Fatal(err)
	}
	id := cr.Room.ID
	stored, _ := st.RoomByID(ctx, id)
	if cr.LinkToken == "" || stored.HostLink.IsZero() || strings.Contains(stored.HostLink.Sealed, cr.HostKey) ||
		strings.Contains(stored.HostLink.Sealed, cr.LinkToken) {
		t.Fatalf("the first host link: token %q, stored %+v", cr.LinkToken, stored.HostLink)
	}
	if _, err := svc.CheckHostLink(ctx, id, cr.LinkToken); err != nil {
		t.Fatalf("checking the first link: %v", err)
	}
	if _, _, err := svc.UseHostLink(ctx, id, cr.HostKey); err == nil {
		t.Fatal("the host key itself works as a link token")
	}
	_, key, err := svc.UseHostLink(ctx, id, cr.LinkToken)
	if err != nil || key != cr.HostKey {
		t.Fatalf("using the first link: %q %v, want the host key", key, err)
	}
	if _, _, err := svc.UseHostLink(ctx, id, cr.LinkToken); !isField(err, "token") {
		t.Fatalf("a link used twice: %v, want a refusal naming the token", err)
	}
	if _, err := svc.CheckHostLink(ctx, id, cr.LinkToken); err == nil {
		t.Fatal("a used link still checks out")
	}

	// Only the host makes links; a newer one replaces an older one; a link expires.
	ada, err := svc.Join(ctx, cr.Room.Code, "Ada")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.NewHostLink(ctx, cr.Room.Code, ada.MemberKey); err == nil {
		t.Fatal("a member made a host link")
	}
	older, _, err := svc.NewHostLink(ctx, cr.Room.Code, cr.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	newer, expires, err := svc.NewHostLink(ctx, cr.Room.Code, cr.HostKey)
	if err != nil || !expires.Equal(c.Now().Add(HostLinkTTL)) {
		t.Fatalf("a new link: %v, expires %v", err, expires)
	}
	if _, _, err := svc.UseHostLink(ctx, id, older); err == nil {
		t.Fatal("a replaced link still works")
	}
	c.add(HostLinkTTL)
	if _, _, err := svc.UseHostLink(ctx, id, newer); !isField(err, "token") {
		t.Fatalf("a link after %v: %v, want a refusal", HostLinkTTL, err)
	}

	// Replacing the host key takes an unused link with it: the link carries the old key.
	link, _, err := svc.NewHostLink(ctx, cr.Room.Code, cr.HostKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RotateHostKey(ctx, cr.Room.Code, cr.HostKey); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.UseHostLink(ctx, id, link); err == nil {
		t.Fatal("a link made before the host key was replaced still works")
	}
}

func isField(err error, field string) bool {
	fe, ok := err.(*FieldError)
	return ok && fe.Field == field
}
