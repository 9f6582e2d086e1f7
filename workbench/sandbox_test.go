package workbench

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"effectivelyonce/experiments"
)

// TestMain lets this test binary stand in for the site's binary: a Sandbox starts it with
// ChildCommand as its first argument, and then it is the child.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == ChildCommand {
		if err := ChildMain(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testSandbox(t testing.TB) Sandbox {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Sandbox{Command: func(ctx context.Context) *exec.Cmd { return exec.CommandContext(ctx, exe, ChildCommand) }}
}

func TestSandboxRunsATemplate(t *testing.T) {
	tp, _ := LookupTemplate("ack-after-work")
	res, err := testSandbox(t).Check(t.Context(), tp.Source, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict.Survives || len(res.Points) != 3 || res.Points[1].Duplicated != 398 || res.Smallest == nil {
		t.Errorf("through the child: %+v", res.Verdict)
	}
}

// TestSandboxLimits sends the hostile handlers the issue lists through the real child process:
// each comes back as a CodeError that names its line or the limit it hit.
func TestSandboxLimits(t *testing.T) {
	handle := "def handle(job, queue, db, bus):\n"
	for _, tc := range []struct {
		name, src string
		params    string
		line      int
		want      string
	}{
		{"endless for", handle + "    for i in range(1000000000000000):\n        pass\n", "", 2, "Starlark steps"},
		{"huge string", handle + "    x = \"x\" * 10000000000\n", "", 2, "a check's limit"},
		{"billion items", handle + "    x = list(range(1000000000))\n", "", 0, "memory"},
		{"nested brackets past the size", "x = " + strings.Repeat("[", 100_000) + "\n", "", 0, "the limit is 16,384"},
		{"nested brackets", "x = " + strings.Repeat("[", 8_000) + "\n", "", 1, "the brackets nest too deeply"},
		{"nested minus", handle + "    x = " + strings.Repeat("- ", 3_000) + "1\n", "", 2, "the expression nests too deeply"},
		{"nested not", handle + "    x = " + strings.Repeat("not ", 3_000) + "True\n", "", 2, "the expression nests too deeply"},
		{"nested lambdas", "x = " + strings.Repeat("lambda: ", 1_200) + "1\n", "", 1, "the expression nests too deeply"},
		{"unclosed bracket", handle + "    db.apply(job.id\n    queue.ack()\n", "", 2, "this '(' is never closed (the parser noticed at line 3"},
		{"syntax error", "def handle(job, queue, db, bus)\n    queue.ack()\n", "", 1, "got newline"},
		{"power operator", handle + "    x = 10**10\n", "", 2, "no ** operator"},
		{"load", "load(\"os\", \"system\")\n" + handle + "    queue.ack()\n", "", 1, "load is not available"},
		{"never acks", handle + "    db.apply(job.id)\n", "", 1, "never acknowledged"},
		{"while", handle + "    while True:\n        pass\n", "", 2, "while"},
		{"try", handle + "    try:\n        queue.ack()\n", "", 2, "no try"},
		{"recursion", handle + "    handle(job, queue, db, bus)\n", "", 2, "recursive"},
		{"no handle", "def other():\n    pass\n", "", 0, "defines no function handle"},
		{"bad key", handle + "    db.remember([job.id])\n", "", 2, "a key must be"},
		{"long event", handle + "    bus.publish(\"e\" * 1000)\n    queue.ack()\n", "", 2, "bus.publish: an event may be at most 200 bytes long, not 1,000"},
		{"print in a tight loop", handle + "    for i in range(1000000):\n        print(\"x\")\n    queue.ack()\n", "", 3, "printed more than 1,000,000 times"},
		{"tx after commit", handle + "    tx = db.begin()\n    tx.commit()\n    tx.apply(job.id)\n", "", 4, "already been committed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testSandbox(t).Check(t.Context(), tc.src, DefaultParams())
			var ce *CodeError
			if !errors.As(err, &ce) {
				t.Fatalf("err %v (%T), want a CodeError", err, err)
			}
			t.Logf("%s", ce)
			if !strings.Contains(ce.Msg, tc.want) || ce.Line != tc.line {
				t.Errorf("got %q at line %d, want %q at line %d", ce.Msg, ce.Line, tc.want, tc.line)
			}
		})
	}
}

func TestSandboxPrintFlood(t *testing.T) {
	src := "def handle(job, queue, db, bus):\n    for i in range(100):\n        print(\"job\", job.id, \"line\", i)\n    queue.ack()\n"
	p := DefaultParams()
	p.Jobs = 2000
	res, err := testSandbox(t).Check(t.Context(), src, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.DroppedLines == 0 || len(res.Output) > maxOutput+200 || !strings.Contains(res.Output, "more lines not shown") {
		t.Errorf("%d bytes of output, %d dropped; ends %q", len(res.Output), res.DroppedLines, res.Output[max(0, len(res.Output)-120):])
	}
}

func TestSandboxDeadline(t *testing.T) {
	src := "def handle(job, queue, db, bus):\n    for i in range(100000):\n        pass\n    queue.ack()\n"
	s := testSandbox(t)
	s.Deadline = 200 * time.Millisecond
	_, err := s.Check(t.Context(), src, DefaultParams())
	var ce *CodeError
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "deadline of 200ms") {
		t.Fatalf("err %v, want the deadline named with its length", err)
	}
}

// TestSandboxLongPrint: one print longer than the output's cap still shows what it began with,
// cut short, rather than nothing but the count of lines left out.
func TestSandboxLongPrint(t *testing.T) {
	src := "def handle(job, queue, db, bus):\n    print(\"é\" * 100000)\n    queue.ack()\n"
	p := DefaultParams()
	p.Jobs = 20
	res, err := testSandbox(t).Check(t.Context(), src, p)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(res.Output, "\n")
	if !strings.HasPrefix(first, "ééé") || !strings.HasSuffix(first, "…") || !utf8.ValidString(first) || len(res.Output) > maxOutput+200 {
		t.Errorf("the first line is %d bytes, starts %q, ends %q", len(first), first[:min(len(first), 12)], first[max(0, len(first)-12):])
	}
	if !strings.Contains(res.Output, "more lines not shown in full") {
		t.Errorf("the output does not say lines were left out: ends %q", res.Output[max(0, len(res.Output)-120):])
	}
}

// TestSandboxCancel cancels a check while its child runs: Check answers context.Canceled, and by
// then the child and everything in its process group are gone (killed and reaped, not left as a
// zombie). The child is started through sh, which writes its pid to a file and execs the child in
// its place, so the test learns the pid without touching the *exec.Cmd the sandbox owns.
func TestSandboxCancel(t *testing.T) {
	src := "def handle(job, queue, db, bus):\n    for i in range(100000):\n        pass\n    queue.ack()\n"
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	s := Sandbox{Command: func(ctx context.Context) *exec.Cmd {
		return exec.CommandContext(ctx, "/bin/sh", "-c", `echo $$ > "$0" && exec "$1" "$2"`, pidFile, exe, ChildCommand)
	}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.Check(ctx, src, DefaultParams())
		done <- err
	}()
	pid := 0
	deadline := time.Now().Add(30 * time.Second)
	for pid == 0 {
		select {
		case err := <-done:
			t.Fatalf("the check ended before it could be cancelled: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the child never wrote its pid")
		}
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			if pid, err = strconv.Atoi(strings.TrimSpace(string(b))); err != nil {
				t.Fatal(err)
			}
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the child %d is not running before the cancel: %v", pid, err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	// Check has returned: the child must already be gone, and its process group with it.
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the child %d still exists after the cancel returned (signal 0: %v)", pid, err)
	}
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the child's process group %d still has a process after the cancel returned (signal 0: %v)", pid, err)
	}
}

func TestSandboxFieldErrors(t *testing.T) {
	tp, _ := LookupTemplate("ack-after-work")
	p := DefaultParams()
	p.CrashPoint = 7
	_, err := testSandbox(t).Check(t.Context(), tp.Source, p)
	var fe experiments.FieldErrors
	if !errors.As(err, &fe) || fe.For("crash_point") == "" {
		t.Fatalf("err %v, want a field error on crash_point", err)
	}
}
