package site

import (
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// readCSV reads a CSV answer as pandas does with read_csv(comment="#"): the "# name=value" lines
// before the header are the parameters; the rest is the header and the rows.
func readCSV(t *testing.T, body string) (params map[string]string, head []string, rows [][]string) {
	t.Helper()
	params = map[string]string{}
	var rest []string
	for _, line := range strings.Split(body, "\r\n") {
		if name, value, ok := strings.Cut(strings.TrimPrefix(line, "# "), "="); ok && strings.HasPrefix(line, "# ") && len(rest) == 0 {
			params[name] = value
			continue
		}
		rest = append(rest, line)
	}
	recs, err := csv.NewReader(strings.NewReader(strings.Join(rest, "\n"))).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("csv %v:\n%s", err, body)
	}
	return params, recs[0], recs[1:]
}

// TestCSVIsForPrograms holds issue 8's item 13 through the API: every CSV opens with the run's
// parameters as comment lines and carries raw numbers under headers that name their units, so that
// each numeric column parses as a number, at the defaults and at the largest scale values. (It
// replaces TestCSV, which pinned the display form: "1,000",15 KB,195,0.97%.)
func TestCSVIsForPrograms(t *testing.T) {
	s := newTestServer(t, testConfig())
	for _, tc := range []struct {
		query   string
		params  map[string]string
		head    string
		numeric []string // columns every row must parse as a number
		row     string   // one row, exactly
	}{
		{"window?format=csv", map[string]string{"experiment": "window", "jobs": "20000", "crash_rate": "0.02", "max_delay": "2000", "windows": "100,500,1000,1500,2000,5000"},
			"window_ids,state_bytes,escaped_duplicates,escape_rate", []string{"window_ids", "state_bytes", "escaped_duplicates", "escape_rate"}, "2000,32000,0,0"},
		{"assembly?format=csv", map[string]string{"experiment": "assembly", "jobs": "20000", "seed": "13"},
			"design,lost_jobs,exactly_once_jobs,duplicated_jobs,correct,deliveries,effects", []string{"lost_jobs", "exactly_once_jobs", "duplicated_jobs", "deliveries", "effects"}, "at-most-once,398,19602,0,false,20000,19602"},
		{"lease?format=csv&timeouts=0.001,5", map[string]string{"experiment": "lease", "timeouts": "0.001,5", "heartbeat_loss": "0"},
			"timeout_s,twice_no_renewal_jobs,twice_renew_third_jobs,twice_renew_double_jobs,twice_renew_double_real_jobs", []string{"timeout_s", "twice_no_renewal_jobs", "twice_renew_double_real_jobs"}, "5,2448,0,20000,2448"},
		{"scale?format=csv&messages_per_day=1e15&crash_window_p=1&replay_days=36500&bytes_per_key=1000000&retry_multiplier=1000",
			map[string]string{"experiment": "scale", "messages_per_day": "1000000000000000", "replay_days": "36500"},
			"duplicates_per_day,seconds_between_duplicates,dedup_keys,dedup_store_bytes,retry_peak_multiplier",
			[]string{"duplicates_per_day", "seconds_between_duplicates", "dedup_keys", "dedup_store_bytes", "retry_peak_multiplier"},
			"1000000000000000,8.64e-11,36500000000000000000,3.65e+25,1000"},
		{"crash-sweep?format=csv&crash_rates=0.000001,0.02", map[string]string{"experiment": "crash-sweep", "crash_rates": "0.000001,0.02"},
			"crash_rate,lost_jobs,duplicated_jobs,errors_raised,ack_after_duplicated_jobs", []string{"crash_rate", "lost_jobs"}, "0.02,402,0,0,402"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			r := do(t, s, "GET", "/api/experiments/"+tc.query, nil)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
				t.Fatalf("status %d, type %s: %s", r.status, r.header.Get("Content-Type"), r.body)
			}
			params, head, rows := readCSV(t, r.body)
			for k, v := range tc.params {
				if params[k] != v {
					t.Errorf("# %s=%q, want %q", k, params[k], v)
				}
			}
			if strings.Join(head, ",") != tc.head {
				t.Fatalf("header %q, want %q", strings.Join(head, ","), tc.head)
			}
			found := false
			for _, row := range rows {
				found = found || strings.Join(row, ",") == tc.row
				for _, name := range tc.numeric {
					c := row[slices.Index(head, name)]
					if _, err := strconv.ParseFloat(c, 64); err != nil {
						t.Errorf("%s = %q is not a number", name, c)
					}
				}
			}
			if !found {
				t.Errorf("no row %q in:\n%s", tc.row, r.body)
			}
		})
	}
}
