package present

import (
	"effectivelyonce/experiments"
	"encoding/json"
	"strings"
	"testing"
)

func TestTablesAndCSV(t *testing.T) {
	tabs := assemblyTables(experiments.DefaultStreamParams(), experiments.AssemblyResult{Jobs: 20000, Crashed: 398, Rows: []experiments.AssemblyRow{
		{Design: experiments.DesignAtMostOnce, Lost: 398, ExactlyOnce: 19602, Deliveries: 20000, Effects: 19602},
		{Design: experiments.DesignDedupTransactional, ExactlyOnce: 20000, Correct: true, Deliveries: 20398, Effects: 20000}}})
	if len(tabs) != 1 {
		t.Fatal(len(tabs))
	}
	csv := tabs[0].CSV()
	want := "design,lost_jobs,exactly_once_jobs,duplicated_jobs,correct,deliveries,effects\r\nat-most-once,398,19602,0,false,20000,19602\r\ndedup-transactional,0,20000,0,true,20398,20000\r\n"
	if csv != want {
		t.Errorf("csv = %q\nwant %q", csv, want)
	}
	if txt := tabs[0].Text(); !strings.Contains(txt, "at-most-once          398        19,602") {
		t.Errorf("text table:\n%s", txt)
	}
}

func TestChartsCarrySeries(t *testing.T) {
	windowParams, windowResult := windowRun()
	for _, tc := range []struct {
		name   string
		params any
		result any
		series []string
	}{
		{"window", windowParams, windowResult, []string{"escape rate"}},
		{"lease", experiments.DefaultLeaseParams(), experiments.LeaseResult{Points: []experiments.LeasePoint{{TimeoutS: 5, NoRenewal: 2448, RenewDouble: 20000}}}, []string{"no renewal", "renew at 2t, real queue", "renew at t/3"}},
		{"assembly", experiments.DefaultStreamParams(), experiments.AssemblyResult{Rows: []experiments.AssemblyRow{{Design: experiments.DesignAtMostOnce, Lost: 398}}}, []string{"lost", "duplicated"}},
		{"window-grid", experiments.DefaultWindowGridParams(), experiments.WindowGridResult{Windows: []int64{500}, MaxDelays: []int64{200, 1000}, Cells: []experiments.GridCell{{MaxDelay: 200, Window: 500}, {MaxDelay: 1000, Window: 500, Escaped: 198}}}, []string{"window 500"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr, _ := PresenterFor(tc.name)
			cs, err := pr.Charts("exp-x", tc.params, tc.result)
			if err != nil {
				t.Fatal(err)
			}
			if len(cs) != 1 {
				t.Fatalf("%d charts", len(cs))
			}
			names, err := seriesNames(cs[0].Options)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(names, "|") != strings.Join(tc.series, "|") {
				t.Errorf("series %v, want %v", names, tc.series)
			}
			if !strings.HasPrefix(cs[0].ID, "exp-x-") {
				t.Errorf("chart id %q is not stable under the block id", cs[0].ID)
			}
		})
	}
}

func TestUnits(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{duration(86.4), "86.4 s"}, {duration(8.64e-5), "86.4 µs"}, {duration(0.0864), "86.4 ms"},
		{duration(0), "never"}, {duration(86400 * 1000), "1,000 days"}, {duration(3600), "60 min"},
		{bytesSI(448e9), "448 GB"}, {bytesSI(448e3), "448 KB"}, {bytesSI(999.6), "1,000 B"}, {bytesSI(12), "12 B"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// windowRun is a small window sweep's parameters and result, as a page would have them.
func windowRun() (experiments.WindowParams, experiments.WindowResult) {
	e, _ := experiments.Lookup("window")
	p := e.Defaults().(experiments.WindowParams)
	p.MaxDelay = 1000
	p.Windows = []int64{500, 1000}
	return p, experiments.WindowResult{Jobs: 20000, Crashed: 398, MaxDelay: 1000, Points: []experiments.WindowPoint{
		{Window: 500, Escaped: 198, EscapeRate: 0.0099, StateKB: 7}, {Window: 1000, Escaped: 0, EscapeRate: 0, StateKB: 15}}}
}

// seriesNames reads the series names of chart options through their JSON form, as the browser
// receives them.
func seriesNames(options map[string]any) ([]string, error) {
	b, err := json.Marshal(options)
	if err != nil {
		return nil, err
	}
	var v struct {
		Series []struct {
			Name string `json:"name"`
		} `json:"series"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	var names []string
	for _, s := range v.Series {
		names = append(names, s.Name)
	}
	return names, nil
}
