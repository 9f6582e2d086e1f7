package experiments

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// TestGoldenLeaseRenewDoubleReal pins the late-renewal column a real queue would show at the
// document's values: a renewal every 2t comes after every lease has expired, so it renews nothing
// and exactly the jobs longer than the timeout run twice, as with no renewal at all.
func TestGoldenLeaseRenewDoubleReal(t *testing.T) {
	res, err := Lease(context.Background(), DefaultLeaseParams())
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, pt := range res.Points {
		got = append(got, pt.RenewDoubleReal)
		if pt.RenewDouble != 20_000 {
			t.Errorf("timeout %v: renew_double %d; the document's simplification says 20,000", pt.TimeoutS, pt.RenewDouble)
		}
	}
	if want := []int64{2448, 715, 499, 233, 0}; !slices.Equal(got, want) {
		t.Errorf("renew_double_real = %v, want %v", got, want)
	}
}

// TestPropertyLeaseRenewDoubleReal checks on random duration mixes, with and without heartbeat
// loss, that a renewal slower than the lease doubles the same jobs as no renewal: losing a
// heartbeat that would have been too late anyway changes nothing.
func TestPropertyLeaseRenewDoubleReal(t *testing.T) {
	r := newParamRand()
	for i := range 15 {
		p := LeaseParams{Jobs: 1 + r.Int64N(2000), Seed: r.Int64(), SlowFraction: r.Float64() * 0.3,
			FastMeanS: 0.5 + r.Float64()*5, SlowMeanS: 10 + r.Float64()*100, LossSeed: r.Int64(),
			Timeouts: []float64{0.5 + r.Float64()*2, 5 + r.Float64()*100}}
		if i%2 == 1 {
			p.HeartbeatLoss = r.Float64() * 0.9
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			res, err := Lease(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range res.Points {
				if pt.RenewDoubleReal != pt.NoRenewal {
					t.Errorf("timeout %v, loss %v: renew_double_real %d, no_renewal %d", pt.TimeoutS, p.HeartbeatLoss, pt.RenewDoubleReal, pt.NoRenewal)
				}
			}
		})
	}
}

// TestLateRenewalLapses walks single jobs through the real queue's rule: a heartbeat renews only
// if it arrives by the current expiry, and the worker acks as soon as the job ends.
func TestLateRenewalLapses(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		work, every, timeout float64
		lapsed               bool
	}{
		{"renewal every 2t, short job", 3, 10, 5, false},
		{"renewal every 2t, job just at the timeout", 5, 10, 5, false},
		{"renewal every 2t, job past the timeout", 5.01, 10, 5, true},
		{"renewal every 2t, very long job", 1000, 10, 5, true},
		{"renewal every t/3, very long job", 1000, 5.0 / 3, 5, false},
		{"renewal exactly at expiry is in time", 1000, 5, 5, false},
		{"renewal just after expiry is too late", 12, 5.5, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lateRenewalLapses(tc.work, tc.every, tc.timeout); got != tc.lapsed {
				t.Errorf("lapsed = %v, want %v", got, tc.lapsed)
			}
		})
	}
}
