package rooms

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"
)

func TestQuantile(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []float64
		p    float64
		want float64
	}{
		{"empty", nil, 0.5, 0},
		{"one", []float64{7}, 0.5, 7},
		{"odd median", []float64{1, 2, 10}, 0.5, 2},
		{"even median", []float64{1, 2, 3, 10}, 0.5, 2.5},
		{"first quartile", []float64{1, 2, 3, 4, 5}, 0.25, 2},
		{"interpolated quartile", []float64{1, 2, 3, 4}, 0.75, 3.25},
		{"max", []float64{1, 2, 3}, 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Quantile(tc.vals, tc.p); got != tc.want {
				t.Fatalf("Quantile = %v, want %v", got, tc.want)
			}
		})
	}
}

// session is a room with three members, one revealed round, one open round and two pins, one
// hidden: enough to see every difference between callers.
func session(t *testing.T) (*fixture, map[string]string) {
	t.Helper()
	ctx := context.Background()
	f := newFixture(t, Config{})
	keys := map[string]string{}
	for _, n := range []string{"Ada", "Bo", "Cy"} {
		keys[n] = f.join(t, n)
	}
	r1 := f.round(t, Question{Kind: KindPrediction, Prediction: "q1"})
	for n, v := range map[string]float64{"Ada": 400, "Bo": 100, "Cy": 1000} {
		if err := f.svc.Guess(ctx, f.as(t, keys[n]), r1, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.Reveal(ctx, f.as(t, f.host), r1, measured(398)); err != nil {
		t.Fatal(err)
	}
	r2 := f.round(t, custom)
	if err := f.svc.Guess(ctx, f.as(t, keys["Bo"]), r2, 7); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.AddPin(ctx, f.as(t, keys["Ada"]), "/blocks/4?max_delay=5000", "=HYPERLINK(\"x\")"); err != nil {
		t.Fatal(err)
	}
	p, err := f.svc.AddPin(ctx, f.as(t, keys["Bo"]), "/assembly", "<script>no</script>")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.SetPinHidden(ctx, f.as(t, f.host), p.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Present(ctx, f.as(t, f.host), "/blocks/4"); err != nil {
		t.Fatal(err)
	}
	return f, keys
}

func TestStateByCaller(t *testing.T) {
	ctx := context.Background()
	f, keys := session(t)
	present := func(id string) bool { return true }
	for _, tc := range []struct {
		name  string
		key   string
		check func(t *testing.T, v View)
	}{
		{"nobody sees only the header", "", func(t *testing.T, v View) {
			if v.Role != Nobody || v.Title != "Delivery semantics" || v.Seated != 3 ||
				v.Roster != nil || v.Rounds != nil || v.Pins != nil || v.Presenting != "" {
				t.Fatalf("nobody sees %+v", v)
			}
		}},
		{"member sees counts, own guess, values without names", keys["Ada"], func(t *testing.T, v View) {
			if v.Role != AsMember || v.You == nil || v.You.Name != "Ada" || len(v.Roster) != 3 || !v.Roster[0].Present {
				t.Fatalf("roster %+v, you %+v", v.Roster, v.You)
			}
			open := v.Rounds[1]
			if open.Answered != 1 || open.Of != 3 || open.Result != nil || open.YourGuess != nil {
				t.Fatalf("open round shows %+v", open)
			}
			res := v.Rounds[0].Result
			if res == nil || res.Measured != 398 || res.Median != 400 || res.Min != 100 || res.Max != 1000 ||
				res.Q1 != 250 || res.Q3 != 700 {
				t.Fatalf("result %+v", res)
			}
			if res.YourDistance == nil || *res.YourDistance != 2 {
				t.Fatalf("distance %v, want 2", res.YourDistance)
			}
			for i, g := range res.Guesses {
				if g.Name != "" {
					t.Fatalf("member sees name %q", g.Name)
				}
				if want := []float64{100, 400, 1000}[i]; g.Value != want {
					t.Fatalf("guess %d = %v, want %v (ascending)", i, g.Value, want)
				}
			}
			if len(v.Pins) != 1 || v.Pins[0].Name != "Ada" || v.Presenting != "/blocks/4" {
				t.Fatalf("pins %+v presenting %q", v.Pins, v.Presenting)
			}
		}},
		{"member sees own guess while open", keys["Bo"], func(t *testing.T, v View) {
			if g := v.Rounds[1].YourGuess; g == nil || *g != 7 {
				t.Fatalf("own guess %v", g)
			}
		}},
		{"host sees names and hidden pins", f.host, func(t *testing.T, v View) {
			if v.Role != AsHost || v.You != nil {
				t.Fatalf("host view %+v", v)
			}
			res := v.Rounds[0].Result
			if res.Guesses[0].Name != "Bo" || res.Guesses[2].Name != "Cy" || res.YourDistance != nil {
				t.Fatalf("host result %+v", res)
			}
			if v.Rounds[1].Result != nil {
				t.Fatal("host sees values of an open round")
			}
			if len(v.Pins) != 2 || !v.Pins[1].Hidden && !v.Pins[0].Hidden {
				t.Fatalf("host pins %+v", v.Pins)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := f.svc.State(ctx, f.as(t, tc.key), present)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, v)
		})
	}

	t.Run("names turned on", func(t *testing.T) {
		if err := f.svc.SetNamesVisible(ctx, f.as(t, f.host), 1, true); err != nil {
			t.Fatal(err)
		}
		v, err := f.svc.State(ctx, f.as(t, keys["Cy"]), nil)
		if err != nil {
			t.Fatal(err)
		}
		if g := v.Rounds[0].Result.Guesses; g[1].Name != "Ada" || v.Roster[0].Present {
			t.Fatalf("with names on, member sees %+v (present %v)", g, v.Roster[0].Present)
		}
	})
}

func TestExport(t *testing.T) {
	ctx := context.Background()
	f, _ := session(t)
	ex, err := f.svc.Export(ctx, f.as(t, f.host))
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Roster) != 3 || len(ex.Rounds) != 2 || len(ex.Pins) != 2 || ex.Rounds[1].Measured != nil ||
		*ex.Rounds[0].Measured != 398 || len(ex.Rounds[0].Guesses) != 3 {
		t.Fatalf("export %+v", ex)
	}

	t.Run("json", func(t *testing.T) {
		b, err := json.Marshal(ex)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`"measured":398`, `"prediction":"q1"`, `"measured":null`,
			`"note":"\u003cscript\u003eno\u003c/script\u003e"`, `"hidden":true`, `"name":"Ada"`} {
			if !strings.Contains(string(b), want) {
				t.Errorf("JSON lacks %s:\n%s", want, b)
			}
		}
	})

	t.Run("csv", func(t *testing.T) {
		var buf bytes.Buffer
		if err := ex.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		count := map[string]int{}
		for _, r := range rows[1:] {
			if len(r) != len(csvHeader) {
				t.Fatalf("row %v has %d cells", r, len(r))
			}
			count[r[0]]++
		}
		if count["member"] != 3 || count["round"] != 2 || count["guess"] != 4 || count["pin"] != 2 {
			t.Fatalf("rows by record: %v", count)
		}
		text := strings.Join(flatten(rows), "|")
		for _, want := range []string{"round|1|q1|revealed|398", "'=HYPERLINK", "/blocks/4?max_delay=5000", "guess|1||||Bo|100"} {
			if !strings.Contains(text, want) {
				t.Errorf("CSV lacks %q", want)
			}
		}
	})
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r...)
	}
	return out
}

// TestMeasureLabelNamesItsRow checks that an export names a measure round's row: a count such as
// the window's escaped duplicates stands at every window, and only the row says which was asked.
func TestMeasureLabelNamesItsRow(t *testing.T) {
	q := Question{Kind: KindMeasure, Experiment: "window", Params: "max_delay=5000", Measure: "escaped", Point: "1000"}
	if got := q.Label(); got != "window?max_delay=5000 escaped at 1000" {
		t.Errorf("label %q", got)
	}
}
