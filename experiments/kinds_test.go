package experiments

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// These tests hold the typed results to their promises: the claims' numeric fields say what their
// Detail says, each claim kind is reported once under a stable name, and the names the engine puts
// in its rows are exactly the exported constants, so a consumer can switch on them.

// claimParamSets are the defaults and a few changed runs, to show the fields follow the parameters
// rather than echo the document's figures.
var claimParamSets = []struct {
	name string
	p    ClaimsParams
}{
	{"defaults", DefaultClaimsParams()},
	{"more crashes, short delays", ClaimsParams{Jobs: 5_000, CrashRate: 0.1, Seed: 7, MaxDelay: 300, DelaySeed: 5, LeaseSeed: 9}},
	{"long delays", ClaimsParams{Jobs: 12_345, CrashRate: 0.03, Seed: 13, MaxDelay: 4_001, DelaySeed: 17, LeaseSeed: 31}},
	{"no crashes", ClaimsParams{Jobs: 1_000, CrashRate: 0, Seed: 1, MaxDelay: 50, DelaySeed: 2, LeaseSeed: 3}},
}

// detailNumber matches a number as Detail writes it: digits with optional thousands commas and an
// optional decimal part.
var detailNumber = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// detailNumbers returns the numbers in a Detail, in order, as written without their commas.
func detailNumbers(detail string) []string {
	found := detailNumber.FindAllString(detail, -1)
	for i, s := range found {
		found[i] = strings.ReplaceAll(s, ",", "")
	}
	return found
}

// wantDetailNumbers lists, for one claim, the numbers its Detail must show in order, taken from its
// numeric fields (and the job count, which the first B6 claim quotes).
func wantDetailNumbers(c Claim, jobs int64) []string {
	d := func(v int64) string { return strconv.FormatInt(v, 10) }
	switch c.Kind {
	case ClaimAckBeforeLoses:
		return []string{d(c.Lost), fmt.Sprintf("%.2f", float64(c.Lost)/float64(jobs)*100), d(c.Duplicated), d(c.Crashes)}
	case ClaimAckAfterDuplicates, ClaimDedupKeyCatches:
		return []string{d(c.Lost), d(c.Duplicated), d(c.Crashes)}
	case ClaimKeyOutsideTxMisses:
		return []string{d(c.Duplicated), d(c.Crashes)}
	case ClaimSmallWindowLeaks, ClaimFullWindowLeaksNone:
		return []string{d(c.Escaped), d(c.Window), d(c.MaxDelay)}
	case ClaimShortTimeoutDoubles:
		return []string{d(c.Doubles), d(jobs), FormatFloat(c.TimeoutS)}
	case ClaimLongTimeoutReachesZero:
		return []string{d(c.Doubles60), "60", d(c.Doubles300), "300"}
	case ClaimHeartbeatDecouples:
		return []string{"5", "60", "300"}
	}
	return nil
}

func TestClaimNumbersMatchDetail(t *testing.T) {
	for _, tc := range claimParamSets {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Claims(context.Background(), tc.p)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range res.Claims {
				t.Run(c.Kind.String(), func(t *testing.T) {
					want := wantDetailNumbers(c, tc.p.Jobs)
					if want == nil {
						t.Fatalf("no expectation for kind %d", int(c.Kind))
					}
					if got := detailNumbers(c.Detail); !slices.Equal(got, want) {
						t.Errorf("Detail %q shows %q; the fields say %q", c.Detail, got, want)
					}
				})
			}
		})
	}
}

// TestClaimNumbersMatchExperiments checks the claims' fields against the fast experiments on the
// same parameters. The verifier is written separately from them, so agreement is evidence that
// both are right, not an echo.
func TestClaimNumbersMatchExperiments(t *testing.T) {
	ctx := context.Background()
	for _, tc := range claimParamSets {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.p
			res, err := Claims(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			asm, err := Assembly(ctx, StreamParams{Jobs: p.Jobs, CrashRate: p.CrashRate, Seed: p.Seed})
			if err != nil {
				t.Fatal(err)
			}
			rows := map[Design]AssemblyRow{}
			for _, r := range asm.Rows {
				rows[r.Design] = r
			}
			win, err := Window(ctx, WindowParams{Jobs: p.Jobs, CrashRate: p.CrashRate, Seed: p.Seed,
				MaxDelay: p.MaxDelay, DelaySeed: p.DelaySeed, Windows: []int64{p.MaxDelay / 2, p.MaxDelay}})
			if err != nil {
				t.Fatal(err)
			}
			lp := DefaultLeaseParams()
			lp.Jobs, lp.Seed, lp.Timeouts = p.Jobs, p.LeaseSeed, []float64{5, 60, 300}
			lease, err := Lease(ctx, lp)
			if err != nil {
				t.Fatal(err)
			}
			if res.Crashes != asm.Crashed {
				t.Errorf("result crashes %d, Assembly %d", res.Crashes, asm.Crashed)
			}
			type want struct{ crashes, lost, dup, window, maxDelay, escaped, doubles, d60, d300 int64 }
			expect := map[ClaimKind]want{
				ClaimAckBeforeLoses:         {crashes: asm.Crashed, lost: rows[DesignAtMostOnce].Lost, dup: rows[DesignAtMostOnce].Duplicated},
				ClaimAckAfterDuplicates:     {crashes: asm.Crashed, lost: rows[DesignAtLeastOnce].Lost, dup: rows[DesignAtLeastOnce].Duplicated},
				ClaimDedupKeyCatches:        {crashes: asm.Crashed, lost: rows[DesignDedupTransactional].Lost, dup: rows[DesignDedupTransactional].Duplicated},
				ClaimKeyOutsideTxMisses:     {crashes: asm.Crashed, lost: rows[DesignDedupNonTransactional].Lost, dup: rows[DesignDedupNonTransactional].Duplicated},
				ClaimSmallWindowLeaks:       {crashes: asm.Crashed, window: p.MaxDelay / 2, maxDelay: p.MaxDelay, escaped: win.Points[0].Escaped},
				ClaimFullWindowLeaksNone:    {crashes: asm.Crashed, window: p.MaxDelay, maxDelay: p.MaxDelay, escaped: win.Points[1].Escaped},
				ClaimShortTimeoutDoubles:    {doubles: lease.Points[0].NoRenewal},
				ClaimLongTimeoutReachesZero: {d60: lease.Points[1].NoRenewal, d300: lease.Points[2].NoRenewal},
				ClaimHeartbeatDecouples:     {},
			}
			for _, c := range res.Claims {
				t.Run(c.Kind.String(), func(t *testing.T) {
					w, ok := expect[c.Kind]
					if !ok {
						t.Fatalf("unexpected kind %d", int(c.Kind))
					}
					got := want{c.Crashes, c.Lost, c.Duplicated, c.Window, c.MaxDelay, c.Escaped, c.Doubles, c.Doubles60, c.Doubles300}
					if got != w {
						t.Errorf("fields %+v, experiments %+v", got, w)
					}
					wantTimeout := 0.0 // only the short-timeout claim names a timeout
					if c.Kind == ClaimShortTimeoutDoubles {
						wantTimeout = lp.Timeouts[0]
					}
					if c.TimeoutS != wantTimeout {
						t.Errorf("TimeoutS %v, want %v", c.TimeoutS, wantTimeout)
					}
				})
			}
		})
	}
}

func TestClaimKinds(t *testing.T) {
	res, err := Claims(context.Background(), DefaultClaimsParams())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[ClaimKind]int{}
	for _, c := range res.Claims {
		seen[c.Kind]++
	}
	names := map[string]ClaimKind{}
	kebab := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	wantID := []string{"B1", "B2", "B3", "B5", "B4", "B4", "B6", "B6", "B6"}
	kinds := ClaimKinds()
	if len(kinds) != 9 || len(res.Claims) != 9 {
		t.Fatalf("%d kinds and %d claims, want 9 of each", len(kinds), len(res.Claims))
	}
	for i, k := range kinds {
		t.Run(k.String(), func(t *testing.T) {
			if seen[k] != 1 {
				t.Errorf("reported %d times in a default run, want once", seen[k])
			}
			if res.Claims[i].Kind != k || res.Claims[i].ID != wantID[i] {
				t.Errorf("claim %d is %s %v, want %s %v: Claims reports in ClaimKinds order", i, res.Claims[i].ID, res.Claims[i].Kind, wantID[i], k)
			}
			name := k.String()
			if !kebab.MatchString(name) {
				t.Errorf("name %q is not kebab-case", name)
			}
			if other, dup := names[name]; dup {
				t.Errorf("name %q is also kind %d's", name, int(other))
			}
			names[name] = k
			text, err := k.MarshalText()
			if err != nil || string(text) != name {
				t.Errorf("MarshalText = %q, %v; want %q", text, err, name)
			}
			var back ClaimKind
			if err := back.UnmarshalText(text); err != nil || back != k {
				t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, k)
			}
		})
	}
	if len(seen) != len(kinds) {
		t.Errorf("a default run reports kinds %v, want exactly %v", slices.Collect(maps.Keys(seen)), kinds)
	}
	for _, bad := range []ClaimKind{0, -1, ClaimKind(len(kinds) + 1)} {
		t.Run(fmt.Sprintf("invalid %d", int(bad)), func(t *testing.T) {
			if bad.String() != "unknown" {
				t.Errorf("String() = %q, want unknown", bad.String())
			}
			if _, err := bad.MarshalText(); err == nil {
				t.Error("MarshalText accepted a kind outside the nine")
			}
		})
	}
	var k ClaimKind
	if err := k.UnmarshalText([]byte("ack-before-work")); err == nil {
		t.Errorf("UnmarshalText accepted an unknown name, giving %v", k)
	}
}

// TestClaimJSON checks that a claim's JSON carries exactly the fields its kind measures, zeros
// included, and decodes back to the same claims.
func TestClaimJSON(t *testing.T) {
	res, err := Claims(context.Background(), DefaultClaimsParams())
	if err != nil {
		t.Fatal(err)
	}
	common := []string{"detail", "holds", "id", "kind", "text"}
	stream := []string{"crashes", "duplicated", "lost"}
	window := []string{"crashes", "escaped", "max_delay", "window"}
	numbers := map[ClaimKind][]string{
		ClaimAckBeforeLoses: stream, ClaimAckAfterDuplicates: stream, ClaimDedupKeyCatches: stream, ClaimKeyOutsideTxMisses: stream,
		ClaimSmallWindowLeaks: window, ClaimFullWindowLeaksNone: window,
		ClaimShortTimeoutDoubles:    {"doubles", "timeout_s"},
		ClaimLongTimeoutReachesZero: {"doubles_300s", "doubles_60s"},
		ClaimHeartbeatDecouples:     nil,
	}
	for _, c := range res.Claims {
		t.Run(c.Kind.String(), func(t *testing.T) {
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			want := slices.Sorted(slices.Values(append(slices.Clone(common), numbers[c.Kind]...)))
			if got := slices.Sorted(maps.Keys(m)); !slices.Equal(got, want) {
				t.Errorf("keys %v, want %v", got, want)
			}
			var back Claim
			if err := json.Unmarshal(b, &back); err != nil || back != c {
				t.Errorf("decoded %+v, %v; want %+v", back, err, c)
			}
		})
	}
	// The JSON names the kind, not its number.
	if b, _ := json.Marshal(res.Claims[0]); !strings.Contains(string(b), `"kind":"ack-before-loses"`) {
		t.Errorf("B1's JSON does not name its kind: %s", b)
	}
	if _, err := json.Marshal(Claim{ID: "B1"}); err == nil {
		t.Error("a claim without a kind marshalled; it should be refused")
	}
}

// inEnum reports whether name is one of the enum's values.
func inEnum[T comparable](name T, enum []T) bool { return slices.Contains(enum, name) }

func TestEngineNamesAreTheEnums(t *testing.T) {
	ctx := context.Background()
	small := StreamParams{Jobs: 500, CrashRate: 0.3, Seed: 4}
	type produced struct {
		names []string // what the engine put in its rows, in order
		enum  []string // the exported constants, in order
		times int      // how many rows each name fills
	}
	cases := []struct {
		name string
		run  func() (produced, error)
	}{
		{"assembly", func() (produced, error) {
			r, err := Assembly(ctx, small)
			out := produced{times: 1}
			for _, row := range r.Rows {
				out.names = append(out.names, string(row.Design))
			}
			for _, d := range Designs() {
				out.enum = append(out.enum, string(d))
			}
			return out, err
		}},
		{"keys", func() (produced, error) {
			r, err := Keys(ctx, small)
			out := produced{times: 1}
			for _, row := range r.Rows {
				out.names = append(out.names, string(row.Key))
			}
			for _, k := range KeyKinds() {
				out.enum = append(out.enum, string(k))
			}
			return out, err
		}},
		{"orderings", func() (produced, error) {
			r, err := Orderings(ctx, small)
			out := produced{times: 1}
			for _, row := range r.Rows {
				out.names = append(out.names, string(row.Order))
			}
			for _, o := range Orders() {
				out.enum = append(out.enum, string(o))
			}
			return out, err
		}},
		{"outbox", func() (produced, error) {
			r, err := Outbox(ctx, OutboxParams{Events: 500, CrashRate: 0.3, Seed: 4})
			out := produced{times: 2} // each design without and with consumer dedup
			for _, row := range r.Rows {
				out.names = append(out.names, string(row.Design))
			}
			for _, d := range OutboxDesigns() {
				out.enum = append(out.enum, string(d))
			}
			return out, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.run()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range got.names {
				if !inEnum(n, got.enum) {
					t.Errorf("the engine produced %q, which is not one of %q", n, got.enum)
				}
			}
			var want []string
			for _, e := range got.enum {
				for range got.times {
					want = append(want, e)
				}
			}
			if !slices.Equal(got.names, want) {
				t.Errorf("rows named %q, want %q: every constant, in order", got.names, want)
			}
			if len(slices.Compact(slices.Sorted(slices.Values(got.enum)))) != len(got.enum) {
				t.Errorf("the constants %q repeat a name", got.enum)
			}
		})
	}
	// The membership check itself must be able to fail, or the loop above proves nothing.
	if inEnum(Design("at-most-twice"), Designs()) {
		t.Error("inEnum accepted a name that is not in the enum")
	}
	// The lists are the caller's own: changing one must not change the next.
	d := Designs()
	d[0] = "changed"
	if Designs()[0] != DesignAtMostOnce {
		t.Error("Designs() hands out a shared slice")
	}
}

// spellings returns each value's text, in order.
func spellings[T any](xs []T, text func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = text(x)
	}
	return out
}

// TestEnumSpellings pins the constants' text, in order (the indexes say where each stands): it is
// what the JSON carries and what pages compare with, so renaming one is a change of the API, never
// a side effect of tidying the Go names.
func TestEnumSpellings(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want []string
	}{
		{"designs", spellings(Designs(), func(x Design) string { return string(x) }),
			[]string{0: "at-most-once", 1: "at-least-once", 2: "dedup-non-transactional", 3: "dedup-transactional"}},
		{"keys", spellings(KeyKinds(), func(x KeyKind) string { return string(x) }),
			[]string{0: "job-id", 1: "job-id+attempt", 2: "uuid-per-attempt"}},
		{"orders", spellings(Orders(), func(x Order) string { return string(x) }),
			[]string{0: "key-then-effect", 1: "effect-then-key", 2: "one-transaction"}},
		{"outbox designs", spellings(OutboxDesigns(), func(x OutboxDesign) string { return string(x) }),
			[]string{0: "dual-write-db-first", 1: "dual-write-publish-first", 2: "outbox"}},
		{"claim kinds", spellings(ClaimKinds(), ClaimKind.String),
			[]string{0: "ack-before-loses", 1: "ack-after-duplicates", 2: "dedup-key-catches", 3: "key-outside-tx-misses",
				4: "small-window-leaks", 5: "full-window-leaks-none", 6: "short-timeout-doubles", 7: "long-timeout-reaches-zero", 8: "heartbeat-decouples"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("got %q, want %q", c.got, c.want)
			}
		})
	}
}

// TestSharedFields pins which fields each experiment marks Shared: exactly its fields that are the
// stream's one definitions, and never a field that merely has the same name with another meaning
// (the lease's jobs and seed, the outbox's crash rate).
func TestSharedFields(t *testing.T) {
	want := map[string][]string{
		"assembly": {"jobs", "crash_rate", "seed"}, "keys": {"jobs", "crash_rate", "seed"}, "orderings": {"jobs", "crash_rate", "seed"},
		"crash-sweep": {"jobs"},
		"window":      {"jobs", "crash_rate", "seed", "delay_seed"}, "window-grid": {"jobs", "crash_rate", "seed", "delay_seed"},
		"claims": {"jobs", "crash_rate", "seed", "delay_seed"},
		"lease":  nil, "scale": nil, "outbox": {"seed"}, "window-time": nil,
	}
	stream := []Field{fieldJobs, fieldCrashRate, fieldSeed, fieldDelaySeed}
	for _, e := range All() {
		t.Run(e.Name, func(t *testing.T) {
			w, ok := want[e.Name]
			if !ok {
				t.Fatalf("no expectation for %q", e.Name)
			}
			var got []string
			for _, f := range e.Fields {
				if f.Shared {
					got = append(got, f.Name)
				}
				// fitRanges may narrow a stream field's maximum to what the experiment runs at its
				// defaults (the claims' jobs); it stays the stream's field, with a smaller range.
				isStream := slices.ContainsFunc(stream, func(s Field) bool {
					narrowed := s
					narrowed.MaxInt = min(s.MaxInt, f.MaxInt)
					return f == narrowed
				})
				if f.Shared != isStream {
					t.Errorf("field %q: Shared is %v, yet being one of the stream's definitions is %v", f.Name, f.Shared, isStream)
				}
			}
			if !slices.Equal(got, w) {
				t.Errorf("shared fields %q, want %q", got, w)
			}
		})
	}
}

// TestClaimDetailsAgreeInNumber: at one crash and a delay of one job the details say "1 crash" and
// "1 job", never "1 crashes" or "1 jobs".
func TestClaimDetailsAgreeInNumber(t *testing.T) {
	p := DefaultClaimsParams()
	p.Jobs, p.CrashRate, p.MaxDelay = 1, 1, 1
	r, err := Claims(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range r.Claims {
		for _, bad := range []string{"1 crashes", "1 jobs", "1 ids"} {
			if strings.Contains(c.Detail, bad) {
				t.Errorf("%s detail says %q: %s", c.ID, bad, c.Detail)
			}
		}
	}
}

// TestScaleEncodesAtAVanishingChance: the smallest positive chance once made the interval +Inf and
// the API answer fail to encode.
func TestScaleEncodesAtAVanishingChance(t *testing.T) {
	p := DefaultScaleParams()
	p.CrashWindowP = 5e-324
	r, err := Scale(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("the result does not encode: %v", err)
	}
}
