package pages

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// "Hide results until I guess": a reader who opts in sees each experiment's headline number
// hidden behind a one-number guess, then the result with their guess beside it. Both the choice
// and the guesses are kept in the reader's browser as cookies (app.js writes them), because the
// server has to know them before the first paint: a block whose result is hidden is drawn
// hidden, and a block already guessed is drawn with its verdict, so nothing flashes before script
// runs and nothing runs inline under the CSP. localStorage would leave the server drawing every
// result and script hiding it afterwards.

// The cookies app.js writes and the notebook reads: GuessOptInCookie is "on" while the reader
// hides results; GuessesCookie holds their guesses, "key:value" pairs joined by "|", newest last.
const (
	GuessOptInCookie = "eo_predict"
	GuessesCookie    = "eo_guesses"
)

// maxGuesses bounds the guesses read from the cookie (app.js keeps the newest 40): a cookie
// edited by hand cannot make the server read more.
const maxGuesses = 60

// Guessing is a reader's "hide results until I guess" as their cookies say it: whether it is on,
// and the guesses they have made, by key (GuessKey). The zero value is off.
type Guessing struct {
	On      bool
	guesses map[string]float64
}

// ReadGuessing reads the two cookies' values; anything malformed in them is skipped, never an
// error, since a cookie is the browser's to keep and the page must draw whatever it holds.
func ReadGuessing(optIn, guesses string) Guessing {
	g := Guessing{On: optIn == "on"}
	if !g.On {
		return g
	}
	for i, pair := range strings.Split(guesses, "|") {
		if i >= maxGuesses {
			break
		}
		key, raw, ok := strings.Cut(pair, ":")
		if !ok || !isGuessKey(key) {
			continue
		}
		v, ok := cookieGuess(raw)
		if !ok {
			continue
		}
		if g.guesses == nil {
			g.guesses = map[string]float64{}
		}
		g.guesses[key] = v
	}
	return g
}

// Guess is the reader's guess for key, if they made one.
func (g Guessing) Guess(key string) (float64, bool) {
	v, ok := g.guesses[key]
	return v, ok
}

// cookieGuess reads a guess as app.js writes it (JavaScript's String of a number: 1200, 0.5,
// 1e+21): digits, a point and an exponent, a count of 0 or more.
func cookieGuess(s string) (float64, bool) {
	if s == "" || len(s) > 32 || strings.Trim(s, "0123456789.e+-") != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// GuessKey names the guess of a headline on a run: the experiment, its parameters' fingerprint,
// and the count and its point, hashed to 12 hex digits that a cookie carries as they are. A guess
// holds for the run it was made on (a permalink reloaded asks nothing again), on any page that
// asks the same question; a rerun on other parameters, or another page's row, asks afresh.
func GuessKey(experiment, paramsHash string, c experiments.Count) string {
	sum := sha256.Sum256([]byte(experiment + "\x00" + paramsHash + "\x00" + c.Point + "\x00" + c.Name))
	return hex.EncodeToString(sum[:6])
}

func isGuessKey(s string) bool {
	if len(s) != 12 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// GuessView is a block's part of "hide results until I guess": the headline's question and unit,
// the measured value (which app.js compares a guess with), and the state the reader's cookies
// put the block in.
type GuessView struct {
	Key      string
	Question string
	Unit     string
	// Measured is the value as the verdict writes it ("2,448"); Digits is it as a number for
	// app.js ("2448").
	Measured string
	Digits   string
	// Pending says the reader hides results and has not guessed this run: the block draws its
	// result hidden behind the question (under script; without script a stylesheet shows it).
	Pending bool
	// Verdict is the reader's guess beside the measurement, when they guessed this run.
	Verdict string
}

// newGuessView is the guess part of a block whose run's headline is h.
func newGuessView(g Guessing, experiment, paramsHash string, h present.Headline) *GuessView {
	v := &GuessView{
		Key: GuessKey(experiment, paramsHash, h.Count), Question: h.Question, Unit: h.Unit,
		Measured: h.Measured, Digits: strconv.FormatFloat(h.Value, 'f', -1, 64),
	}
	if !g.On {
		return v
	}
	if guess, ok := g.Guess(v.Key); ok {
		v.Verdict = present.GuessVerdict(guess, h.Value)
	} else {
		v.Pending = true
	}
	return v
}

// AfterView is prose that discusses results (a content.MarkerAfter part) as the page draws it:
// hidden together with those results while they are hidden, so that the text beside a block that
// waits for a guess does not state the number the guess asks for.
type AfterView struct {
	HTML string
	// Of are the element ids of the blocks whose results the prose discusses; app.js hides and
	// shows the prose with them after a guess, a rerun or the switch.
	Of []string
	// Pending says one of those results waits for the reader's guess; Sealed, that one waits for
	// the reveal of a round of their study room, and the prose is then left out (HTML is "").
	Pending bool
	Sealed  bool
}

// After is the view of the page's after part: its prose, hidden while any result it discusses is.
func (v ArticleView) After(part content.Part) AfterView {
	a := AfterView{HTML: part.HTML}
	for _, name := range part.Names() {
		a.Of = append(a.Of, DOMID(name))
		run, ok := v.Runs[name]
		if !ok {
			continue
		}
		a.Pending = a.Pending || (run.Guess != nil && run.Guess.Pending)
		a.Sealed = a.Sealed || run.Sealed != nil
	}
	if a.Sealed {
		// Left out, not only hidden: the prose states the numbers a study room's round asks for
		// (block 4's says how many duplicates escape at a window of 1,000), and a member could read
		// them in the page's source.
		a.HTML = ""
	}
	return a
}
