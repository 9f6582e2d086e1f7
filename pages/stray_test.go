package pages

import (
	"net/url"
	"testing"

	"effectivelyonce/experiments"
)

// TestStrayKeysRefused: a key under a page's experiment that the page does not read is refused
// naming the key, with what to write instead: a value the page's first form sets (crash-sweep's
// jobs on block 1), a prefix on the first form's own value, a parameter the experiment does not
// have. The form's own values, another experiment's keys and the spread are read as before.
func TestStrayKeysRefused(t *testing.T) {
	assembly, _ := experiments.Lookup("assembly")
	sweep, _ := experiments.Lookup("crash-sweep")
	q := url.Values{
		"jobs": {"5000"}, "crash-sweep.jobs": {"100"}, "crash-sweep.seed": {"3"}, "crash-sweep.crash_rates": {"0.1"},
		"assembly.jobs": {"7"}, "assembly.crash_rate": {"0.5"}, "window.jobs": {"9"}, "spread": {"10"},
	}
	first, _ := ReadRun(assembly, "", nil, q)
	second, _ := ReadRun(sweep, "crash-sweep.", assembly, q)
	got := map[string]string{}
	for _, fe := range append(first.Stray, second.Stray...) {
		got[fe.Field] = fe.Message
	}
	want := map[string]string{
		"assembly.jobs":       "this is the page's first form, whose values carry no prefix: write jobs=, not assembly.jobs=",
		"assembly.crash_rate": "this is the page's first form, whose values carry no prefix: write crash_rate=, not assembly.crash_rate=",
		"crash-sweep.jobs":    "this form takes jobs from the first form on the page, so that every experiment here replays one stream: set jobs= there",
		"crash-sweep.seed":    `crash-sweep has no parameter "seed" on this page; its form takes crash_rates`,
	}
	if len(got) != len(want) {
		t.Errorf("refused %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	if second.Raw["crash_rates"] != "0.1" || second.Raw["jobs"] != "5000" || !second.Inherited["jobs"] {
		t.Errorf("the sweep's own values: raw %v inherited %v", second.Raw, second.Inherited)
	}
	// The block lists each by its key, linked to the input that sets the value it meant.
	second.Errors = second.Stray
	v := form(testSite(), "/blocks/1", second, []Run{first, second})
	links := map[string]string{}
	for _, k := range v.Stray {
		links[k.Key] = k.InputID
	}
	if links["crash-sweep.jobs"] != "exp-assembly-jobs" || links["crash-sweep.seed"] != "" || !v.Invalid {
		t.Errorf("stray keys in the view: %+v (invalid %v)", v.Stray, v.Invalid)
	}
}
