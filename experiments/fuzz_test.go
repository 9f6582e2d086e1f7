package experiments

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParse throws arbitrary text at every field of every experiment. Parse must never panic, an
// accepted value must be in range and within the cost budget, and a refused one must come back as
// field errors that name the field and say what it accepts.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"20000", "-1", "0", "NaN", "inf", "1e309", "0x10", "1_000", "１２", "",
		"   ", "1,2,3", strings.Repeat("9", 40), strings.Repeat("1,", 5000), "<script>alert(1)</script>",
		"1e6", "2.5", "-0", "+7", "1e-400", "0.1.2", "e5", "1,,2", "9223372036854775807",
		"20,000", "0,5", "1\u2009000", "-1_000.5", "1,000e3", ",", "+,000"} {
		f.Add(s)
	}
	all := All()
	f.Fuzz(func(t *testing.T, raw string) {
		for _, e := range all {
			for _, fl := range e.Fields {
				p, err := e.Parse(map[string][]string{fl.Name: {raw}})
				if err != nil {
					var fe FieldErrors
					if !errors.As(err, &fe) || len(fe) == 0 {
						t.Fatalf("%s.%s %q: error %v is not field errors", e.Name, fl.Name, raw, err)
					}
					for _, x := range fe {
						if _, ok := e.Field(x.Field); !ok {
							t.Fatalf("%s.%s %q: error names unknown field %q", e.Name, fl.Name, raw, x.Field)
						}
						if x.Message == "" || len(x.Message) > 600 {
							t.Fatalf("%s.%s %q: message %q", e.Name, fl.Name, raw, x.Message)
						}
					}
					continue
				}
				if c := e.Cost(p); c > MaxCost {
					t.Fatalf("%s.%s %q: accepted a run of cost %d", e.Name, fl.Name, raw, c)
				}
				// What was accepted formats and parses back to the same parameters.
				again, err := e.Parse(map[string][]string{fl.Name: {e.Format(p)[fl.Name]}})
				if err != nil || e.Key(again) != e.Key(p) {
					t.Fatalf("%s.%s %q: round trip %v", e.Name, fl.Name, raw, err)
				}
			}
		}
	})
}
