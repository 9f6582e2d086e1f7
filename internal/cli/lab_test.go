package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"effectivelyonce/lab"
	"effectivelyonce/lab/labtest"
)

// TestCLILab runs "site lab" on two designs with real worker processes and checks the JSON shape
// the issue names and that the real counts equal the model's; bad flags name themselves.
func TestCLILab(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	data := t.TempDir()
	env := map[string]string{"DATA_DIR": data}
	out, errs, err := runLab(t, env, "-designs", "ack-before-work,dedup-outside-tx", "-jobs", "150", "-workers", "2", "-crash_rate", "0.05", "-format", "json")
	if err != nil {
		t.Fatalf("site lab: %v\n%s", err, errs)
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Designs) != 2 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for _, d := range got.Designs {
		if d.Jobs != 150 || d.Lost != d.Model.Lost || d.Duplicated != d.Model.Duplicated || d.WorkersKilled == 0 ||
			d.Lost+d.Duplicated == 0 {
			t.Errorf("%s: %+v", d.Design, d)
		}
		if d.Workers != 2 || d.Seed != 13 || d.CrashRate == nil || *d.CrashRate != 0.05 {
			t.Errorf("%s does not state the values it ran with: %+v", d.Design, d)
		}
	}
	// Every wrong flag at once, each in the page's words.
	_, _, err = runLab(t, env, "-jobs", "9000", "-workers", "0", "-designs", "ack-after-work")
	if err == nil || !strings.Contains(err.Error(), "lab: -jobs: 9,000 is out of range; it must be a whole number from 1 to 5,000") ||
		!strings.Contains(err.Error(), "lab: -workers: 0 is out of range; it must be a whole number from 1 to 8") {
		t.Errorf("two wrong flags: %v, want both named", err)
	}
	if left := labtest.DirNames(lab.ScratchDir(data)); len(left) != 0 {
		t.Errorf("site lab left %v in its scratch directory", left)
	}
	for flagArgs, want := range map[string]string{
		"-designs nope":      "-designs",
		"-jobs 999999":       "-jobs",
		"-workers 0":         "-workers",
		"-format csv":        "-format",
		"-crash_rate 2":      "-crash_rate",
		"-designs all extra": "unexpected argument",
	} {
		_, _, err := runLab(t, env, strings.Fields(flagArgs)...)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("site lab %s: %v, want an error naming %s", flagArgs, err, want)
		}
	}
}

// TestCLILabFireAndForget runs "site lab -fire_and_forget": the JSON says the acks were plain,
// the lost count is the model's and the duplicated count is at least the model's.
func TestCLILabFireAndForget(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a broker and worker processes")
	}
	out, errs, err := runLab(t, map[string]string{"DATA_DIR": t.TempDir()}, "-designs", "ack-after-work", "-jobs", "150", "-workers", "2", "-fire_and_forget", "-format", "json")
	if err != nil {
		t.Fatalf("site lab: %v\n%s", err, errs)
	}
	var got struct {
		Designs []labDesignJSON `json:"designs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Designs) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	d := got.Designs[0]
	if !d.FireAndForgetAcks || d.Lost != d.Model.Lost || d.Duplicated < d.Model.Duplicated || d.WorkersKilled == 0 {
		t.Errorf("%+v", d)
	}
}

// TestLabVerdictIsThePagesVerdict: the exit status is lab.Result.MatchesModel for every design,
// a handler that calls work() included: within its stated tolerance it passes, beyond it it fails
// and says by how much it was allowed to stray; a handler's killed deliveries, which the old
// status never weighed, fail it too.
func TestLabVerdictIsThePagesVerdict(t *testing.T) {
	lease := func(dup int64) lab.Result {
		return lab.Result{Design: lab.DesignHandler, Jobs: 200, Duplicated: dup, ExactlyOnce: 200 - dup, ModelDuplicated: 26, Tolerance: 10,
			KilledDeliveries: 12, Handler: &lab.HandlerResult{LeaseTime: true, ModelExactlyOnce: 174, ModelCrashed: 12}}
	}
	var errs strings.Builder
	if err := labVerdict([]lab.Result{lease(20)}, &errs); err != nil {
		t.Errorf("6 off with a tolerance of 10: %v", err)
	}
	if err := labVerdict([]lab.Result{lease(14)}, &errs); err != ErrSilent || !strings.Contains(errs.String(), "by more than its 10 jobs near their lease's edge") {
		t.Errorf("12 off with a tolerance of 10: %v, %q", err, errs.String())
	}
	killed := lease(26)
	killed.KilledDeliveries = 11
	if err := labVerdict([]lab.Result{killed}, &errs); err != ErrSilent {
		t.Errorf("a delivery killed fewer than the model: %v", err)
	}
}
