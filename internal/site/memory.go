package site

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

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

// ApplyMemoryLimit sets the runtime's limit, unless the runtime already has a lower one.
func ApplyMemoryLimit(limit int64) {
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
