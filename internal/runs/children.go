package runs

import (
	"context"
	"os/exec"
)

// Children make the processes work runs in: the site binary's own hidden commands, re-executed.
// The server and the command line both start them (a lab run's workers, a workbench check's
// sandbox), and a test puts its own binary in their place.
type Children struct {
	// LabWorker makes one of a lab run's worker processes (`site lab-worker`).
	LabWorker func(context.Context) *exec.Cmd
	// Check makes a workbench check's child process (`site workbench-check`, workbench.ChildCommand).
	Check func(context.Context) *exec.Cmd
}
