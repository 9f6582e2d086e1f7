package workbench

import (
	"context"
	"testing"
)

// tenOps is a handler of ten operations that breaks at some of its points: a check of it runs
// every crash point, explains the failing ones and shrinks the smallest failing case.
const tenOps = `def handle(job, queue, db, bus):
    if db.seen(("done", job.id)):
        queue.ack()
        return
    db.apply(job.id)
    tx = db.begin()
    tx.remember(job.id)
    tx.outbox(("changed", job.id))
    tx.commit()
    db.remember(("done", job.id))
    bus.publish(("audit", job.id))
    db.remember(("audited", job.id))
    queue.ack()
`

func benchCheck(b *testing.B, jobs int64, child bool) {
	p := DefaultParams()
	p.Jobs = jobs
	s := testSandbox(b)
	for b.Loop() {
		var res Result
		var err error
		if child {
			res, err = s.Check(context.Background(), tenOps, p)
		} else {
			res, err = Check(context.Background(), tenOps, p)
		}
		if err != nil {
			b.Fatal(err)
		}
		if res.Ops != 10 || len(res.Points) != 12 || res.Smallest == nil {
			b.Fatalf("%d ops, %d points, smallest %v", res.Ops, len(res.Points), res.Smallest)
		}
	}
}

// BenchmarkCheckDefaults is the target: at the defaults (20,000 jobs), every crash point
// of a ten-operation handler, child process included, in under a second on one core.
func BenchmarkCheckDefaults(b *testing.B) { benchCheck(b, 20_000, true) }

// BenchmarkCheck2000 is the one a reader presses after every edit: under 150 ms.
func BenchmarkCheck2000(b *testing.B) { benchCheck(b, 2_000, true) }

// The same checks in process, to show what the child process costs.
func BenchmarkCheckDefaultsInProcess(b *testing.B) { benchCheck(b, 20_000, false) }
func BenchmarkCheck2000InProcess(b *testing.B)     { benchCheck(b, 2_000, false) }

// BenchmarkLeaseCheck is a lease handler at the defaults: slow jobs are handed out again every
// lease_timeout seconds while they run.
func BenchmarkLeaseCheck(b *testing.B) {
	tp, _ := LookupTemplate("lease-no-renewal")
	s := testSandbox(b)
	for b.Loop() {
		if _, err := s.Check(context.Background(), tp.Source, DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
}
