package rooms

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"time"
)

// A host link lets the host carry the room to another browser without the host key ever being in
// a URL (where a proxy's access log would keep it) or being set by a GET (which a page elsewhere
// could make a victim's browser send: a login as host of the attacker's room). The link carries a
// token that works once, for HostLinkTTL; opening it asks the visitor to confirm, and only that
// confirmation, a same-origin POST, hands the browser the host key.
//
// The store never keeps the host key, only its hash, so the key the confirmation hands over is
// kept sealed under the token: AES-GCM with a key derived from the token. Without the token the
// sealed key is noise, and using the link clears it.

// HostLinkTTL is how long a host link works: long enough to open it on another device now, short
// enough that one found later in a log or a chat is worthless.
const HostLinkTTL = 30 * time.Minute

// HostLink is a room's one unused host link: the hash of its token, the host key sealed under the
// token, and when it stops working. The zero value is no link.
type HostLink struct {
	TokenHash Hash
	Sealed    string // base64url of the AES-GCM nonce and box
	Expires   time.Time
}

// IsZero reports whether there is no link.
func (l HostLink) IsZero() bool { return l.TokenHash.IsZero() }

// errHostLink refuses a link that is wrong, used, replaced or too old; the message says all four,
// since telling them apart would tell a guesser which tokens once existed.
var errHostLink = fieldErr("token", ErrForbidden,
	"this host link is not valid: a link works once, for %d minutes, and a newer one replaces it; make a new one from the room's settings",
	int(HostLinkTTL/time.Minute))

// sealingKey derives the AES key that seals the host key under token. The token is 32 random
// bytes, so HKDF needs no salt; the info string keeps this key apart from the token's hash.
func sealingKey(token string) ([]byte, error) {
	return hkdf.Key(sha256.New, []byte(token), nil, "effectively-once host link", 32)
}

func gcmFor(token string) (cipher.AEAD, error) {
	k, err := sealingKey(token)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(k)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// newHostLink makes a link for hostKey: a fresh token and the key sealed under it.
func newHostLink(r io.Reader, hostKey string, now time.Time) (HostLink, string, error) {
	token, err := NewKey(r)
	if err != nil {
		return HostLink{}, "", err
	}
	aead, err := gcmFor(token)
	if err != nil {
		return HostLink{}, "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := io.ReadFull(r, nonce); err != nil {
		return HostLink{}, "", err
	}
	box := aead.Seal(nonce, nonce, []byte(hostKey), nil)
	return HostLink{TokenHash: HashKey(token), Sealed: base64.RawURLEncoding.EncodeToString(box), Expires: now.Add(HostLinkTTL)}, token, nil
}

// open answers the host key sealed in l, if token is l's and l is still good at now.
func (l HostLink) open(token string, now time.Time) (string, error) {
	if l.IsZero() || token == "" || !l.TokenHash.Matches(token) || !now.Before(l.Expires) {
		return "", errHostLink
	}
	box, err := base64.RawURLEncoding.DecodeString(l.Sealed)
	if err != nil {
		return "", err
	}
	aead, err := gcmFor(token)
	if err != nil {
		return "", err
	}
	if len(box) < aead.NonceSize() {
		return "", errors.New("rooms: a sealed host key is too short")
	}
	key, err := aead.Open(nil, box[:aead.NonceSize()], box[aead.NonceSize():], nil)
	if err != nil {
		return "", err
	}
	return string(key), nil
}

// NewHostLink makes a new host link for the room, to open it as host on another device; it
// replaces an unused earlier one. The caller must be the host: their key is what the link hands on.
func (s *Service) NewHostLink(ctx context.Context, host Caller) (token string, expires time.Time, err error) {
	if err := host.may(AsHost); err != nil {
		return "", time.Time{}, err
	}
	link, token, err := newHostLink(s.cfg.Rand, host.key, s.cfg.Now())
	if err != nil {
		return "", time.Time{}, err
	}
	if _, err := s.store.UpdateRoom(ctx, host.Room.ID, func(r *Room) error {
		if !r.HostKeyHash.Matches(host.key) { // replaced meanwhile: the link would hand on a dead key
			return ErrForbidden
		}
		r.HostLink = link
		return nil
	}); err != nil {
		return "", time.Time{}, err
	}
	return token, link.Expires, nil
}

// CheckHostLink answers whether a host link of room r (as the request read it) still works,
// without using it: the confirmation page shows the room's title before anything changes.
// UseHostLink decides for good, in the store's step.
func (s *Service) CheckHostLink(r Room, token string) error {
	if !r.HostLink.IsZero() && r.HostLink.TokenHash.Matches(token) && s.cfg.Now().Before(r.HostLink.Expires) {
		return nil
	}
	return errHostLink
}

// UseHostLink uses a host link once: it answers the host key and forgets the link, in one store
// update, so that two browsers confirming the same link at once cannot both become host.
func (s *Service) UseHostLink(ctx context.Context, roomID, token string) (Room, string, error) {
	var key string
	now := s.cfg.Now()
	r, err := s.store.UpdateRoom(ctx, roomID, func(r *Room) error {
		k, err := r.HostLink.open(token, now)
		if err != nil {
			return err
		}
		key, r.HostLink = k, HostLink{}
		return nil
	})
	if err != nil {
		return Room{}, "", err
	}
	return r, key, nil
}

// SeatHosts marks the member whose key is memberKey as hosting room r, for a browser that held a
// seat and has just become the host through a host link (hostKey, which must be the room's): the
// seat stays, with its answers, but the host no longer waits for it. A key that is no seat of the
// room changes nothing.
func (s *Service) SeatHosts(ctx context.Context, r Room, hostKey, memberKey string) error {
	if r.HostKeyHash.IsZero() || !r.HostKeyHash.Matches(hostKey) {
		return ErrForbidden
	}
	m, err := s.store.MemberByTokenHash(ctx, r.ID, HashKey(memberKey))
	if errors.Is(err, ErrNotFound) || err == nil && (!m.TokenHash.Matches(memberKey) || m.Kicked || m.Hosting) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := s.store.UpdateMember(ctx, r.ID, m.ID, func(m *Member) error { m.Hosting = true; return nil }); err != nil {
		return err
	}
	s.changed(ctx, r.ID)
	return nil
}
