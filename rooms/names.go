package rooms

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// MaxNameLength is the longest display name in characters: enough for a first name and a
// surname, short enough for a roster on a phone.
const MaxNameLength = 32

// CleanName enforces the PRECIS Nickname profile (RFC 8266, golang.org/x/text/secure/precis) on
// a display name: spaces of every width become one ASCII space, runs of them fold to one and the
// ends are trimmed (so "Ada  L" and "Ada L" are one name), compatibility forms are normalised
// (NFKC), and the characters the profile's class refuses are refused here, naming the first: control
// characters, bidirectional overrides, and the default-ignorable ones that draw nothing (zero-width
// spaces and joiners, variation selectors, the combining grapheme joiner, the Hangul fillers), which
// would let "Ada" and "Ada" with an invisible tail sit side by side in the roster.
func CleanName(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fieldErr("name", ErrInvalid, "the name is not valid text")
	}
	for _, r := range s {
		if !nameRunes.Contains(r) && !unicode.Is(unicode.Zs, r) {
			return "", fieldErr("name", ErrInvalid, "the name has a character that names may not hold (U+%04X); type it again", r)
		}
	}
	name, err := precis.Nickname.String(strings.Map(blankAsSpace, s))
	n := utf8.RuneCountInString(name)
	switch {
	case err != nil || n == 0:
		return "", fieldErr("name", ErrInvalid, "a name is needed")
	case n > MaxNameLength:
		return "", fieldErr("name", ErrInvalid, "a name has at most %d characters", MaxNameLength)
	case reservedName(name):
		return "", fieldErr("name", ErrInvalid, "%q reads as the room's host; members choose a name of their own", name)
	}
	return name, nil
}

// reservedName reports whether a member's name would read as the host's: "Host", "HOST.",
// "H o s t", "host (teacher)" or "the host" beside the roster's host would let a member speak
// with the host's voice. A word that only contains the letters ("Ghost", "Hostetler") stays free.
func reservedName(name string) bool {
	host := NameKey("host")
	if NameKey(name) == host {
		return true
	}
	for _, w := range strings.FieldsFunc(name, ignoredInKey) {
		if NameKey(w) == host {
			return true
		}
	}
	return false
}

// ignoredInKey is what a reader's eye passes over when telling names apart: spaces and
// punctuation, so that "Cat.", "C a t" and "Ca-t" are all "Cat".
func ignoredInKey(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Z, unicode.P)
}

// dropIgnored removes what ignoredInKey passes over, unless nothing would be left: a name of
// punctuation alone ("...") keys as itself rather than as the empty string every such name shares.
func dropIgnored(s string) string {
	t := strings.Map(func(r rune) rune {
		if ignoredInKey(r) {
			return -1
		}
		return r
	}, s)
	if t == "" {
		return s
	}
	return t
}

// nameRunes is the string class of the Nickname profile: every character a name may hold.
var nameRunes = precis.Nickname.Allowed()

// blankAsSpace reads U+2800 BRAILLE PATTERN BLANK as a space. It draws nothing, yet it is neither
// white space nor default-ignorable in Unicode, so PRECIS keeps it (it is a symbol, as emoji are)
// and no confusables entry maps it: without this, "Ada" followed by one would look like "Ada" and
// be a different name.
func blankAsSpace(r rune) rune {
	if r == '\u2800' {
		return ' '
	}
	return r
}

// NameKey is the form in which two names are compared for uniqueness: the Nickname profile's
// comparison key (case folded, so "Ada", "ADA" and the full-width "Ａｄａ" are one seat), then its
// confusable skeleton (Unicode UTS #39, so the Cyrillic "Аda" and the Latin "Ada", or "rn" and "m",
// are one seat too), with spaces and punctuation left out before and after the skeleton (so
// "Cat.", "C a t" and "Ca t" sit on Cat's seat): what matters is what the people reading the roster
// see. Stores keep it in a unique column per room, and bring stored keys in line when this
// changes; a name that is no name (CleanName refuses it) keys as itself.
func NameKey(name string) string {
	key, err := precis.Nickname.CompareKey(strings.Map(blankAsSpace, name))
	if err != nil {
		key = name
	}
	return dropIgnored(norm.NFC.String(confusables.Skeleton(dropIgnored(key))))
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
