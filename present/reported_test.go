package present

import (
	"context"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// TestEveryCountHasWords runs every experiment at its defaults and checks that each number it
// reports has words of its own (a unit, and its row) and the value Counts gives it.
func TestEveryCountHasWords(t *testing.T) {
	for _, e := range experiments.All() {
		t.Run(e.Name, func(t *testing.T) {
			res, err := e.Run(context.Background(), e.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			list, counts := ReportedBy(e, res), e.Counts(res)
			if len(list) == 0 || len(list) != len(counts) {
				t.Fatalf("%d numbers reported for %d counts", len(list), len(counts))
			}
			for i, r := range list {
				if _, named := countUnits[e.Name+"/"+r.Measure]; !named {
					if _, named = countUnits[r.Measure]; !named {
						t.Errorf("count %q has no words in countUnits", r.Measure)
					}
				}
				if r.Value != counts[i].Value || r.Point != counts[i].Point || strings.Contains(r.Words, "_") {
					t.Errorf("%+v for count %+v", r, counts[i])
				}
			}
		})
	}
}

// TestReportedWordsAndRows checks the words a study room asks with, and that a number reported at
// several rows is never found without its row.
func TestReportedWordsAndRows(t *testing.T) {
	e, _ := experiments.Lookup("window")
	p, err := e.Parse(map[string][]string{"max_delay": {"5000"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	list := ReportedBy(e, res)
	r, fe := FindReported(list, "escaped", "1000")
	if fe != nil || r.Words != "escaped duplicates at window 1,000" || r.Unit != "escaped duplicates" {
		t.Fatalf("escaped at 1000: %+v %v", r, fe)
	}
	if q := r.Question(e, p); q != "How many escaped duplicates at window 1,000? (Escape rate versus dedup window, with max redelivery delay 5,000 jobs)" {
		t.Errorf("question %q", q)
	}
	if _, fe := FindReported(list, "escaped", ""); fe == nil || fe.Field != "point" || !strings.Contains(fe.Message, "100, 500, 1000") {
		t.Errorf("escaped without its row: %v, want a refusal naming point and the rows", fe)
	}
	if _, fe := FindReported(list, "escaped_duplicates", "1000"); fe == nil || fe.Field != "measure" || !strings.Contains(fe.Message, "escaped") {
		t.Errorf("a CSV column as a measure: %v, want a refusal naming measure", fe)
	}
	scale, _ := experiments.Lookup("scale")
	sres, _ := scale.Run(context.Background(), scale.Defaults())
	if r, fe := FindReported(ReportedBy(scale, sres), "duplicates_per_day", ""); fe != nil || r.Words != "duplicates a day" ||
		r.Question(scale, scale.Defaults()) != "How many duplicates a day? (Duplicates at scale, at its defaults)" {
		t.Errorf("a number of a one-row run: %+v %v", r, fe)
	}
}

// TestHeadlineIsWhatTheReadingSays holds each reading's headline, the number a study room may ask
// about beside the counts, to the number the reading's first paragraph states, at the defaults
// and at parameters that move it; and it is found by its name, as a count is.
func TestHeadlineIsWhatTheReadingSays(t *testing.T) {
	heads := 0
	for _, e := range experiments.All() {
		for _, q := range []map[string][]string{nil, {"seed": {"7"}}} {
			p := e.Defaults()
			if q != nil {
				if _, ok := e.Field("seed"); !ok {
					continue
				}
				var err error
				if p, err = e.Parse(q); err != nil {
					t.Fatal(err)
				}
			}
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			list := ReportedAt(e, p, res)
			if n := len(list) - len(ReportedBy(e, res)); n > 1 {
				t.Fatalf("%s: %d headlines", e.Name, n)
			}
			if !list[0].Opening {
				continue
			}
			heads++
			h := list[0]
			pr, _ := PresenterFor(e.Name)
			reading, _ := pr.Reading(p, res)
			said := experiments.FormatFloat(h.Value)
			if h.Value == float64(int64(h.Value)) {
				said = experiments.Thousands(int64(h.Value))
			}
			if !strings.Contains(reading[0], said+" ") {
				t.Errorf("%s %v: headline %s is %s; the reading opens %q", e.Name, q, h.Measure, said, reading[0])
			}
			if got, fe := FindReported(list, h.Measure, ""); fe != nil || got.Value != h.Value {
				t.Errorf("%s: the headline %q is not found by its name: %+v %v", e.Name, h.Measure, got, fe)
			}
			if qs := h.Question(e, p); !strings.HasSuffix(qs, ")") || strings.Contains(qs, "_") {
				t.Errorf("%s: the headline's question %q", e.Name, qs)
			}
		}
	}
	if heads < 5*2 {
		t.Errorf("%d headlines over the experiments' runs, want the crash designs', the window's and the lease's", heads)
	}
}
