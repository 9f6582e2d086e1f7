package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// runCLI runs one of the experiments' commands (run, verify, list) as the binary's dispatch does,
// and answers what it printed.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	var err error
	switch args[0] {
	case "run":
		err = Run(t.Context(), args[1:], &out)
	case "verify":
		err = Verify(t.Context(), args[1:], &out)
	case "list":
		err = List(&out)
	default:
		t.Fatalf("runCLI: %s is not a command of the experiments", args[0])
	}
	return out.String(), err
}

func TestCLIRun(t *testing.T) {
	out, err := runCLI(t, "run", "window")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"380", "300", "195", "104", "1.90%", "0.97%"} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %s:\n%s", want, out)
		}
	}
	out, err = runCLI(t, "run", "lease", "-format", "json", "-timeouts", "5,60")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Result struct {
			Points []struct {
				TimeoutS  float64 `json:"timeout_s"`
				NoRenewal int64   `json:"no_renewal"`
			} `json:"points"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Result.Points) != 2 || got.Result.Points[0].NoRenewal != 2448 || got.Result.Points[1].NoRenewal != 233 {
		t.Errorf("lease json %+v", got.Result.Points)
	}
	out, err = runCLI(t, "run", "keys", "-format=csv")
	if err != nil || !strings.HasPrefix(out, "# experiment=keys\r\n# jobs=20000\r\n# crash_rate=0.02\r\n# seed=13\r\n# version=devel\r\n# params_hash="+hashOf(t, "keys")+"\r\ndedup_key,duplicated_jobs,deliveries,effects\r\njob-id,0,20398,20000\r\n") {
		t.Errorf("csv %q err %v", out, err)
	}
}

func TestCLIErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run"}, "name an experiment"},
		{[]string{"run", "nope"}, `no experiment "nope"`},
		{[]string{"run", "window", "-max_delay", "0"}, "-max_delay: 0 is out of range"},
		{[]string{"run", "window", "-jobs"}, "-jobs needs a value"},
		{[]string{"run", "window", "-format", "xml"}, "-format must be"},
		{[]string{"run", "window", "-spread", "1"}, "-spread: 1 is out of range"},
		{[]string{"verify", "-crash_rate", "x"}, "verify: invalid parameters:\n  -crash_rate:"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := runCLI(t, tc.args...)
			if err == nil || !strings.Contains(err.Error()+out, tc.want) {
				t.Errorf("err %v out %q, want %q", err, out, tc.want)
			}
		})
	}
}

func TestCLIVerify(t *testing.T) {
	out, err := runCLI(t, "verify")
	if err != nil {
		t.Fatalf("verify failed: %v\n%s", err, out)
	}
	if strings.Count(out, "[PASS]") != 9 || !strings.Contains(out, "9/9 claims verified") ||
		!strings.Contains(out, "195 escaped a window of 1,000 ids, with delays of up to 2,000 jobs") {
		t.Errorf("verify output:\n%s", out)
	}
	// On parameters where a claim stops holding, verify says FAIL and exits non-zero.
	out, err = runCLI(t, "verify", "-crash_rate", "0")
	if err == nil || !strings.Contains(out, "[FAIL]") {
		t.Errorf("verify with no crashes: err %v\n%s", err, out)
	}
}

// hashOf is the parameters' fingerprint of the named experiment at its defaults.
func hashOf(t *testing.T, name string) string {
	t.Helper()
	e, ok := experiments.Lookup(name)
	if !ok {
		t.Fatalf("no experiment %q", name)
	}
	return e.ParamsHash(e.Defaults())
}
