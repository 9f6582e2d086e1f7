package experiments

import (
	"context"
	"testing"
)

// The lab trusts Crashes to be the very stream the assembly replays: if the two ever drew
// differently, the lab's "same jobs as the model" would quietly become "same rate".
func TestCrashesIsTheAssemblyStream(t *testing.T) {
	ctx := context.Background()
	p := StreamParams{Jobs: 400, CrashRate: 0.05, Seed: 13}
	crashed, err := Crashes(ctx, p.Jobs, p.CrashRate, p.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(crashed)) != p.Jobs {
		t.Fatalf("len = %d, want %d", len(crashed), p.Jobs)
	}
	res, err := Assembly(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for _, c := range crashed {
		if c {
			n++
		}
	}
	if n != res.Crashed || n == 0 {
		t.Fatalf("Crashes marks %d jobs, the assembly crashed %d", n, res.Crashed)
	}
	lost, _, _ := AckBeforeWork(crashed)
	if int64(lost) != res.Rows[0].Lost {
		t.Fatalf("ack-before-work on Crashes loses %d, the assembly %d", lost, res.Rows[0].Lost)
	}
	if _, err := Crashes(ctx, -1, 0.1, 1); err == nil {
		t.Fatal("negative jobs accepted")
	}
}
