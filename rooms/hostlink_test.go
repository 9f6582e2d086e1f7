package rooms

import (
	"context"
	"strings"
	"testing"
)

// TestHostLinks checks the host link's promises: it hands the host key to the browser that uses
// it, once; never a member's key or a guess at a token; not after HostLinkTTL, a newer link or a
// replaced host key; and the store keeps neither the key nor the token.
func TestHostLinks(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, Config{})
	svc, st, cr, c := f.svc, f.store, f.created, f.clock
	id := cr.Room.ID
	stored, _ := st.RoomByID(ctx, id)
	if cr.LinkToken == "" || stored.HostLink.IsZero() || strings.Contains(stored.HostLink.Sealed, cr.HostKey) ||
		strings.Contains(stored.HostLink.Sealed, cr.LinkToken) {
		t.Fatalf("the first host link: token %q, stored %+v", cr.LinkToken, stored.HostLink)
	}
	if err := svc.CheckHostLink(f.room(t), cr.LinkToken); err != nil {
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
	if err := svc.CheckHostLink(f.room(t), cr.LinkToken); err == nil {
		t.Fatal("a used link still checks out")
	}

	// Only the host makes links; a newer one replaces an older one; a link expires.
	ada := f.join(t, "Ada")
	if _, _, err := svc.NewHostLink(ctx, f.as(t, ada)); err == nil {
		t.Fatal("a member made a host link")
	}
	if _, _, err := svc.NewHostLink(ctx, Caller{Room: f.room(t), Role: AsHost}); err == nil {
		t.Fatal("a caller put together by hand made a host link")
	}
	older, _, err := svc.NewHostLink(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	newer, expires, err := svc.NewHostLink(ctx, f.as(t, f.host))
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

	// Replacing the host key takes an unused link with it: the link carries the old key. The host
	// RotateHostKey answers holds the new key, and makes links that hand it on.
	link, _, err := svc.NewHostLink(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	host, fresh, err := svc.RotateHostKey(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.UseHostLink(ctx, id, link); err == nil {
		t.Fatal("a link made before the host key was replaced still works")
	}
	link, _, err = svc.NewHostLink(ctx, host)
	if err != nil {
		t.Fatalf("a link from the host RotateHostKey answered: %v", err)
	}
	if _, key, err := svc.UseHostLink(ctx, id, link); err != nil || key != fresh {
		t.Fatalf("the new link handed on %q, %v; want the new key", key, err)
	}
}

func isField(err error, field string) bool {
	fe, ok := err.(*FieldError)
	return ok && fe.Field == field
}
