package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
)

// runMemory estimates, in bytes, the most memory a run of the named experiment holds at once, so
// that the heavy runs admitted together fit under the server's memory limit. The estimates live
// here, not in experiments, because they are the server's admission policy; each is an upper
// bound of the bytes the run allocates in all (TestMemoryEstimates checks it against
// runtime.MemStats.TotalAlloc), measured on the 2-core machine at 1 to 10 million jobs:
//
//	assembly, orderings  ~6.6 B a job (the crash flags, four sinks and two seen-sets of a byte a job)
//	keys                 ~8.5 B a job
//	claims               ~14 B a job, plus the window's 24 B a crash
//	window               1 B a job for the stream, 1/8 for the seen-bitmap, 16 B a crash for the
//	                     sorted deliveries (twice, while sorting) and up to 8 for the late ones,
//	                     and 4 B an id of the widest window's ring: 261 MB at 10^7 jobs, all crashing
//	window-grid          the same stream, and the deliveries of one row at a time (two counted, for
//	                     the garbage of the last row the collector has not freed yet)
//	lease, crash-sweep, outbox, scale: under 4 MB whatever their sizes (they keep counts, not jobs)
//
// Every experiment must be named here, the small ones with smallMemory, so that a new experiment
// is priced on purpose: TestEveryExperimentHasAMemoryEstimate walks the catalog.
func runMemory() map[string]func(p any) int64 {
	return map[string]func(p any) int64{
		"assembly":  func(p any) int64 { return perJob(p.(experiments.StreamParams).Jobs, 7) },
		"orderings": func(p any) int64 { return perJob(p.(experiments.StreamParams).Jobs, 7) },
		"keys":      func(p any) int64 { return perJob(p.(experiments.StreamParams).Jobs, 9) },
		"claims": func(p any) int64 {
			c := p.(experiments.ClaimsParams)
			return perJob(c.Jobs, 16) + int64(float64(c.Jobs)*c.CrashRate*24)
		},
		"window": func(p any) int64 {
			w := p.(experiments.WindowParams)
			return perJob(w.Jobs, 1.125) + windowRowMemory(w.Jobs, w.CrashRate, w.Windows)
		},
		"window-grid": func(p any) int64 {
			w := p.(experiments.WindowGridParams)
			return perJob(w.Jobs, 1.125) + int64(min(2, len(w.MaxDelays)))*windowRowMemory(w.Jobs, w.CrashRate, w.Windows)
		},
		"lease":       smallMemory,
		"crash-sweep": smallMemory,
		"outbox":      smallMemory,
		"scale":       smallMemory,
	}
}

// smallMemory prices an experiment that keeps counts rather than a slot per job.
func smallMemory(any) int64 { return smallRun }

// smallRun is the estimate for experiments that keep counts rather than a slot per job.
const smallRun = 4 << 20

// memoryOf estimates the memory a run of e on p holds at most.
func memoryOf(e *experiments.Experiment, p any) int64 {
	if f, ok := runMemory()[e.Name]; ok {
		return f(p)
	}
	return smallRun // unreachable for the catalog's experiments; see runMemory
}

func perJob(jobs int64, bytes float64) int64 { return smallRun + int64(float64(jobs)*bytes) }

// windowRowMemory is one delay draw of the window experiment: the deliveries and their sort
// buffer, the late ones, and the ring of the widest window (never wider than the applications).
func windowRowMemory(jobs int64, crashRate float64, windows []int64) int64 {
	crashes := float64(jobs) * crashRate
	var widest int64
	for _, w := range windows {
		widest = max(widest, w)
	}
	ring := min(float64(widest), float64(jobs)+crashes)
	return int64(crashes*24 + ring*4)
}

// memoryLimit decides the Go memory limit: GOMEMLIMIT when it is set (the runtime has already
// applied it when it came from the process's environment), otherwise three quarters of the
// memory the process may use, the container's limit or the machine's, whichever is smaller. The
// other quarter is for what the Go limit does not count (the binary, thread stacks, the kernel's
// socket buffers) and for the collector's headroom.
func memoryLimit(getenv func(string) string) (int64, string, error) {
	if v := getenv("GOMEMLIMIT"); v != "" {
		if v == "off" { // the runtime's word for no limit
			return math.MaxInt64, "GOMEMLIMIT=off", nil
		}
		n, err := parseBytes(v)
		if err != nil {
			return 0, "", fmt.Errorf("GOMEMLIMIT %q: %w", v, err)
		}
		return n, "GOMEMLIMIT", nil
	}
	total, src := availableMemory()
	if total <= 0 {
		return math.MaxInt64, "none found", nil
	}
	return total / 4 * 3, "3/4 of the " + src, nil
}

// applyMemoryLimit sets the runtime's limit, unless the runtime already has a lower one.
func applyMemoryLimit(limit int64) {
	if cur := debug.SetMemoryLimit(-1); cur > limit {
		debug.SetMemoryLimit(limit)
	}
}

// availableMemory is the container's memory limit (cgroup v2, then v1) when there is one below the
// machine's memory, else the machine's (MemTotal).
func availableMemory() (int64, string) {
	machine := memTotal()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 { // "max": no limit
			continue
		}
		if machine <= 0 || n < machine {
			return n, "container's memory"
		}
	}
	return machine, "machine's memory"
}

// memTotal reads MemTotal from /proc/meminfo (Linux); 0 elsewhere.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// parseBytes reads a size the way GOMEMLIMIT is written: a whole number of bytes with an optional
// B, KiB, MiB, GiB or TiB.
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}}
	shift := uint(0)
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, shift = v, u.shift
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("want a positive size such as 512MiB or 2GiB")
	}
	return n << shift, nil
}
