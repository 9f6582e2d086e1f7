package main

import (
	"runtime/debug"
	"strings"
	"sync"

	"effectivelyonce/experiments"
)

// provenance says which build and which inputs made a result, for every export and every run on
// a page: a number pasted into a chat or a report can then be traced back and reproduced.
type provenance struct {
	// Version is the notebook's version: see notebookVersion.
	Version string `json:"version"`
	// ParamsHash is experiments.ParamsHash of the run's parameters.
	ParamsHash string `json:"params_hash"`
	// Spread is the number of seeds of a spread the answer carries, 0 for a run alone; ParamsHash
	// then covers it too (spreadProvenanceOf).
	Spread int `json:"spread,omitempty"`
}

// provenanceOf is the provenance of e run on p.
func provenanceOf(e *experiments.Experiment, p any) provenance {
	return provenance{Version: notebookVersion(), ParamsHash: e.ParamsHash(p)}
}

// spreadProvenanceOf is the provenance of an answer that carries a spread of n seeds of e on p
// beside the run: its fingerprint is experiments.Experiment.SpreadParamsHash, which takes n in, so
// a pasted spread is never mistaken for the single run on the same parameters, nor for a spread
// over another number of seeds.
func spreadProvenanceOf(e *experiments.Experiment, p any, n int) provenance {
	return provenance{Version: notebookVersion(), ParamsHash: e.SpreadParamsHash(p, n), Spread: n}
}

// notebookVersion is the module's version when the binary was built from a tagged module, else
// the VCS revision the go command stamped (12 digits, "-dirty" when the tree had uncommitted
// changes), else "devel": a binary built outside a checkout, or a test binary, knows no better.
// The build information never changes while the process runs, so it is read once, however many
// pages and exports print it.
var notebookVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(info)
})

// versionOf reads the version out of build information; see notebookVersion.
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

// runJSON is the JSON body of one run, for the API and the command line alike.
func runJSON(e *experiments.Experiment, p, res any) map[string]any {
	return map[string]any{"experiment": e.Name, "params": p, "result": res, "provenance": provenanceOf(e, p)}
}

// spreadJSON is the JSON body of one run with its spread over sp.N seeds, whose provenance
// covers the spread.
func spreadJSON(e *experiments.Experiment, p, res any, sp experiments.SpreadResult) map[string]any {
	body := runJSON(e, p, res)
	body["spread"] = sp
	body["provenance"] = spreadProvenanceOf(e, p, sp.N)
	return body
}
