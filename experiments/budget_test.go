package experiments

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
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
						t.Fatalf("%s = %s is within the advertised range (%s) but refused: %v", f.Name, Clip(raw, 60), f.Range(), err)
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

// randomText draws a value for f within its advertised range, favouring the ends, as text.
func randomText(r *rand.Rand, f Field) string {
	one := func() string {
		switch f.Kind {
		case KindInt, KindIntList:
			switch r.IntN(3) {
			case 0:
				return strconv.FormatInt(f.MaxInt, 10)
			case 1:
				return strconv.FormatInt(f.MinInt, 10)
			}
			span := float64(f.MaxInt - f.MinInt)
			return strconv.FormatInt(f.MinInt+int64(math.Pow(span, r.Float64())), 10)
		default:
			switch r.IntN(3) {
			case 0:
				return FormatFloat(f.Max)
			case 1:
				return FormatFloat(f.Min)
			}
			return FormatFloat(f.Min + (f.Max-f.Min)*math.Pow(r.Float64(), 3))
		}
	}
	if !f.IsList() {
		return one()
	}
	items := make([]string, 1+r.IntN(MaxListItems))
	for i := range items {
		items[i] = one()
	}
	return strings.Join(items, ",")
}

// TestPropertyOverBudget throws random combinations of in-range values at every experiment and,
// whenever one is refused for its size, takes the message at its word: the named field must be
// one the cost grows with, and the value stated must run with everything else unchanged.
func TestPropertyOverBudget(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 2026))
	refused := 0
	for _, e := range All() {
		for i := range 400 {
			query := map[string][]string{}
			for _, f := range e.Fields {
				if r.IntN(2) == 0 {
					query[f.Name] = []string{randomText(r, f)}
				}
			}
			_, err := e.Parse(query)
			var fe FieldErrors
			if err == nil || !errors.As(err, &fe) || !strings.Contains(fe.Error(), "too large") {
				continue
			}
			refused++
			name := fmt.Sprintf("%s/%d", e.Name, i)
			if len(fe) != 1 || !slices.ContainsFunc(e.levers, func(l lever) bool { return l.field == fe[0].Field }) {
				t.Errorf("%s: %v is not one error on a lever", name, fe)
				continue
			}
			f, _ := e.Field(fe[0].Field)
			m := limitText.FindStringSubmatch(fe[0].Message)
			if m == nil {
				if !strings.Contains(fe[0].Message, "no value of "+strings.ToLower(f.Label)+" alone") {
					t.Errorf("%s: no limit stated in %q for %v", name, fe[0].Message, query)
				}
				// The message says no single lever is enough: check that each, at its cheapest, is refused.
				for _, l := range e.levers {
					lf, _ := e.Field(l.field)
					var cheapest []string
					switch {
					case l.way == raiseFloor:
						cheapest = []string{FormatFloat(lf.Max)}
					case l.way == fewerItems:
						items := strings.Split(fmt.Sprint(formatOr(e, query, l.field)), ",")
						cheapest = []string{items[0], items[len(items)-1]}
					case lf.Kind == KindInt:
						cheapest = []string{strconv.FormatInt(lf.MinInt, 10)}
					default:
						cheapest = []string{FormatFloat(lf.Min)}
					}
					for _, v := range cheapest {
						alone := maps.Clone(query)
						alone[l.field] = []string{v}
						if _, err := e.Parse(alone); err == nil {
							t.Errorf("%s: says no value of %s alone fits, but %s = %s does", name, f.Name, l.field, v)
						}
					}
				}
				continue
			}
			fixed := maps.Clone(query)
			if strings.HasPrefix(m[0], "at least") {
				// every item below the floor raised to it
				var items []string
				for _, s := range strings.Split(formatOr(e, query, f.Name), ",") {
					v, _ := strconv.ParseFloat(s, 64)
					floor, _ := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
					items = append(items, FormatFloat(max(v, floor)))
				}
				fixed[f.Name] = []string{strings.Join(items, ",")}
			} else if f.IsList() {
				k, _ := strconv.Atoi(m[2])
				fixed[f.Name] = []string{strings.Join(strings.Split(formatOr(e, query, f.Name), ",")[:k], ",")}
			} else {
				fixed[f.Name] = []string{m[2]}
			}
			if _, err := e.Parse(fixed); err != nil {
				t.Errorf("%s: %q, followed, is still refused: %v", name, fe[0].Message, err)
			}
		}
	}
	t.Logf("%d runs refused for size", refused)
	if refused < 20 {
		t.Errorf("only %d runs were refused for size: the draws do not exercise the message", refused)
	}
}

// formatOr is the text of the field in the query, or of its default when the query leaves it out.
func formatOr(e *Experiment, query map[string][]string, field string) string {
	if v, ok := query[field]; ok {
		return v[0]
	}
	return e.Format(e.Defaults())[field]
}
