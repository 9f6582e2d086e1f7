package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"effectivelyonce/workbench"
)

func runCheck(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := Check(t.Context(), args, &out, testChild)
	return out.String(), err
}

func TestCLICheck(t *testing.T) {
	out, err := runCheck(t, "template:ack-after-work")
	if err != ErrSilent {
		t.Fatalf("a breaking handler must exit 1: err %v\n%s", err, out)
	}
	for _, want := range []string{"breaks at 1 of 3 crash points", "dies after `db.apply(job.id)`", "398", "19,602", "BREAKS",
		"Job 16 was applied twice", "smallest failing case", "-jobs 17 -crash_point 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}

	out, err = runCheck(t, "template:dedup-in-tx", "-jobs", "2,000", "-format", "json")
	if err != nil {
		t.Fatalf("a surviving handler exits 0: %v\n%s", err, out)
	}
	var got struct {
		Verdict workbench.Verdict `json:"verdict"`
		Points  []struct {
			CrashPoint int   `json:"crash_point"`
			Lost       int64 `json:"lost"`
			Duplicated int64 `json:"duplicated"`
			Deliveries int64 `json:"deliveries"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if !got.Verdict.Survives || len(got.Points) != 6 || got.Points[4].Deliveries <= 2000 {
		t.Errorf("json %+v", got)
	}

	out, err = runCheck(t, "template:dual-write-db-first", "-world", "producer", "-format=csv")
	if err != ErrSilent || !strings.HasPrefix(out, "# check=template:dual-write-db-first\r\n# jobs=20000\r\n") ||
		!strings.Contains(out, "\r\ncrash_point,label,failed_requests,exactly_once_jobs,duplicated_jobs,deliveries,events_lost,events_phantom,events_duplicated,extra_events,survives\r\n") ||
		!strings.Contains(out, "\r\nas drawn,") {
		t.Errorf("csv err %v:\n%s", err, out)
	}

	// The producer's world: a request that crashed before its change committed failed in front
	// of its caller, so the outbox loses nothing, says so in its row, and exits 0.
	out, err = runCheck(t, "template:outbox", "-world", "producer")
	if err != nil || !strings.Contains(out, "survives: no event is lost or phantom") || !strings.Contains(out, "failed  exactly once") ||
		!regexp.MustCompile(`as drawn .*\s406\s+19,594\s`).MatchString(out) {
		t.Errorf("the outbox in the producer's world: err %v\n%s", err, out)
	}
}

func TestCLICheckErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "handler.star")
	if err := os.WriteFile(bad, []byte("def handle(job, queue, db, bus)\n    queue.ack()\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unclosed := filepath.Join(dir, "unclosed.star")
	if err := os.WriteFile(unclosed, []byte("def handle(job, queue, db, bus):\n    db.apply(job.id\n    queue.ack()\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A fault of the whole handler has no line: the message follows the file's name after a
	// colon and a space, not glued to it where a line number would be.
	nohandle := filepath.Join(dir, "nohandle.star")
	if err := os.WriteFile(nohandle, []byte("def other():\n    pass\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name a handler file"},
		{[]string{"template:nope"}, `no template "nope"`},
		{[]string{filepath.Join(dir, "missing.star")}, "no such file"},
		{[]string{bad}, "handler.star:1:32: got newline, want ':'"},
		{[]string{unclosed}, "unclosed.star:2:13: this '(' is never closed (the parser noticed at line 3, column 10: got identifier, want ',')"},
		{[]string{nohandle}, "nohandle.star: the handler defines no function handle"},
		{[]string{"template:outbox", "-world", "producer", "-crash_point", "3"}, "-crash_point: 3 is not a crash point of the producer's world"},
		{[]string{"template:ack-after-work", "-only_crash", "17"}, "-only_crash: job 17 does not crash in this stream"},
		{[]string{"template:ack-after-work", "-crash_point", "many"}, `-crash_point: "many" is not a number`},
		{[]string{"template:ack-after-work", "-window", "5"}, "-window: a check has no parameter of this name"},
		{[]string{"template:ack-after-work", "-format", "xml"}, "-format must be"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := runCheck(t, tc.args...)
			if err == nil || !strings.Contains(err.Error()+out, tc.want) {
				t.Errorf("err %v out %q, want %q", err, out, tc.want)
			}
		})
	}
}

// TestCodeAt: a handler's mistake reads as a compiler's, "file:line:col: message", and one of
// the whole handler, which has no line, keeps its space after the file's name ("site lab" once
// printed "biglist.star:the handler ran out of memory").
func TestCodeAt(t *testing.T) {
	if got := codeAt("h.star", &workbench.CodeError{Line: 3, Col: 20, Msg: "no"}); got != "h.star:3:20: no" {
		t.Errorf("at a line: %q", got)
	}
	if got := codeAt("h.star", &workbench.CodeError{Msg: "the handler ran out of memory"}); got != "h.star: the handler ran out of memory" {
		t.Errorf("without a line: %q", got)
	}
}
