package experiments

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func mustLookup(t *testing.T, name string) *Experiment {
	t.Helper()
	e, ok := Lookup(name)
	if !ok {
		t.Fatalf("no experiment %q", name)
	}
	return e
}

func TestParseRefuses(t *testing.T) {
	fifty := strings.Repeat("1,", 50) + "1" // 51 items
	for _, tc := range []struct {
		name       string
		experiment string
		query      map[string][]string
		field      string
		contains   []string // every one must appear in the field's message
	}{
		{"negative", "window", q("jobs", "-5"), "jobs", []string{"-5 is out of range", "from 1 to 10,000,000"}},
		{"zero jobs", "assembly", q("jobs", "0"), "jobs", []string{"0 is out of range", "from 1 to 10,000,000"}},
		{"zero timeout", "lease", q("timeouts", "5,0"), "timeouts", []string{"0 is out of range", "from 0.001 to 86,400"}},
		{"zero window", "window", q("windows", "0"), "windows", []string{"out of range", "from 1 to 10,000,000"}},
		{"NaN", "window", q("crash_rate", "NaN"), "crash_rate", []string{"not a number", "from 0 to 1"}},
		{"nan in a list", "crash-sweep", q("crash_rates", "0.1,nan"), "crash_rates", []string{"not a number"}},
		{"inf", "window", q("crash_rate", "inf"), "crash_rate", []string{"not a number", "from 0 to 1"}},
		{"+Inf", "lease", q("fast_mean_s", "+Inf"), "fast_mean_s", []string{"not a number"}},
		{"1e309 float", "scale", q("messages_per_day", "1e309"), "messages_per_day", []string{"out of range", "from 1 to 1,000,000,000,000,000"}},
		{"1e309 int", "window", q("jobs", "1e309"), "jobs", []string{"out of range"}},
		{"hex int", "window", q("seed", "0x10"), "seed", []string{"not a number"}},
		{"hex float", "window", q("crash_rate", "0x1p-2"), "crash_rate", []string{"not a number"}},
		{"40 digits", "window", q("seed", "1234567890123456789012345678901234567890"), "seed", []string{"out of range", "9,223,372,036,854,775,807"}},
		{"40 digits float", "scale", q("bytes_per_key", "1234567890123456789012345678901234567890"), "bytes_per_key", []string{"out of range"}},
		{"2^63", "window", q("seed", "9223372036854775808"), "seed", []string{"out of range"}},
		{"empty", "window", q("jobs", ""), "jobs", []string{"empty"}},
		{"blank", "window", q("jobs", "   "), "jobs", []string{"empty"}},
		{"empty list item", "window", q("windows", "1,,2"), "windows", []string{"not a number"}},
		{"51 items", "window", q("windows", fifty), "windows", []string{"51 items", "up to 50"}},
		{"unicode digits", "window", q("jobs", "２０"), "jobs", []string{"not a number"}},
		{"arabic-indic digit", "window", q("jobs", "٣"), "jobs", []string{"not a number"}},
		{"underscores out of step", "window", q("jobs", "1_00"), "jobs", []string{"groups its digits wrongly"}},
		{"two points", "window", q("crash_rate", "0.1.2"), "crash_rate", []string{"not a number"}},
		{"dangling exponent", "window", q("jobs", "1e"), "jobs", []string{"not a number"}},
		{"fraction for int", "window", q("jobs", "1.5"), "jobs", []string{"not a whole number"}},
		{"rate above 1", "window", q("crash_rate", "1.01"), "crash_rate", []string{"out of range", "from 0 to 1"}},
		// One rule for the value a message echoes: a plain decimal grouped in thousands, whether
		// the field takes whole numbers or not and whether or not it was typed grouped; a number
		// with an exponent as typed.
		{"int echoed grouped", "window", q("jobs", "99999999"), "jobs", []string{"99,999,999 is out of range"}},
		{"float echoed grouped", "lease", q("slow_mean_s", "1000000"), "slow_mean_s", []string{"1,000,000 is out of range"}},
		{"float with a point grouped", "lease", q("slow_mean_s", "0001234567.5"), "slow_mean_s", []string{"1,234,567.5 is out of range"}},
		{"exponent as typed", "scale", q("messages_per_day", "1e30"), "messages_per_day", []string{"1e30 is out of range"}},
		{"int exponent as typed", "window", q("jobs", "1e10"), "jobs", []string{"1e10 is out of range"}},
		{"400 digits clipped", "window", q("jobs", strings.Repeat("9", 400)), "jobs", []string{"999,999,999,999,999,999,999,99… is out of range"}},
		{"outbox rate above its max", "outbox", q("crash_rate", "0.6"), "crash_rate", []string{"from 0 to 0.5"}},
		{"too long", "window", q("windows", strings.Repeat("1", 1001)), "windows", []string{"1,001 characters"}},
		{"repeated", "window", map[string][]string{"jobs": {"1", "2"}}, "jobs", []string{"given 2 times"}},
		{"unknown", "window", q("job", "5"), "job", []string{"no parameter of this name", "jobs, crash_rate"}},
		{"cost: 10M jobs, 50 windows", "window", q("jobs", "10000000", "windows", windowsList(50)), "jobs",
			[]string{"too large", "jobs can be at most 3,504,700", "lower it"}},
		{"cost: grid", "window-grid", q("jobs", "10000000", "windows", windowsList(20), "max_delays", windowsList(20)), "jobs",
			[]string{"too large", "at most"}},
		{"cost: lossy heartbeats with tiny timeouts", "lease", q("jobs", "1000000", "heartbeat_loss", "0.1", "timeouts", "0.001"), "timeouts",
			[]string{"too large", "visibility timeouts must be at least", "raise"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.experiment)
			p, err := e.Parse(tc.query)
			if err == nil {
				t.Fatalf("accepted %v as %+v", tc.query, p)
			}
			var fe FieldErrors
			if !errors.As(err, &fe) {
				t.Fatalf("error is %T, want FieldErrors", err)
			}
			msg := fe.For(tc.field)
			if msg == "" {
				t.Fatalf("no error for field %q; got %v", tc.field, fe)
			}
			for _, c := range tc.contains {
				if !strings.Contains(msg, c) {
					t.Errorf("message %q lacks %q", msg, c)
				}
			}
		})
	}
}

// q builds a query from key, value pairs.
func q(kv ...string) map[string][]string {
	m := map[string][]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = []string{kv[i+1]}
	}
	return m
}

func windowsList(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = strconv.Itoa(1000 * (i + 1))
	}
	return strings.Join(s, ",")
}

func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		experiment string
		query      map[string][]string
		check      func(p any) bool
	}{
		{"exponent int", "window", q("jobs", "1e4"), func(p any) bool { return p.(WindowParams).Jobs == 10_000 }},
		{"point-zero int", "window", q("jobs", "20000.0"), func(p any) bool { return p.(WindowParams).Jobs == 20_000 }},
		{"spaces", "window", q("jobs", " 300 "), func(p any) bool { return p.(WindowParams).Jobs == 300 }},
		{"max seed", "window", q("seed", "9223372036854775807"), func(p any) bool { return p.(WindowParams).Seed == 1<<63-1 }},
		{"list sorted and deduplicated", "window", q("windows", "300, 100,200,100"), func(p any) bool {
			return reflect.DeepEqual(p.(WindowParams).Windows, []int64{100, 200, 300})
		}},
		{"50 items", "window", q("windows", windowsList(50)), func(p any) bool { return len(p.(WindowParams).Windows) == 50 }},
		{"minus zero is zero", "window", q("crash_rate", "-0"), func(p any) bool {
			return p.(WindowParams).CrashRate == 0 && strconv.FormatFloat(p.(WindowParams).CrashRate, 'g', -1, 64) == "0"
		}},
		{"allowed extra key", "window", q("format", "json"), func(p any) bool { return reflect.DeepEqual(p, DefaultWindowParams()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := mustLookup(t, tc.experiment).Parse(tc.query, "format")
			if err != nil {
				t.Fatal(err)
			}
			if !tc.check(p) {
				t.Errorf("parsed %v as %+v", tc.query, p)
			}
		})
	}
}

// TestParseRoundTrip checks that Format and Parse are inverses at the defaults, so a permalink
// reproduces the run it came from.
func TestParseRoundTrip(t *testing.T) {
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			raw := map[string][]string{}
			for k, v := range e.Format(e.Defaults()) {
				raw[k] = []string{v}
			}
			p, err := e.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, e.Defaults()) {
				t.Errorf("round trip gave %+v, want %+v", p, e.Defaults())
			}
			if e.Key(p) != e.Key(e.Defaults()) {
				t.Errorf("keys differ")
			}
		})
	}
}
