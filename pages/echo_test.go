package pages

import (
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestShownValueStripsControls: a value echoed into a form never carries a control character: the
// NUL of jobs=%00 comes back as U+FFFD, in the field and in the other forms' hidden copies.
func TestShownValueStripsControls(t *testing.T) {
	if got := ShownValue("1\x000\n"); got != "1\uFFFD0\uFFFD" {
		t.Errorf("ShownValue = %q", got)
	}
	r := windowRun()
	r.Raw["jobs"] = "\x00"
	r.Errors = experiments.FieldErrors{{Field: "jobs", Message: `"\x00" is not a number`}}
	html := renderString(t, Experiment(form(testSite(), "/blocks/4", r, []Run{r})))
	if strings.ContainsRune(html, 0) || !strings.Contains(html, `value="`+"\uFFFD"+`"`) {
		t.Errorf("the form echoes a NUL: %q", between(html, `name="jobs"`, ">"))
	}
}

// TestStreamLineEndsWithoutSpace: a refused stream value ends its line with the full stop right
// after the message, not " .".
func TestStreamLineEndsWithoutSpace(t *testing.T) {
	v := ExperimentView{Name: "crash-sweep", DOMID: "exp-crash-sweep", StreamFrom: "exp-assembly",
		Stream: []Field{{Name: "jobs", Label: "Jobs", Value: "99999999999", Error: "99,999,999,999 is out of range"}}}
	html := renderString(t, Experiment(v))
	if !strings.Contains(html, `(99,999,999,999 is out of range)</span>.</span>`) {
		t.Errorf("the stream line: %s", between(html, `<p class="stream">`, "</p>"))
	}
}
