package pages

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/lab"
)

// TestCodeText: the backticked parts of a workbench text are code, escaped like any text; a
// backtick without its pair stays a backtick, and PlainCode drops the pairs' backticks.
func TestCodeText(t *testing.T) {
	for _, c := range []struct{ in, html, plain string }{
		{"dies after `db.apply(job.id)`", "dies after <code>db.apply(job.id)</code>", "dies after db.apply(job.id)"},
		{"`a` then `b<c>`.", "<code>a</code> then <code>b&lt;c&gt;</code>.", "a then b<c>."},
		{"dies before anything", "dies before anything", "dies before anything"},
		{"one ` alone", "one ` alone", "one ` alone"},
		{"`x` and ` one", "<code>x</code> and ` one", "x and ` one"},
		{"", "", ""},
	} {
		var b strings.Builder
		if err := CodeText(c.in).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.html {
			t.Errorf("CodeText(%q) = %q, want %q", c.in, b.String(), c.html)
		}
		if got := PlainCode(c.in); got != c.plain {
			t.Errorf("PlainCode(%q) = %q, want %q", c.in, got, c.plain)
		}
	}
}

// TestCodeAlert: the alert above the handler's mistakes promises a marked line only when a
// mistake has one.
func TestCodeAlert(t *testing.T) {
	for _, c := range []struct {
		v    WorkbenchView
		want string
	}{
		{WorkbenchView{CodeErrors: []CodeErrorView{{Line: 3, Col: 5, Message: "undefined: tx"}}}, "the editor marks its line"},
		{WorkbenchView{CodeErrors: []CodeErrorView{{Message: "the handler is 20,000 bytes long"}}}, "so no line is marked; the form keeps what you wrote"},
		{WorkbenchView{Unread: true, CodeErrors: []CodeErrorView{{Message: "the handler was not read"}}}, "too large for the server to read"},
	} {
		if got := c.v.CodeAlert(); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want it to say %q", c.v.CodeErrors, got, c.want)
		}
	}
	if got := (CodeErrorView{Message: "the handler is 20,000 bytes long"}).Text(); got != "The handler is 20,000 bytes long." {
		t.Errorf("a fault of the whole handler reads %q", got)
	}
	if got := (CodeErrorView{Line: 3, Col: 5, Message: "undefined: tx"}).Text(); got != "Line 3, column 5: undefined: tx" {
		t.Errorf("a mistake at its place reads %q", got)
	}
}

// TestLabResultHeadingCode: the heading of a lab run of a reader's handler names its crash point
// with the handler's code drawn as code.
func TestLabResultHeadingCode(t *testing.T) {
	r := lab.Result{Design: lab.DesignHandler, Jobs: 400, ExactlyOnce: 400, CrashRate: 0.05, Seed: 13,
		Handler: &lab.HandlerResult{CrashPoint: 2, Label: "dies after `queue.ack()`", ModelExactlyOnce: 400}}
	var b strings.Builder
	if err := labResult(NewLabResult(r, Site{})).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "crash point 2 (dies after <code>queue.ack()</code>)") || strings.Contains(b.String(), "`") {
		t.Errorf("the heading does not draw the crash point's code:\n%s", b.String())
	}
}
