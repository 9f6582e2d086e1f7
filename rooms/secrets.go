package rooms

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"io"
	"strings"
)

// CodeLength is the number of characters in a join code: 30 bits, short enough to read aloud
// and type on a phone, while a code only opens a join form (names and values need a key).
const CodeLength = 6

// crockford is Crockford's base32 alphabet: no I, L, O or U, so a code read off a projector
// cannot be misread as another code.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// Hash is the SHA-256 of a secret. Stores keep only this, so a leaked database does not hand out
// host links or seats.
type Hash [sha256.Size]byte

// HashKey hashes a key for storage or lookup.
func HashKey(key string) Hash { return sha256.Sum256([]byte(key)) }

// Matches reports whether key hashes to h, in constant time so that response timing says nothing
// about how much of a guessed key was right.
func (h Hash) Matches(key string) bool {
	k := HashKey(key)
	return subtle.ConstantTimeCompare(h[:], k[:]) == 1
}

// MatchesHash reports whether k, a key's HashKey, is h, in constant time as Matches: for a caller
// that hashed the key once and compares it at every change (a stream).
func (h Hash) MatchesHash(k Hash) bool { return subtle.ConstantTimeCompare(h[:], k[:]) == 1 }

// IsZero reports whether h was never set; a zero hash must never match anything.
func (h Hash) IsZero() bool { return h == Hash{} }

// NewCode draws a join code from r (crypto/rand.Reader in production). 256 is a multiple of 32,
// so masking a byte keeps every character equally likely.
func NewCode(r io.Reader) (string, error) {
	var b [CodeLength]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	for i := range b {
		b[i] = crockford[b[i]&31]
	}
	return string(b[:]), nil
}

// ParseCode reads a join code the way Crockford's spec asks a reader to: case does not matter,
// hyphens and spaces are ignored, O reads as 0 and I or L as 1. It answers the canonical form, or
// a FieldError for "code".
func ParseCode(s string) (string, error) {
	var b strings.Builder
	for _, c := range strings.ToUpper(s) {
		switch {
		case c == '-' || c == ' ':
			continue
		case c == 'O':
			c = '0'
		case c == 'I' || c == 'L':
			c = '1'
		}
		if c > 127 || !strings.ContainsRune(crockford, c) {
			return "", fieldErr("code", ErrInvalid, "a join code uses only digits and letters other than U")
		}
		b.WriteRune(c)
	}
	if b.Len() != CodeLength {
		return "", fieldErr("code", ErrInvalid, "a join code has %d characters", CodeLength)
	}
	return b.String(), nil
}

// NewKey draws a secret for a host link or a member seat: 32 random bytes, base64url without
// padding so it survives URLs and cookies unescaped.
func NewKey(r io.Reader) (string, error) {
	var b [32]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// newID draws an identifier for a room, member or pin. Random ids need no coordination with
// the store (no RETURNING, no sequence) and do not reveal how many rooms exist.
func newID(r io.Reader) (string, error) {
	var b [12]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}
