package rooms

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// MaxNameLength is the longest display name in characters: enough for a first name and a
// surname, short enough for a roster on a phone.
const MaxNameLength = 32

// CleanName trims a display name, folds runs of white space to one space (so "Ada  L" and
// "Ada L" are one name), and checks it: 1 to MaxNameLength characters, plain text. Control
// characters and bidirectional overrides are refused because they can make a name render as
// another one in the roster.
func CleanName(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fieldErr("name", ErrInvalid, "the name is not valid text")
	}
	for _, r := range s {
		if unicode.IsControl(r) || isBidiControl(r) || r == 0x2028 || r == 0x2029 {
			return "", fieldErr("name", ErrInvalid, "the name is one line of plain text")
		}
		// Invisible formatting (zero-width spaces and joiners, soft hyphens, word joiners) would
		// let "bob" and "bo\u200bb" sit side by side, or a removed member come back looking the same.
		if unicode.Is(unicode.Cf, r) {
			return "", fieldErr("name", ErrInvalid, "the name has an invisible character (U+%04X); type it again", r)
		}
	}
	name := strings.Join(strings.Fields(s), " ")
	n := utf8.RuneCountInString(name)
	switch {
	case n == 0:
		return "", fieldErr("name", ErrInvalid, "a name is needed")
	case n > MaxNameLength:
		return "", fieldErr("name", ErrInvalid, "a name has at most %d characters", MaxNameLength)
	}
	return name, nil
}

// NameKey is the form in which two names are compared for uniqueness: "Ada", "ADA" and the
// full-width "Ａｄａ" are the same seat to the people reading the roster (compatibility
// normalisation, then case folding). Stores keep it in a unique column per room.
func NameKey(name string) string {
	return strings.ToLower(strings.ToUpper(norm.NFKC.String(name)))
}

func isBidiControl(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0x200E || r == 0x200F
}

// The friendly names pair an adjective with an animal: easy to say aloud, never rude, and with
// 32 x 32 pairs plus a number there are far more than a room's 100 seats.
var (
	adjectives = [...]string{"Amber", "Brave", "Calm", "Clever", "Cosy", "Daring", "Eager", "Fair",
		"Gentle", "Glad", "Golden", "Happy", "Jolly", "Keen", "Kind", "Lively", "Lucky", "Merry",
		"Mild", "Nimble", "Patient", "Plucky", "Quick", "Quiet", "Rapid", "Shy", "Steady", "Sunny",
		"Swift", "Tidy", "Witty", "Zesty"}
	animals = [...]string{"Badger", "Beaver", "Bison", "Crane", "Dingo", "Dolphin", "Eagle",
		"Falcon", "Ferret", "Gecko", "Heron", "Ibis", "Koala", "Lemur", "Lynx", "Marmot", "Newt",
		"Otter", "Owl", "Panda", "Puffin", "Quokka", "Raven", "Seal", "Sloth", "Stoat", "Swan",
		"Tapir", "Toucan", "Walrus", "Wombat", "Yak"}
)

// FriendlyName draws a name such as "Plucky Otter 42" from r, for a member who would rather not
// think of one. It always passes CleanName.
func FriendlyName(r io.Reader) (string, error) {
	var b [3]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s %d", adjectives[b[0]&31], animals[b[1]&31], 10+int(b[2])%90), nil
}
