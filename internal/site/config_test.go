package site

import (
	"io"
	"strings"
	"testing"
)

// TestConfigRefusesUnparsableEnvironment: a number or a duration in the environment that does not
// parse stops the server at start, naming the variable and the value, instead of running on the
// default.
func TestConfigRefusesUnparsableEnvironment(t *testing.T) {
	for _, bad := range [][2]string{
		{"MAX_RUNS", "four"},
		{"RATE", "fast"},
		{"QUEUE_WAIT", "10"},
		{"ROOM_IDLE_CLOSE", "a day"},
		{"MAX_CONNS", "3,000"},
		{"CACHE_MB", "64MB"},
	} {
		getenv := func(k string) string {
			if k == bad[0] {
				return bad[1]
			}
			return ""
		}
		_, err := LoadConfig(nil, getenv, io.Discard)
		if err == nil || !strings.Contains(err.Error(), bad[0]) || !strings.Contains(err.Error(), `"`+bad[1]+`"`) {
			t.Errorf("%s=%s: err %v, want one naming the variable and the value", bad[0], bad[1], err)
		}
	}
	c, err := LoadConfig(nil, func(k string) string {
		return map[string]string{"MAX_RUNS": " 3 ", "QUEUE_WAIT": "10s"}[k]
	}, io.Discard)
	if err != nil || c.MaxRuns != 3 || c.QueueWait.String() != "10s" {
		t.Errorf("good values: %v, max runs %d, queue wait %s", err, c.MaxRuns, c.QueueWait)
	}
}
