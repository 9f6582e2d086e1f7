package lab

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCrashDesigns is the benchmark: 2,000 jobs, 4 workers, 2% crashes, the four
// crash designs one after another. It reports the wall time of the four and the jobs per second
// through the broker and the sink. Run it with -bench CrashDesigns -benchtime 1x.
func BenchmarkCrashDesigns(b *testing.B) {
	for b.Loop() {
		var jobs int64
		var busy float64
		for _, d := range Designs()[:4] { // the crash designs; the lease's run is its own test
			var w workers
			res, err := Run(context.Background(), Config{Design: d, Jobs: 2000, Workers: 4, CrashRate: 0.02, Seed: 13,
				Deadline: time.Minute, ScratchDir: b.TempDir(), Command: w.command}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if !res.MatchesModel() {
				b.Errorf("%s: lost %d, duplicated %d; the model says %d, %d", d, res.Lost, res.Duplicated, res.ModelLost, res.ModelDuplicated)
			}
			b.Logf("%s: %.2f s, %.0f jobs/s, lost %d/%d, duplicated %d/%d, killed %d", d, res.Seconds,
				float64(res.Jobs)/res.Seconds, res.Lost, res.ModelLost, res.Duplicated, res.ModelDuplicated, res.WorkersKilled)
			jobs += res.Jobs
			busy += res.Seconds
		}
		b.ReportMetric(busy, "s/4designs")
		b.ReportMetric(float64(jobs)/busy, "jobs/s")
	}
}
