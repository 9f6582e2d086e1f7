package rooms

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestParseCode(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ABC123", "ABC123"},
		{"abc123", "ABC123"},
		{"abc-123", "ABC123"},
		{" AB C1 23 ", "ABC123"},
		{"OOIILL", "001111"}, // Crockford: O reads as 0, I and L as 1
		{"oil0il", "011011"},
		{"ABCU23", ""}, // U is not in the alphabet
		{"ABC12", ""},
		{"ABC1234", ""},
		{"ABC12É", ""},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCode(tc.in)
			if tc.want == "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != "code" || !errors.Is(err, ErrInvalid) {
					t.Fatalf("ParseCode(%q) = %q, %v; want a code error", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseCode(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestNewCodeUsesOnlyCrockford(t *testing.T) {
	// Every byte value, so every character the mask can pick is seen.
	src := make([]byte, 256)
	for i := range src {
		src[i] = byte(i)
	}
	r := bytes.NewReader(src)
	seen := map[rune]bool{}
	for range 256 / CodeLength {
		c, err := NewCode(r)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseCode(c); err != nil || back != c {
			t.Fatalf("code %q does not read back: %q, %v", c, back, err)
		}
		for _, ch := range c {
			seen[ch] = true
		}
	}
	if len(seen) != 32 {
		t.Fatalf("saw %d distinct characters, want all 32", len(seen))
	}
	for _, bad := range "ILOU" {
		if seen[bad] {
			t.Fatalf("code used %q", bad)
		}
	}
}

func TestKeys(t *testing.T) {
	a, err := NewKey(randReader())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewKey(randReader())
	for _, tc := range []struct {
		name string
		h    Hash
		key  string
		want bool
	}{
		{"own key", HashKey(a), a, true},
		{"other key", HashKey(a), b, false},
		{"prefix", HashKey(a), a[:len(a)-1], false},
		{"empty", HashKey(a), "", false},
		{"zero hash", Hash{}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.h.Matches(tc.key); got != tc.want {
				t.Fatalf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
	if len(a) != 43 || strings.ContainsAny(a, "+/=") {
		t.Fatalf("key %q is not 32 bytes of URL-safe base64", a)
	}
}
