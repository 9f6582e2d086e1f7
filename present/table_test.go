package present

import (
	"context"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"effectivelyonce/experiments"
)

// snake is a header a program can use as a column name.
var snake = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// TestTablesHaveAProgramForm holds issue 8's item 13 for every experiment at its defaults: each
// table carries snake_case keys, one per column for people (the scale table excepted, whose
// program form is one row), and the cells of every numeric column are plain numbers a
// spreadsheet reads (no separators, units or percent signs); the people's form keeps its format.
func TestTablesHaveAProgramForm(t *testing.T) {
	for _, e := range experiments.All() {
		t.Run(e.Name, func(t *testing.T) {
			pr, _ := PresenterOf(e)
			p := e.Defaults()
			res, err := e.Run(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := pr.Tables(p, res)
			if err != nil {
				t.Fatal(err)
			}
			for _, tb := range tables {
				checkProgramForm(t, e.Name, tb)
			}
		})
	}
}

func checkProgramForm(t *testing.T, name string, tb Table) {
	t.Helper()
	if len(tb.Keys) == 0 || len(tb.Data) == 0 {
		t.Fatalf("%s: table %q has no program form", name, tb.Caption)
	}
	for _, k := range tb.Keys {
		if !snake.MatchString(k) {
			t.Errorf("%s: key %q is not snake_case", name, k)
		}
	}
	wide := name == "scale"
	if !wide && (len(tb.Keys) != len(tb.Head) || len(tb.Data) != len(tb.Rows)) {
		t.Errorf("%s: %d keys and %d data rows for %d headings and %d rows", name, len(tb.Keys), len(tb.Data), len(tb.Head), len(tb.Rows))
	}
	for _, row := range tb.Data {
		if len(row) != len(tb.Keys) {
			t.Fatalf("%s: data row %v under %d keys", name, row, len(tb.Keys))
		}
		for i, c := range row {
			numeric := wide || (i < len(tb.Numeric) && tb.Numeric[i])
			if numeric && !c.IsNumber {
				t.Errorf("%s: %s = %+v carries no number", name, tb.Keys[i], c)
			}
			if v, err := strconv.ParseFloat(c.Raw(), 64); c.IsNumber && c.Raw() != "" && (err != nil || v != c.Number) {
				t.Errorf("%s: %s = %q is not a plain number that reads back as %v", name, tb.Keys[i], c.Raw(), c.Number)
			}
		}
	}
}

// TestProgramFormInBaseUnits pins the program form of the tables whose people's form uses units:
// the window's state in bytes and its escape rate as a fraction, the lease's timeouts in seconds,
// the crash sweep's rates as fractions, and the scale figures at the largest values accepted,
// which stay numbers rather than words or powers of ten in superscript.
func TestProgramFormInBaseUnits(t *testing.T) {
	w := windowTables(experiments.DefaultWindowParams(), experiments.WindowResult{Jobs: 20_000, Crashed: 398, MaxDelay: 2000,
		Points: []experiments.WindowPoint{{Window: 1000, Escaped: 195, EscapeRate: 0.00975, StateKB: 15}}})[0]
	l := leaseTables(experiments.DefaultLeaseParams(), experiments.LeaseResult{Jobs: 20_000, Points: []experiments.LeasePoint{{TimeoutS: 0.001, NoRenewal: 19_989, RenewDouble: 20_000, RenewDoubleReal: 19_989}}})[0]
	c := crashSweepTables(experiments.DefaultCrashSweepParams(), experiments.CrashSweepResult{Jobs: 20_000, Points: []experiments.CrashSweepPoint{{CrashRate: 0.000001, Lost: 1, AckAfterDuplicated: 1}}})[0]
	s := scaleTables(experiments.ScaleParams{}, experiments.ScaleResult{DuplicatesPerDay: 1e15, SecondsBetweenDuplicates: 8.64e-11, DedupKeys: 3.65e19, DedupStoreBytes: 3.65e25, RetryPeakMultiplier: 1000})[0]
	none := scaleTables(experiments.ScaleParams{}, experiments.ScaleResult{DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5})[0]
	for _, tc := range []struct{ got, want string }{
		{w.CSV(), "window_ids,state_bytes,escaped_duplicates,escape_rate\r\n1000,16000,195,0.00975\r\n"},
		{strings.Join(w.Rows[0], "|"), "1,000|15 KB|195|0.97%"},
		{l.CSV(), "timeout_s,twice_no_renewal_jobs,twice_renew_third_jobs,twice_renew_double_jobs,twice_renew_double_real_jobs\r\n0.001,19989,0,20000,19989\r\n"},
		{c.CSV(), "crash_rate,lost_jobs,duplicated_jobs,errors_raised,ack_after_duplicated_jobs\r\n0.000001,1,0,0,1\r\n"},
		{s.CSV(), "duplicates_per_day,seconds_between_duplicates,dedup_keys,dedup_store_bytes,retry_peak_multiplier\r\n" +
			"1000000000000000,8.64e-11,36500000000000000000,3.65e+25,1000\r\n"},
		{none.CSV(), "duplicates_per_day,seconds_between_duplicates,dedup_keys,dedup_store_bytes,retry_peak_multiplier\r\n0,,7000000000,448000000000,5\r\n"},
		{s.Rows[3][1], "36.5 YB"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %q\nwant %q", tc.got, tc.want)
		}
	}
}

// TestCSVWritesTheCellsNumbers: a table's CSV is written from each cell's number and word, never
// from the text people read, so "2,448", "0.98%" and "yes" reach a program as 2448, 0.0098 and true.
func TestCSVWritesTheCellsNumbers(t *testing.T) {
	tb := newTable("t", col{"jobs", "jobs", true}, col{"share", "share", true}, col{"ok", "ok", false}, col{"never", "never_s", true})
	tb.add(countCell(2448), shareCell(0.0098), yesNoCell(true), NumberCell("never", math.Inf(1)))
	if got, want := tb.CSV(), "jobs,share,ok,never_s\r\n2448,0.0098,true,\r\n"; got != want {
		t.Errorf("CSV = %q, want %q", got, want)
	}
	if got := tb.Rows[0]; got[0] != "2,448" || got[2] != "yes" {
		t.Errorf("people's row = %q, want the display text", got)
	}
	if c := tb.Data[0][0]; !c.IsNumber || c.Number != 2448 || c.Text != "2,448" {
		t.Errorf("count cell = %+v, want the number 2448 beside its text", c)
	}
}
