package workbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"effectivelyonce/experiments"
)

// ChildCommand is the hidden subcommand of the site's binary that runs one check: the server
// starts `site workbench-check` as a child, writes the request to its stdin and reads the answer
// from its stdout, so that a reader's code never runs in the server's process.
const ChildCommand = "workbench-check"

// Limits of the child process. The deadline is the check's; the CPU limit is a backstop behind it
// (and behind the Starlark step limit), the memory limit the Go heap the child may reach.
const (
	DefaultDeadline = 10 * time.Second
	memoryLimit     = 768 << 20
	maxAnswer       = 64 << 20
	maxStderr       = 4 << 10
)

// Sandbox runs checks in a child process. Admission (how many at once, how often per reader) is
// the caller's: the server admits checks like its heavy runs, and a Sandbox runs what it is given.
type Sandbox struct {
	// Command makes the child process: the site's own binary with ChildCommand as its first
	// argument. Tests give the test binary instead, whose TestMain runs ChildMain.
	Command func(ctx context.Context) *exec.Cmd
	// Deadline bounds one check's wall-clock time; 0 means DefaultDeadline.
	Deadline time.Duration
}

// request is what the parent writes to the child's stdin.
type request struct {
	Source   string  `json:"source"`
	Params   Params  `json:"params"`
	Deadline float64 `json:"deadline_s"`
	// Trace asks for one job's timeline at one point instead of a whole check.
	Trace *traceRequest `json:"trace,omitempty"`
	// Replay places the queue's redeliveries (CheckReplay).
	Replay []Redelivery `json:"replay,omitempty"`
}

type traceRequest struct {
	Point int   `json:"point"`
	Job   int64 `json:"job"`
}

// response is what the child writes to its stdout: one of the fields is set.
type response struct {
	Result *Result                 `json:"result,omitempty"`
	Trace  *experiments.Trace      `json:"trace,omitempty"`
	Code   *CodeError              `json:"code_error,omitempty"`
	Fields experiments.FieldErrors `json:"field_errors,omitempty"`
	Failed string                  `json:"failed,omitempty"`
}

// Check runs the handler in a child process and returns its result. A mistake in the handler or a
// limit it ran into is a *CodeError; bad parameters are experiments.FieldErrors; anything else is
// the sandbox's own failure.
func (s Sandbox) Check(ctx context.Context, src string, p Params) (Result, error) {
	resp, err := s.ask(ctx, request{Source: src, Params: p})
	if err != nil {
		return Result{}, err
	}
	if resp.Result == nil {
		return Result{}, errors.New("workbench: the check's child answered without a result")
	}
	return *resp.Result, nil
}

// Trace tells one job's life at one crash point, in a child process like Check.
func (s Sandbox) Trace(ctx context.Context, src string, p Params, point int, job int64) (experiments.Trace, error) {
	resp, err := s.ask(ctx, request{Source: src, Params: p, Trace: &traceRequest{Point: point, Job: job}})
	if err != nil {
		return experiments.Trace{}, err
	}
	if resp.Trace == nil {
		return experiments.Trace{}, errors.New("workbench: the check's child answered without a trace")
	}
	return *resp.Trace, nil
}

func (s Sandbox) ask(ctx context.Context, req request) (response, error) {
	if len(req.Source) > MaxSource {
		// Refused here too, so an oversized handler is not even copied into a child.
		return response{}, &CodeError{Msg: fmt.Sprintf("the handler is %s bytes long; the limit is %s (16 KB)",
			thousands(int64(len(req.Source))), thousands(MaxSource))}
	}
	deadline := s.Deadline
	if deadline <= 0 {
		deadline = DefaultDeadline
	}
	req.Deadline = deadline.Seconds()
	// The child stops itself at the deadline with the line it was on; the parent's own deadline, a
	// little later, kills a child that could not.
	ctx, cancel := context.WithTimeout(ctx, deadline+2*time.Second)
	defer cancel()
	if s.Command == nil {
		return response{}, errors.New("workbench: Sandbox has no Command")
	}
	cmd := s.Command(ctx)
	if cmd == nil {
		return response{}, errors.New("workbench: Sandbox.Command made no command")
	}
	body, err := json.Marshal(req)
	if err != nil {
		return response{}, err
	}
	cmd.Env = []string{} // empty, not inherited
	cmd.Stdin = bytes.NewReader(body)
	var out limitedBuffer
	out.max = maxAnswer
	var errb limitedBuffer
	errb.max = maxStderr
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.ExtraFiles = nil
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true // its own process group, killed whole
	orphanGuard(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	start := time.Now()
	err = cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // anything the child left in its group
	}
	if ctx.Err() != nil {
		if parentErr := context.Cause(ctx); errors.Is(parentErr, context.DeadlineExceeded) && time.Since(start) >= deadline {
			return response{}, &CodeError{Msg: fmt.Sprintf("the check did not finish within %s s, its deadline, and was stopped", seconds(deadline.Seconds()))}
		}
		return response{}, ctx.Err()
	}
	var resp response
	if jerr := json.Unmarshal(out.Bytes(), &resp); jerr == nil && (resp.Result != nil || resp.Trace != nil || resp.Code != nil || resp.Fields != nil || resp.Failed != "") {
		switch {
		case resp.Code != nil:
			return response{}, resp.Code
		case resp.Fields != nil:
			return response{}, resp.Fields
		case resp.Failed != "":
			return response{}, errors.New("workbench: " + resp.Failed)
		}
		return resp, nil
	}
	return response{}, childFailure(err, errb.String(), out.over)
}

// childFailure says why a child ended without an answer, in the reader's terms where it was the
// handler's doing.
func childFailure(err error, stderr string, tooLong bool) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch ws.Signal() {
			case syscall.SIGXCPU:
				return &CodeError{Msg: "the check used up its CPU time limit and was stopped"}
			case syscall.SIGKILL:
				return &CodeError{Msg: "the check was killed before it could answer (out of memory, or past its limits)"}
			}
		}
	}
	if ce := MemoryFailure(stderr); ce != nil {
		return ce
	}
	switch {
	case tooLong:
		return &CodeError{Msg: fmt.Sprintf("the check's answer was longer than %s MiB", thousands(maxAnswer>>20))}
	}
	tail := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(tail, '\n'); len(tail) > 300 && i >= 0 {
		tail = tail[i+1:]
	}
	return fmt.Errorf("workbench: the check's child failed (%v): %s", err, experiments.Clip(tail, 300))
}

// MemoryFailure is the message for a process that ran a reader's handler under GuardMemory's (or
// a check's) limits and died of them, told from what it wrote to stderr; nil when stderr says
// nothing of memory.
func MemoryFailure(stderr string) *CodeError {
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") {
		return &CodeError{Msg: fmt.Sprintf("the handler ran out of memory: a check may use about %s MiB", thousands(memoryLimit>>20))}
	}
	return nil
}

// limitedBuffer keeps at most max bytes and remembers that more came.
type limitedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// ChildMain is the child's side: it puts its own limits on (before any reader's code is read),
// reads one request from stdin, runs it, and writes one response to stdout. The process exits
// after it, so nothing a handler did outlives the check.
func ChildMain(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	if err := limitSelf(); err != nil {
		return fmt.Errorf("workbench child: limits: %w", err)
	}
	var req request
	dec := json.NewDecoder(io.LimitReader(stdin, 4*MaxSource+64<<10+MaxReplay*80))
	if err := dec.Decode(&req); err != nil {
		return (&answer{w: stdout}).write(response{Failed: "the request could not be read: " + err.Error()})
	}
	deadline := time.Duration(req.Deadline * float64(time.Second))
	if deadline <= 0 || deadline > time.Minute {
		deadline = DefaultDeadline
	}
	ctx, cancel := context.WithTimeout(withDeadline(ctx, deadline), deadline)
	defer cancel()
	ans := &answer{w: stdout}
	stopWatch := watchMemory(ans)
	defer stopWatch()
	var resp response
	var err error
	if req.Trace != nil {
		var tr experiments.Trace
		tr, err = TraceJob(ctx, req.Source, req.Params, req.Trace.Point, req.Trace.Job)
		resp.Trace = &tr
	} else {
		var res Result
		res, err = CheckReplay(ctx, req.Source, req.Params, req.Replay)
		resp.Result = &res
	}
	if err != nil {
		resp = response{}
		var ce *CodeError
		var fe experiments.FieldErrors
		switch {
		case errors.As(err, &ce):
			resp.Code = ce
		case errors.As(err, &fe):
			resp.Fields = fe
		case errors.Is(err, context.DeadlineExceeded):
			resp.Code = &CodeError{Msg: fmt.Sprintf("the check did not finish within %s s, its deadline", seconds(deadline.Seconds()))}
		default:
			resp.Failed = err.Error()
		}
	}
	return ans.write(resp)
}

// answer is the child's stdout: one response is written, whichever of the check and the memory
// watch comes first.
type answer struct {
	mu   sync.Mutex
	w    io.Writer
	done bool
}

func (a *answer) write(resp response) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return nil
	}
	a.done = true
	return json.NewEncoder(a.w).Encode(resp)
}
