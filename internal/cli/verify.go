package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/present"
)

// Verify implements "site verify": every claim re-derived, PASS/FAIL lines, non-zero on a FAIL.
// Under a FAIL it prints the smallest failing case of each failed claim, the same search the verify
// page runs, so a failure in CI comes with a permalink short enough to open and read. It reads the
// run as the page does, through the claims' definition (its searches) and presenter (its table).
func Verify(ctx context.Context, args []string, stdout io.Writer) error {
	e := experiments.Verifier()
	raw, err := readFlags(args)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	p, err := e.Parse(raw)
	if err != nil {
		return fieldErrors("verify", err)
	}
	res, err := e.Run(ctx, p)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	pr, err := present.PresenterOf(e)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	tables, err := pr.Tables(p, res)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	// The verifier's table: one row per claim (its id, its text, PASS or FAIL, what was measured),
	// captioned with how many hold.
	t := tables[0]
	w := 0
	for _, row := range t.Rows {
		w = max(w, len(row[0])+2+len(row[1]))
	}
	for _, row := range t.Rows {
		fmt.Fprintf(stdout, "  [%s] %-*s  %s\n", row[2], w, row[0]+"  "+row[1], row[3])
	}
	fmt.Fprintf(stdout, "  %s\n", t.Caption)
	searches := e.Shrinks(p, res)
	if len(searches) == 0 {
		return nil
	}
	for _, search := range searches {
		s := search(ctx)
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("verify: %w", err)
		}
		printShrunk(stdout, e, s)
	}
	return ErrSilent
}

// printShrunk writes one claim's smallest failing case, as the verifier e found it: where to see
// it, what the claim measures there, and which jobs break it.
func printShrunk(w io.Writer, e *experiments.Experiment, s experiments.Shrunk) {
	jobs := func(n int64) string {
		if n == 1 {
			return "1 job"
		}
		return experiments.Thousands(n) + " jobs"
	}
	fmt.Fprintf(w, "\n  smallest failing case of %s %s: %s (from %s)\n", s.Claim.ID, s.Kind, jobs(s.Params.Jobs), jobs(s.From.Jobs))
	fmt.Fprintf(w, "    %s?%s\n", verifyPath(), e.CaseQuery(s))
	fmt.Fprintf(w, "    measured there: %s\n", s.Claim.Detail)
	if s.Fate != "" {
		fmt.Fprintf(w, "    %s\n", s.Fate)
	}
	if s.Story != "" {
		fmt.Fprintf(w, "    %s\n", s.Story)
	}
	ids := make([]string, 0, present.MaxCulpritsShown)
	for _, id := range s.Culprits[:min(len(s.Culprits), present.MaxCulpritsShown)] {
		ids = append(ids, fmt.Sprint(id))
	}
	switch {
	case len(s.Culprits) == 0:
		fmt.Fprintf(w, "    culprit jobs: none\n")
	case len(s.Culprits) > len(ids):
		fmt.Fprintf(w, "    culprit jobs: %s ... (%d in all)\n", strings.Join(ids, " "), len(s.Culprits))
	default:
		fmt.Fprintf(w, "    culprit jobs: %s (%d in all)\n", strings.Join(ids, " "), len(s.Culprits))
	}
	noun := "candidate streams"
	if s.Tried == 1 {
		noun = "candidate stream"
	}
	took := "under 1ms"
	if s.Elapsed >= time.Millisecond {
		took = s.Elapsed.Round(time.Millisecond).String()
	}
	fmt.Fprintf(w, "    %d %s measured in %s\n", s.Tried, noun, took)
	if s.StoppedEarly {
		fmt.Fprintf(w, "    stopped after %s; this is the smallest found so far\n", experiments.ShrinkBudget)
	}
}

// verifyPath is the verify page's path, from the table of contents rather than written twice.
func verifyPath() string {
	for _, e := range content.Contents() {
		if e.Slug == "verify" {
			return e.Path
		}
	}
	return "/verify"
}
