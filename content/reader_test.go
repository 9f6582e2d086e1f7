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
