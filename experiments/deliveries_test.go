package experiments

import (
	"context"
	"fmt"
	"testing"
)

// TestGoldenDeliveries pins block 3's point as numbers: the dedup designs still see every
// redelivery (20,398 deliveries for 20,000 jobs, the 398 crashed ones twice), and what the dedup
// changes is how many of them reach the effect.
func TestGoldenDeliveries(t *testing.T) {
	res, err := Assembly(context.Background(), DefaultStreamParams())
	if err != nil {
		t.Fatal(err)
	}
	want := map[Design][2]int64{ // deliveries, effects
		DesignAtMostOnce:            {20_000, 19_602},
		DesignAtLeastOnce:           {20_398, 20_398},
		DesignDedupNonTransactional: {20_398, 20_398},
		DesignDedupTransactional:    {20_398, 20_000},
	}
	for _, row := range res.Rows {
		if got := [2]int64{row.Deliveries, row.Effects}; got != want[row.Design] {
			t.Errorf("%s: deliveries, effects = %v, want %v", row.Design, got, want[row.Design])
		}
	}
	keys, err := Keys(context.Background(), DefaultStreamParams())
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := map[KeyKind][2]int64{
		KeyJobID:          {20_398, 20_000},
		KeyJobIDAttempt:   {20_398, 20_398},
		KeyUUIDPerAttempt: {20_398, 20_398},
	}
	for _, row := range keys.Rows {
		if got := [2]int64{row.Deliveries, row.Effects}; got != wantKeys[row.Key] {
			t.Errorf("%s: deliveries, effects = %v, want %v", row.Key, got, wantKeys[row.Key])
		}
	}
}

// TestPropertyDeliveries checks on random streams that a redelivery follows every crash except
// when the ack came first, and that the effects are exactly the applications the sink counted.
func TestPropertyDeliveries(t *testing.T) {
	r := newParamRand()
	for i := range 30 {
		p := randomStream(r)
		t.Run(fmt.Sprintf("%d/%+v", i, p), func(t *testing.T) {
			res, err := Assembly(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range res.Rows {
				want := p.Jobs + res.Crashed
				if row.Design == DesignAtMostOnce {
					want = p.Jobs
				}
				if row.Deliveries != want {
					t.Errorf("%s: %d deliveries, want %d", row.Design, row.Deliveries, want)
				}
				if e := row.ExactlyOnce + 2*row.Duplicated; row.Effects != e {
					t.Errorf("%s: %d effects, but %d once and %d twice make %d", row.Design, row.Effects, row.ExactlyOnce, row.Duplicated, e)
				}
			}
			keys, err := Keys(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range keys.Rows {
				if row.Deliveries != p.Jobs+keys.Crashed || row.Effects != p.Jobs+row.Duplicated {
					t.Errorf("%s: %d deliveries, %d effects; want %d and %d", row.Key, row.Deliveries, row.Effects, p.Jobs+keys.Crashed, p.Jobs+row.Duplicated)
				}
			}
		})
	}
}
