package experiments

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// extremes returns the texts a form may carry for f at the ends of its advertised range: each
// bound alone and, for a list, as many items as a list may hold, spread over the whole range.
func extremes(f Field) map[string]string {
	out := map[string]string{}
	switch f.Kind {
	case KindInt:
		out["min"], out["max"] = strconv.FormatInt(f.MinInt, 10), strconv.FormatInt(f.MaxInt, 10)
	case KindFloat:
		out["min"], out["max"] = FormatFloat(f.Min), FormatFloat(f.Max)
	case KindIntList:
		out["min"], out["max"] = strconv.FormatInt(f.MinInt, 10), strconv.FormatInt(f.MaxInt, 10)
		items := make([]string, MaxListItems)
		for i := range items {
			v := f.MaxInt - int64(i)*((f.MaxInt-f.MinInt)/int64(MaxListItems-1))
			items[i] = strconv.FormatInt(max(v, f.MinInt), 10)
		}
		out["full list"] = strings.Join(items, ",")
	case KindFloatList:
		out["min"], out["max"] = FormatFloat(f.Min), FormatFloat(f.Max)
		items := make([]string, MaxListItems)
		for i := range items {
			items[i] = FormatFloat(f.Min + (f.Max-f.Min)*float64(i)/float64(MaxListItems-1))
		}
		out["full list"] = strings.Join(items, ",")
	}
	return out
}

// TestAdvertisedRangesRunAtDefaults holds every form to its word: whatever a field's range says it
// accepts must run when the other fields keep the document's values, so that a reader who types
// the largest number the form names is never refused for size.
func TestAdvertisedRangesRunAtDefaults(t *testing.T) {
	for _, e := range All() {
		for _, f := range e.Fields {
			for end, raw := range extremes(f) {
				t.Run(e.Name+"/"+f.Name+"/"+end, func(t *testing.T) {
					p, err := e.Parse(map[string][]string{f.Name: {raw}})
					if err != nil {
						t.Fatalf("%s = %s is within the advertised range (%s) but refused: %v", f.Name, clip(raw, 60), f.Range(), err)
					}
					if c := e.Cost(p); c > MaxCost {
						t.Fatalf("accepted at cost %d, over the budget", c)
					}
				})
			}
		}
	}
}

// limitText finds the number an over-budget message states, after "at most" or "at least".
var limitText = regexp.MustCompile(`at (most|least) ([0-9][0-9,]*(\.[0-9]+)?)`)

// TestOverBudgetStatesWhatFits checks the message a reader gets when a run is too large: it sits on
// the field that drives the cost, speaks in that field's terms with the direction that helps, and
// the number it states is right: that value runs, and a step past it does not.
func TestOverBudgetStatesWhatFits(t *testing.T) {
	for _, tc := range []struct {
		name, experiment string
		query            map[string][]string
		field, verb      string
		// next is one step past the stated value in the costly direction; ok is the stated value.
		ok, next func(limit string) string
	}{
		{"claims: jobs with every job crashing", "claims", q("jobs", "5,000,000", "crash_rate", "1", "max_delay", "10000000"),
			"jobs", "lower", same, plusOne},
		{"window: many jobs and fifty windows", "window", q("jobs", "10000000", "windows", windowsList(50)),
			"jobs", "lower", same, plusOne},
		{"window grid: many jobs and long lists", "window-grid", q("jobs", "10000000", "windows", windowsList(20), "max_delays", windowsList(20)),
			"jobs", "lower", same, plusOne},
		{"lease: ten million jobs with lossy heartbeats", "lease", q("jobs", "10000000", "heartbeat_loss", "0.1", "timeouts", "0.001"),
			"jobs", "lower", same, plusOne},
		{"lease: tiny timeouts with lossy heartbeats", "lease", q("jobs", "1000000", "heartbeat_loss", "0.1", "timeouts", "0.001"),
			"timeouts", "raise", same, times(0.98)},
		{"lease: slow jobs with lossy heartbeats", "lease", q("jobs", "1000000", "heartbeat_loss", "0.1", "slow_fraction", "1", "slow_mean_s", "86400"),
			"slow_mean_s", "lower", same, times(1.02)},
		{"window grid: many delays at a high crash rate", "window-grid", q("jobs", "1000000", "crash_rate", "1", "max_delays", windowsList(50), "windows", windowsList(50)),
			"jobs", "lower", same, plusOne},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.experiment)
			_, err := e.Parse(tc.query)
			var fe FieldErrors
			if !errors.As(err, &fe) {
				t.Fatalf("accepted, or refused with %v", err)
			}
			if len(fe) != 1 || fe[0].Field != tc.field {
				t.Fatalf("error on %v, want one on %s", fe, tc.field)
			}
			msg := fe[0].Message
			for _, bad := range []string{"work units", "shrink the lists"} {
				if strings.Contains(msg, bad) {
					t.Errorf("message %q speaks of %q", msg, bad)
				}
			}
			if !strings.Contains(msg, tc.verb) {
				t.Errorf("message %q does not say %q", msg, tc.verb)
			}
			m := limitText.FindStringSubmatch(msg)
			if m == nil {
				t.Fatalf("message %q states no limit", msg)
			}
			limit := m[2]
			run := func(v string) error {
				q := map[string][]string{}
				for k, vs := range tc.query {
					q[k] = vs
				}
				q[tc.field] = []string{v}
				_, err := e.Parse(q)
				return err
			}
			if err := run(tc.ok(limit)); err != nil {
				t.Errorf("the stated %s = %s is refused: %v", tc.field, limit, err)
			}
			if err := run(tc.next(limit)); err == nil {
				t.Errorf("%s = %s, just past the stated %s, is accepted: the limit is not the largest that fits", tc.field, tc.next(limit), limit)
			}
		})
	}
}

func same(s string) string { return s }

func plusOne(s string) string {
	v, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		panic(err)
	}
	return strconv.FormatInt(v+1, 10)
}

func times(f float64) func(string) string {
	return func(s string) string {
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
		if err != nil {
			panic(err)
		}
		return fmt.Sprint(v * f)
	}
}
