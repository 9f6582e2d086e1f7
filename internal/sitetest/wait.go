package sitetest

import "time"

// Patience is how long a test waits for something that should happen: generous, since a loaded
// CI box can stall a process for seconds, and a passing test never waits it out.
const Patience = 30 * time.Second

// WaitFor asks cond until it holds, or until within has passed, and reports whether it held. A
// test waits on the condition it needs rather than sleeping and then checking: the sleep is
// either too short on a busy machine or wasted on an idle one. The asking starts at once and
// backs off to every 50 ms.
func WaitFor(within time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(within)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}
