package lab

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestParseParamsNamesEveryField sends a form with every value wrong: each field is named, in the
// form's order, in the experiments' own words ("... is out of range; it must be ..."), not only
// the first one found.
func TestParseParamsNamesEveryField(t *testing.T) {
	raw := map[string][]string{"jobs": {"9,000"}, "workers": {"0"}, "crash_rate": {"lots"}, "seed": {"1.5"},
		"lease_seed": {"-1"}, "lease_timeout": {"0.5"}}
	_, errs := ParseParams(raw, 1000)
	var got []string
	for _, e := range errs {
		got = append(got, e.Field)
	}
	want := []string{"design", "jobs", "workers", "crash_rate", "seed", "lease_seed", "lease_timeout"}
	if !slices.Equal(got, want) {
		t.Fatalf("refused %v, want %v", got, want)
	}
	for field, msg := range map[string]string{
		"jobs":          "9,000 is out of range; it must be a whole number from 1 to 1,000",
		"workers":       "0 is out of range; it must be a whole number from 1 to 8",
		"crash_rate":    `"lots" is not a number; it must be a number from 0 to 1`,
		"lease_timeout": "0.5 is out of range; it must be a number from 1 to 600",
	} {
		if got := errs.For(field); got != msg {
			t.Errorf("%s: %q, want %q", field, got, msg)
		}
	}
	// The same words as an experiment's form for the same kind of value.
	block, _ := experiments.Lookup("window")
	_, err := block.Parse(map[string][]string{"crash_rate": {"lots"}})
	var fe experiments.FieldErrors
	if !errors.As(err, &fe) || fe.For("crash_rate") != errs.For("crash_rate") {
		t.Errorf("an experiment says %q for the same crash rate, the lab %q", fe.For("crash_rate"), errs.For("crash_rate"))
	}
	if _, errs := ParseParams(map[string][]string{"design": {"lease-forever"}}, 1000); !strings.Contains(errs.For("design"), `"lease-forever" is not a design`) {
		t.Errorf("an unknown design: %v", errs)
	}
}

// TestParamsRoundTrip checks that a permalink's query reads back to the run it was made from, and
// that the lease designs take block 6's seed (31) while the crash designs keep the blocks' 13.
func TestParamsRoundTrip(t *testing.T) {
	def := DefaultParams()
	if def.Seed != 13 || def.LeaseSeed != 31 || def.LeaseTimeout != DefaultLeaseTimeout || len(def.Designs) != len(Designs()) {
		t.Errorf("defaults %+v", def)
	}
	if c := def.Config(LeaseNoRenewal); c.Seed != 31 || c.LeaseTimeout != 5 {
		t.Errorf("the lease design runs on seed %d, timeout %v; want block 6's 31 and 5", c.Seed, c.LeaseTimeout)
	}
	if c := def.Config(AckAfterWork); c.Seed != 13 || c.LeaseTimeout != 0 {
		t.Errorf("a crash design runs on seed %d, timeout %v", c.Seed, c.LeaseTimeout)
	}
	p := Params{Designs: []Design{DedupInTx, AckBeforeWork}, Jobs: 1234, Workers: 2, CrashRate: 0.125, Seed: 7,
		LeaseSeed: 99, LeaseTimeout: 15.5, DupWindow: 2.5, FireAndForget: true}
	back, errs := ParseParams(p.Query(), MaxJobs)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	p.Designs = []Design{AckBeforeWork, DedupInTx} // the lab's order, whatever the query's
	if !slices.Equal(back.Designs, p.Designs) || back.Jobs != p.Jobs || back.Workers != p.Workers || back.CrashRate != p.CrashRate ||
		back.Seed != p.Seed || back.LeaseSeed != p.LeaseSeed || back.LeaseTimeout != p.LeaseTimeout || back.DupWindow != p.DupWindow || !back.FireAndForget {
		t.Errorf("read back %+v, want %+v", back, p)
	}
}

// TestLeaseModelIsBlock6s checks that a lease design's model count is what block 6 reports for
// the same jobs, seed and timeout, so the page can send a reader there to compare.
func TestLeaseModelIsBlock6s(t *testing.T) {
	p := DefaultParams()
	work, err := experiments.LeaseDurations(context.Background(), leaseParams(p.Jobs, p.LeaseSeed))
	if err != nil {
		t.Fatal(err)
	}
	block := experiments.DefaultLeaseParams()
	block.Jobs, block.Timeouts = p.Jobs, []float64{p.LeaseTimeout}
	res, err := experiments.Lease(context.Background(), block)
	if err != nil {
		t.Fatal(err)
	}
	_, none, _ := leaseModel(LeaseNoRenewal, work, p.LeaseTimeout)
	_, third, _ := leaseModel(LeaseHeartbeat, work, p.LeaseTimeout)
	if pt := res.Points[0]; none != pt.NoRenewal || third != pt.RenewThird || none == 0 {
		t.Errorf("the lab's model doubles %d without renewal and %d with, block 6 %d and %d", none, third, pt.NoRenewal, pt.RenewThird)
	}
}

// TestValidateSpeaksLikeTheForms checks that Config.Validate refuses in the forms' words, so the
// library, the page and the command line never say the same thing two ways.
func TestValidateSpeaksLikeTheForms(t *testing.T) {
	cmd := func(context.Context) *exec.Cmd { return nil }
	c := Config{Design: DedupInTx, Jobs: 10, Workers: 0, Command: cmd}
	var fe *FieldError
	if err := c.Validate(); !errors.As(err, &fe) || fe.Msg != "0 is out of range; it must be a whole number from 1 to 8" {
		t.Errorf("workers 0: %v", err)
	}
	c.Workers, c.Jobs = 1, 6000
	if err := c.Validate(); !errors.As(err, &fe) || !regexp.MustCompile(`^6,000 is out of range; it must be a whole number from 1 to 5,000$`).MatchString(fe.Msg) {
		t.Errorf("jobs 6,000: %v", err)
	}
}
