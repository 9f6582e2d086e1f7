package experiments

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseThousandsSeparators checks that a scalar field takes a number the way the site prints it
// (20,000) and the other common groupings, while a comma that cannot be a thousands mark (0,5 as a
// decimal comma) is refused rather than read as 5; list fields still split on every comma.
func TestParseThousandsSeparators(t *testing.T) {
	for _, tc := range []struct {
		name, experiment, field, raw string
		want                         any // the parsed member, or nil for a refusal
		says                         []string
	}{
		{"comma", "assembly", "jobs", "20,000", int64(20_000), nil},
		{"underscore", "assembly", "jobs", "20_000", int64(20_000), nil},
		{"thin space", "assembly", "jobs", "20\u2009000", int64(20_000), nil},
		{"narrow no-break space", "assembly", "jobs", "20\u202f000", int64(20_000), nil},
		{"millions", "window", "max_delay", "1,000,000", int64(1_000_000), nil},
		{"signed", "window", "seed", "+1,000", int64(1000), nil},
		{"largest seed", "window", "seed", "9,223,372,036,854,775,807", int64(1<<63 - 1), nil},
		{"float with a fraction", "lease", "fast_mean_s", "1,000.25", 1000.25, nil},
		{"float with an exponent", "scale", "messages_per_day", "1,000e6", 1e9, nil},
		{"surrounding spaces", "assembly", "jobs", " 20,000 ", int64(20_000), nil},
		{"decimal comma", "lease", "slow_fraction", "0,5", nil, []string{`"0,5"`, "threes", "point", "from 0 to 1"}},
		{"decimal comma, three digits", "lease", "fast_mean_s", "0,500", nil, []string{"threes"}},
		{"group of four", "assembly", "jobs", "1,0000", nil, []string{"threes"}},
		{"group of two", "assembly", "jobs", "20,00", nil, []string{"threes"}},
		{"first group too long", "assembly", "jobs", "2000,000", nil, []string{"threes"}},
		{"leading separator", "assembly", "jobs", ",000", nil, []string{"threes"}},
		{"trailing separator", "assembly", "jobs", "20,", nil, []string{"threes"}},
		{"doubled separator", "assembly", "jobs", "1__000", nil, []string{"threes"}},
		{"mixed separators", "assembly", "jobs", "1,000_000", nil, []string{"threes"}},
		{"separator in the fraction", "lease", "fast_mean_s", "1.000,5", nil, []string{"threes"}},
		{"separator in the exponent", "scale", "messages_per_day", "1e1,000", nil, []string{"threes"}},
		{"grouped but out of range", "assembly", "jobs", "20,000,000", nil, []string{"out of range", "from 1 to"}},
		{"list items still split on commas", "window", "windows", "1,000", []int64{0, 1}, []string{"out of range"}},
		{"list of plain numbers", "window", "windows", "2000,1000", []int64{1000, 2000}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.experiment)
			p, err := e.Parse(map[string][]string{tc.field: {tc.raw}})
			if tc.says != nil {
				var fe FieldErrors
				if err == nil || !errors.As(err, &fe) {
					t.Fatalf("accepted %q as %+v", tc.raw, p)
				}
				msg := fe.For(tc.field)
				if msg == "" {
					t.Fatalf("no error on %s: %v", tc.field, fe)
				}
				for _, s := range tc.says {
					if !strings.Contains(msg, s) {
						t.Errorf("message %q lacks %q", msg, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("refused %q: %v", tc.raw, err)
			}
			m, _ := member(reflect.ValueOf(p), tc.field)
			if !reflect.DeepEqual(m.Interface(), tc.want) {
				t.Errorf("%q parsed as %v, want %v", tc.raw, m.Interface(), tc.want)
			}
		})
	}
}
