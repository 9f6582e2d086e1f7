package rooms

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"strings"
	"testing"
)

func randReader() io.Reader { return rand.Reader }

func TestCleanName(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Ada", "Ada"},
		{"trimmed", "  Ada Lovelace \u00a0", "Ada Lovelace"},
		{"inner spaces folded", "Ada    Lovelace", "Ada Lovelace"},
		{"markup stays text", "<b>Bo</b>", "<b>Bo</b>"},
		{"emoji", "Zoë 🦊", "Zoë 🦊"},
		{"32 characters", strings.Repeat("é", 32), strings.Repeat("é", 32)},
		{"empty", "", ""},
		{"only spaces", "   ", ""},
		{"33 characters", strings.Repeat("a", 33), ""},
		{"newline", "Ada\nLovelace", ""},
		{"tab", "Ada\tL", ""},
		{"NUL", "Ada\x00", ""},
		{"bell", "Ada\a", ""},
		{"bidi override", "Ada\u202eecalevol", ""},
		{"invalid UTF-8", "Ada\xff", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CleanName(tc.in)
			if tc.want == "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Field != "name" {
					t.Fatalf("CleanName(%q) = %q, %v; want a name error", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("CleanName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestNameKey(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"Ada", "ADA", true},
		{"ada lovelace", "Ada Lovelace", true},
		{"Zoë", "ZOË", true},
		{"Ada", "Ada2", false},
	} {
		t.Run(tc.a+"/"+tc.b, func(t *testing.T) {
			if got := NameKey(tc.a) == NameKey(tc.b); got != tc.same {
				t.Fatalf("same = %v, want %v", got, tc.same)
			}
		})
	}
}

func TestFriendlyName(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  []byte
		want string
	}{
		{"first of each", []byte{0, 0, 0}, "Amber Badger 10"},
		{"last of each", []byte{31, 31, 89}, "Zesty Yak 99"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FriendlyName(bytes.NewReader(tc.src))
			if err != nil || got != tc.want {
				t.Fatalf("FriendlyName = %q, %v; want %q", got, err, tc.want)
			}
			if c, err := CleanName(got); err != nil || c != got {
				t.Fatalf("friendly name %q is not a clean name: %v", got, err)
			}
		})
	}
}

// TestNamesLookingAlike checks that names a reader cannot tell apart are one seat: invisible
// characters are refused, and full-width or differently cased letters share a key.
func TestNamesLookingAlike(t *testing.T) {
	for _, n := range []string{"bob\u200b", "bo\u2060b", "bo\u00adb", "\u200b\u200b"} {
		if _, err := CleanName(n); err == nil {
			t.Errorf("%q accepted", n)
		}
	}
	if NameKey("Ａｄａ") != NameKey("ada") || NameKey("ADA") != NameKey("ada") {
		t.Errorf("keys differ: %q %q %q", NameKey("Ａｄａ"), NameKey("ADA"), NameKey("ada"))
	}
}

// TestLookAlikesOfAda: every look-alike of "Ada" that issue 18 seated beside the real one is either
// refused as a name or keys as "Ada" (so the store refuses it as taken), and names that merely
// resemble each other in spelling stay apart.
func TestLookAlikesOfAda(t *testing.T) {
	ada := NameKey("Ada")
	for _, n := range []string{"A\u034Fda", "Ada\uFE0F", "\u3164Ada", "Ada\u2800", "\u0410da",
		"Ad\u0430", "ＡＤＡ", "Ada\u200d", "\u2800Ada\u2800"} {
		clean, err := CleanName(n)
		if err == nil && NameKey(clean) != ada {
			t.Errorf("%q: seated as %q with key %q, beside Ada's %q", n, clean, NameKey(clean), ada)
		}
	}
	for _, n := range []string{"Adam", "Ida", "Ada L", "Aba"} {
		if NameKey(n) == ada {
			t.Errorf("%q keys as Ada", n)
		}
	}
}

// TestPlainRefusesInvisibles: a title, note or question with an invisible character (U+200B and
// kin) or a bidirectional override is refused, while other scripts, emoji and wide spaces pass.
func TestPlainRefusesInvisibles(t *testing.T) {
	for _, s := range []string{"Tuesday\u200bgroup", "Tuesday\u2060", "Tue\u202esday", "\ufeffTuesday", "Tue\u00adsday"} {
		if plain(s, 80) {
			t.Errorf("%q passed as plain text", s)
		}
	}
	for _, s := range []string{"Tuesday group", "Вторник 🦊", "Mardi\u00a0soir", "火曜日"} {
		if !plain(s, 80) {
			t.Errorf("%q refused", s)
		}
	}
}

// TestLookAlikesOfCat: the QA pass seated "Cat.", "C a t" and "Ca t" beside Cat; spaces and
// punctuation are left out of the comparison, while a different letter still makes a new name.
func TestLookAlikesOfCat(t *testing.T) {
	cat := NameKey("Cat")
	for _, n := range []string{"Cat.", "C a t", "Ca t", "cat!", "C.A.T.", "Ca-t", "(Cat)", "Cat\u00a0"} {
		clean, err := CleanName(n)
		if err == nil && NameKey(clean) != cat {
			t.Errorf("%q: seated as %q with key %q, beside Cat's %q", n, clean, NameKey(clean), cat)
		}
	}
	for _, n := range []string{"Cats", "Cat 2", "Kat", "Ca"} {
		if NameKey(n) == cat {
			t.Errorf("%q keys as Cat", n)
		}
	}
	if NameKey("...") == NameKey("!!!") {
		t.Errorf(`"..." and "!!!" share a key; punctuation alone should key as itself`)
	}
}

// TestHostIsReserved: a member may not sit in the roster under a name that reads as the host's,
// and the refusal says why; names that merely contain the letters stay free.
func TestHostIsReserved(t *testing.T) {
	for _, n := range []string{"Host", "host", "HOST.", "H o s t", "host (teacher)", "The Host", "Ｈｏｓｔ", "Hоst"} {
		_, err := CleanName(n)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "name" || !strings.Contains(fe.Message, "host") {
			t.Errorf("CleanName(%q) = %v; want a name error about the host", n, err)
		}
	}
	for _, n := range []string{"Ghost", "Hostetler", "Hosta", "Cat"} {
		if _, err := CleanName(n); err != nil {
			t.Errorf("CleanName(%q) = %v; want it seated", n, err)
		}
	}
}
