package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"effectivelyonce/lab"
)

// labDesignJSON is one design's line of "site lab -format json", in the shape the issue names.
type labDesignJSON struct {
	Design        lab.Design `json:"design"`
	Jobs          int64      `json:"jobs"`
	Lost          int64      `json:"lost"`
	Duplicated    int64      `json:"duplicated"`
	ExactlyOnce   int64      `json:"exactly_once"`
	WorkersKilled int64      `json:"workers_killed"`
	Redeliveries  int64      `json:"redeliveries"`
	Seconds       float64    `json:"seconds"`
	// FireAndForgetAcks is -fire_and_forget: the run's acks were plain, so duplicated may exceed
	// the model's.
	FireAndForgetAcks bool `json:"fire_and_forget_acks"`
	Model             struct {
		Lost       int64 `json:"lost"`
		Duplicated int64 `json:"duplicated"`
	} `json:"model"`
}

// cliLab implements "site lab -designs LIST -jobs N -workers W -crash_rate R -seed S -format
// table|json": the designs on a real broker, database and worker processes, each beside the
// model's counts for the same stream. It fails (exit 1) when a design's real counts differ from
// what its model predicts.
func cliLab(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	designs := fs.String("designs", "all", "all, or a comma-separated list of "+designNames())
	jobs := fs.Int64("jobs", 400, fmt.Sprintf("jobs per design (1 to %d)", lab.MaxJobs))
	workers := fs.Int("workers", 3, fmt.Sprintf("worker processes (1 to %d)", lab.MaxWorkers))
	rate := fs.Float64("crash_rate", 0.05, "share of jobs whose worker is killed mid-job (0 to 1)")
	seed := fs.Int64("seed", 13, "stream seed: the same seed crashes the same jobs as the model (for the lease designs, the duration seed)")
	leaseTimeout := fs.Float64("lease_timeout", 0, "the lease designs' visibility timeout in model seconds (1 model second = 10 ms; 0: 5)")
	fireAndForget := fs.Bool("fire_and_forget", false, "plain acks with no reply awaited: an ack lost with a killed worker adds a duplicate the model lacks")
	format := fs.String("format", "table", "table or json")
	sinkURL := fs.String("database-url", getenv("DATABASE_URL"), "a postgres:// database for the sink instead of a SQLite file (env DATABASE_URL)")
	natsURL := fs.String("nats-url", getenv("LAB_NATS_URL"), "an existing NATS server with JetStream instead of the embedded one (env LAB_NATS_URL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("lab: unexpected argument %q", fs.Arg(0))
	}
	if *format != "table" && *format != "json" {
		return fmt.Errorf("lab: -format must be table or json")
	}
	list, err := parseDesigns(*designs)
	if err != nil {
		return err
	}
	var results []lab.Result
	for _, d := range list {
		cfg := lab.Config{Design: d, Jobs: *jobs, Workers: *workers, CrashRate: *rate, Seed: *seed,
			FireAndForgetAcks: *fireAndForget, NATSURL: *natsURL, SinkURL: *sinkURL, Command: siteLabWorker}
		if d.IsLease() {
			cfg.LeaseTimeout = *leaseTimeout
		}
		if err := cfg.Validate(); err != nil {
			var fe *lab.FieldError
			if errors.As(err, &fe) {
				return fmt.Errorf("lab: -%s: %s", fe.Field, fe.Msg)
			}
			return err
		}
		fmt.Fprintf(stderr, "lab: %s: %d jobs on %d workers…\n", d, *jobs, *workers)
		res, err := lab.Run(ctx, cfg, nil)
		if err != nil {
			return fmt.Errorf("lab: %s: %w", d, err)
		}
		results = append(results, res)
	}
	if *format == "json" {
		out := struct {
			Designs []labDesignJSON `json:"designs"`
		}{Designs: []labDesignJSON{}}
		for _, r := range results {
			j := labDesignJSON{Design: r.Design, Jobs: r.Jobs, Lost: r.Lost, Duplicated: r.Duplicated,
				ExactlyOnce: r.ExactlyOnce, WorkersKilled: r.WorkersKilled, Redeliveries: r.Redeliveries, Seconds: r.Seconds,
				FireAndForgetAcks: r.FireAndForgetAcks}
			j.Model.Lost, j.Model.Duplicated = r.ModelLost, r.ModelDuplicated
			out.Designs = append(out.Designs, j)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "design\tjobs\tlost\tmodel\tduplicated\tmodel\texactly once\tkilled\tredelivered\tseconds\t\t")
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t  %s\t\n", r.Design, r.Jobs, r.Lost, r.ModelLost,
				r.Duplicated, r.ModelDuplicated, r.ExactlyOnce, r.WorkersKilled, r.Redeliveries, r.Seconds, agreement(r))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	// Only a crash design must agree exactly: the lease runs on real time, whose jitter can move a
	// job that ends within a few milliseconds of its lease to the other side of it.
	for _, r := range results {
		if !r.Design.IsLease() && !r.MatchesModel() {
			fmt.Fprintf(stderr, "lab: %s: the real counts differ from the model's\n", r.Design)
			return errSilent
		}
	}
	return nil
}

// agreement marks a design whose real counts differ from the model's, so the table says it; a
// lease run within its tolerance (jobs that end within a few ms of the lease) says so.
func agreement(r lab.Result) string {
	switch {
	case r.Design.IsLease() && r.Duplicated != r.ModelDuplicated && r.MatchesModel():
		return fmt.Sprintf("within %d (real-time jitter)", r.Tolerance)
	case r.FireAndForgetAcks && r.ExtraDuplicates() > 0 && r.MatchesModel():
		return fmt.Sprintf("+%d duplicated (acks lost with their worker)", r.ExtraDuplicates())
	case r.MatchesModel():
		return ""
	}
	return "DIFFERS"
}

func designNames() string {
	var names []string
	for _, d := range lab.Designs() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}

// parseDesigns reads -designs: "all", or names from lab.Designs().
func parseDesigns(s string) ([]lab.Design, error) {
	if s == "all" {
		return lab.Designs(), nil
	}
	var out []lab.Design
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		found := false
		for _, d := range lab.Designs() {
			if string(d) == name {
				out = append(out, d)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("lab: -designs: no design %q; the designs are all, or %s", name, designNames())
		}
	}
	return out, nil
}
