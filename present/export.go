package present

import (
	"runtime/debug"
	"strconv"
	"strings"
	"sync"

	"effectivelyonce/experiments"
)

// Provenance says which build and which inputs made a result, for every export and every run on
// a page: a number pasted into a chat or a report can then be traced back and reproduced.
type Provenance struct {
	// Version is the notebook's version: see Version.
	Version string `json:"version"`
	// ParamsHash is experiments.ParamsHash of the run's parameters.
	ParamsHash string `json:"params_hash"`
	// Spread is the number of seeds of a spread the answer carries, 0 for a run alone; ParamsHash
	// then covers it too (SpreadProvenanceOf).
	Spread int `json:"spread,omitempty"`
}

// ProvenanceOf is the Provenance of e run on p.
func ProvenanceOf(e *experiments.Experiment, p any) Provenance {
	return Provenance{Version: Version(), ParamsHash: e.ParamsHash(p)}
}

// SpreadProvenanceOf is the Provenance of an answer that carries a spread of n seeds of e on p
// beside the run: its fingerprint is experiments.Experiment.SpreadParamsHash, which takes n in, so
// a pasted spread is never mistaken for the single run on the same parameters, nor for a spread
// over another number of seeds.
func SpreadProvenanceOf(e *experiments.Experiment, p any, n int) Provenance {
	return Provenance{Version: Version(), ParamsHash: e.SpreadParamsHash(p, n), Spread: n}
}

// Version is the module's version when the binary was built from a tagged module, else
// the VCS revision the go command stamped (12 digits, "-dirty" when the tree had uncommitted
// changes), else "devel": a binary built outside a checkout, or a test binary, knows no better.
// The build information never changes while the process runs, so it is read once, however many
// pages and exports print it.
var Version = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(info)
})

// versionOf reads the version out of build information; see Version.
func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" && !strings.Contains(v, "+dirty") {
		return v
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return rev[:min(12, len(rev))] + dirty
}

// RunJSON is the JSON body of one run, for the API and the command line alike.
func RunJSON(e *experiments.Experiment, p, res any) map[string]any {
	return map[string]any{"experiment": e.Name, "params": p, "result": res, "provenance": ProvenanceOf(e, p)}
}

// SpreadJSON is the JSON body of one run with its spread over sp.N seeds, whose Provenance
// covers the spread.
func SpreadJSON(e *experiments.Experiment, p, res any, sp experiments.SpreadResult) map[string]any {
	body := RunJSON(e, p, res)
	body["spread"] = sp
	body["provenance"] = SpreadProvenanceOf(e, p, sp.N)
	return body
}

// CSVOf writes a run as CSV, for the API and the command line alike, in the form spreadsheets and
// pandas want rather than the form the page shows: raw numbers in base units under snake_case
// headers that name the unit (state_bytes, timeout_s, escape_rate as a fraction), one table after
// another, separated by an empty line (every experiment has one table today). The run's
// parameters come first, as comment lines, one "# name=value" per parameter in the experiment's
// order after a "# experiment=name" line, values written as a permalink carries them (lists
// comma-separated): comment lines rather than columns, so that a parameter list does not repeat
// on every row and the table's own columns stay the result's. pandas reads it with
// read_csv(url, comment="#"); a spreadsheet shows the comment lines above the header. Two more
// comment lines after the parameters carry the run's Provenance (version and params_hash).
func CSVOf(e *experiments.Experiment, params, result any) (string, error) {
	return RunCSV(e, params, result, ProvenanceOf(e, params))
}

// RunCSV is CSVOf with the Provenance given and tables of its own after the result's (a spread's
// summary): a spread is the same answer with one more comment line and one more table.
func RunCSV(e *experiments.Experiment, params, result any, prov Provenance, more ...Table) (string, error) {
	pr, err := PresenterOf(e)
	if err != nil {
		return "", err
	}
	tables, err := pr.Tables(params, result)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	CSVComments(&b, e, params, prov)
	for i, t := range append(tables, more...) {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(t.CSV())
	}
	return b.String(), nil
}

// CSVComments writes the comment lines every CSV answer starts with: the experiment, its
// parameters as a permalink carries them, then extra lines given as name and value pairs (what a
// jobs list is of), then the provenance: the version, the spread's size when there is one, and the
// fingerprint, which covers that size.
func CSVComments(b *strings.Builder, e *experiments.Experiment, params any, prov Provenance, extra ...string) {
	b.WriteString("# experiment=" + e.Name + "\r\n")
	values := e.Format(params)
	for _, f := range e.Fields {
		b.WriteString("# " + f.Name + "=" + values[f.Name] + "\r\n")
	}
	for i := 0; i+1 < len(extra); i += 2 {
		b.WriteString("# " + extra[i] + "=" + extra[i+1] + "\r\n")
	}
	b.WriteString("# version=" + prov.Version + "\r\n")
	if prov.Spread > 0 {
		b.WriteString("# spread=" + strconv.Itoa(prov.Spread) + "\r\n")
	}
	b.WriteString("# params_hash=" + prov.ParamsHash + "\r\n")
}

// SpreadCSV is a run and its spread as CSV: CSVOf's comment lines and tables, with a "# spread=N"
// line and the spread's fingerprint in place of the run's (SpreadProvenanceOf), then the spread as
// a table of its own, as CSVOf separates tables.
func SpreadCSV(e *experiments.Experiment, p, res any, sp experiments.SpreadResult) (string, error) {
	return RunCSV(e, p, res, SpreadProvenanceOf(e, p, sp.N), SpreadTable(e.Name, sp))
}
