package content

import (
	"strings"
	"testing"
)

// The tests of this file hold what issue 19 asked of the prose, as a new reader and a teacher of
// distributed systems read it against the two source documents.

// TestQuestionsComeBeforeTheirAnswers (issue 19, item 19): a "before you look" question must be
// asked before the experiment whose table answers it, or the reader has already looked.
func TestQuestionsComeBeforeTheirAnswers(t *testing.T) {
	for _, e := range Contents() {
		src, err := Files.ReadFile(e.Slug + ".md")
		if err != nil {
			continue
		}
		for _, sec := range strings.Split(string(src), "\n## ")[1:] {
			ask := strings.Index(strings.ToLower(sec), "before you look")
			if ask < 0 {
				continue
			}
			if run := strings.Index(sec, "\n::: experiment "); run >= 0 && run < ask {
				head, _, _ := strings.Cut(sec, "\n")
				t.Errorf("%s, section %q: the question \"before you look\" comes after the experiment that answers it", e.Slug, head)
			}
		}
	}
}

// TestProseTablesBecomeCardsOnAPhone (issue 19, item 15): a prose table too wide for a phone's
// column is marked to show its rows as cards, each body cell carrying its column's name, so no
// column is cut mid-word behind a scroll; a narrow one stays a table.
func TestProseTablesBecomeCardsOnAPhone(t *testing.T) {
	p, _ := loadBook(t).Page("semantics")
	var html string
	for _, part := range p.Parts {
		html += part.HTML
	}
	if !strings.Contains(html, `<table class="stack">`) || !strings.Contains(html, `<td data-label="Where the ack goes">`) {
		t.Errorf("the three semantics' table is not marked for cards:\n%.600s", html[strings.Index(html, "<table"):])
	}
	if StacksOnPhone([][]string{{"window", "escaped"}, {"1,000", "195"}}, true, nil) {
		t.Error("a two-column table of short numbers fits a phone, yet would become cards")
	}
	if !StacksOnPhone([][]string{{"design", "lost", "exactly once", "duplicated", "correct"}, {"dedup-non-transactional", "0", "19,602", "398", "no"}}, true, nil) {
		t.Error("the assembly's table does not fit a phone, yet would stay a table")
	}
}
