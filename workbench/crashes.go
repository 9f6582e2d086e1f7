package workbench

import (
	"fmt"
	"strings"

	"effectivelyonce/experiments"
)

// keepOnly makes the stream's crashes the one crash of job (NoOnlyCrash: every crash drawn
// stays). The job must be one the stream draws a crash for; the redelivery delays were drawn for
// the whole stream before, and stay, so the one crash is the one it was among the others.
func (e *engine) keepOnly(job int64) error {
	if job == NoOnlyCrash {
		return nil
	}
	if job < 0 || job >= int64(e.jobs) {
		return experiments.FieldErrors{{Field: "only_crash", Message: fmt.Sprintf(
			"%s is not a job of this stream, whose ids run from 0 to %s; give one of its crashing jobs, or none", thousands(job), thousands(int64(e.jobs-1)))}}
	}
	if !e.drawsCrash(int(job)) {
		return experiments.FieldErrors{{Field: "only_crash", Message: fmt.Sprintf(
			"job %s does not crash in this stream (crash_rate %s, seed %d)%s; give one that does, or none",
			thousands(job), experiments.FormatFloat(e.p.CrashRate), e.p.Seed, e.firstCrashes(5))}}
	}
	if e.producer {
		only := make([]experiments.ProducerCrash, len(e.prod))
		only[job] = e.prod[job]
		e.prod = only
		return nil
	}
	only := make([]bool, len(e.crashed))
	only[job] = true
	e.crashed = only
	return nil
}

// drawsCrash reports whether the stream, as the engine now holds it, crashes job j anywhere.
func (e *engine) drawsCrash(j int) bool {
	if e.producer {
		c := e.prod[j]
		return c.First || c.Second || c.RelayCrashes > 0
	}
	return e.crashed[j]
}

// firstCrashes names the first few jobs the stream crashes, for a message.
func (e *engine) firstCrashes(n int) string {
	var ids []string
	for j := 0; j < e.jobs && len(ids) < n; j++ {
		if e.drawsCrash(j) {
			ids = append(ids, thousands(int64(j)))
		}
	}
	if len(ids) == 0 {
		return "; it crashes none"
	}
	return "; the first that do are " + strings.Join(ids, ", ")
}
