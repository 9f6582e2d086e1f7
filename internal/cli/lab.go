package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"effectivelyonce/experiments"
	"effectivelyonce/lab"
	"effectivelyonce/present"
)

// labDesignJSON is one design's line of "site lab -format json", in the shape the issue names,
// with the values the design ran with.
type labDesignJSON struct {
	Design        lab.Design `json:"design"`
	Jobs          int64      `json:"jobs"`
	Workers       int        `json:"workers"`
	CrashRate     *float64   `json:"crash_rate,omitempty"`      // the crash designs'
	Seed          int64      `json:"seed"`                      // the stream's, or the lease designs' durations'
	LeaseTimeout  float64    `json:"lease_timeout_s,omitempty"` // the lease designs', in model seconds
	Lost          int64      `json:"lost"`
	Duplicated    int64      `json:"duplicated"`
	ExactlyOnce   int64      `json:"exactly_once"`
	WorkersKilled int64      `json:"workers_killed"`
	Redeliveries  int64      `json:"redeliveries"`
	Seconds       float64    `json:"seconds"`
	// MatchesModel is the lab's one verdict (lab.Result.MatchesModel): the page's marks and this
	// command's exit status are both read from it.
	MatchesModel bool `json:"matches_model"`
	// FireAndForgetAcks is -fire_and_forget: the run's acks were plain, so duplicated may exceed
	// the model's.
	FireAndForgetAcks bool `json:"fire_and_forget_acks"`
	// The handler design's own (-handler): the handler file, its crash point and the point's
	// label, and its event counts when it publishes; absent from every other design's entry.
	Handler    string           `json:"handler,omitempty"`
	CrashPoint *int             `json:"crash_point,omitempty"`
	Label      string           `json:"crash_point_label,omitempty"`
	Events     *lab.EventCounts `json:"events,omitempty"`
	// KilledDeliveries is the handler's deliveries that died at the crash point, beside the
	// model's workers_killed (its workers hold one job each): workers_killed, unless a lease-time
	// worker died once for two of them.
	KilledDeliveries *int64 `json:"killed_deliveries,omitempty"`
	// Tolerance is how far a count may stray from the model's and still match: the jobs that
	// end within a few milliseconds of their lease (a lease design, or a handler that calls
	// work()), the jobs redelivered near the key window's edge (a handler with key_window), and
	// deliveries that died with their worker.
	Tolerance *int64 `json:"tolerance,omitempty"`
	// LateRenewals counts lease-heartbeat deliveries whose renewals came further apart than the
	// lease (a machine too busy to keep time); they are part of the tolerance.
	LateRenewals int64 `json:"late_renewals,omitempty"`
	// SlowAcks counts deliveries without renewals acked at or past their lease though their model
	// duration ends inside it (a machine slower than the model); they are part of the tolerance.
	SlowAcks int64 `json:"slow_acks,omitempty"`
	// The handler's model delays: "measured" when the model was replayed at the redeliveries the
	// broker made, "lease" when a lease decides them in both; DrawnModel is the workbench's own
	// counts at its drawn delays, beside the replay's. NearEdge counts the jobs redelivered near
	// the key window's edge (and, for publish-retry, the retries near the window's).
	ModelDelays string           `json:"model_delays,omitempty"`
	DrawnModel  *lab.DrawnCounts `json:"drawn_model,omitempty"`
	// The publish-retry design's own: its window, the jobs the real stream holds twice, and
	// the retries near the window's edge, for which agreement is not claimed.
	DupWindow   float64 `json:"dup_window_s,omitempty"`
	Retried     *int64  `json:"retried,omitempty"`
	StoredTwice *int64  `json:"stored_twice,omitempty"`
	NearEdge    *int64  `json:"near_edge,omitempty"`
	Model       struct {
		Lost       int64 `json:"lost"`
		Duplicated int64 `json:"duplicated"`
		// The handler design's model states all its counts: the workbench's for the point.
		ExactlyOnce   *int64           `json:"exactly_once,omitempty"`
		WorkersKilled *int64           `json:"workers_killed,omitempty"`
		Events        *lab.EventCounts `json:"events,omitempty"`
		StoredTwice   *int64           `json:"stored_twice,omitempty"`
	} `json:"model"`
}

// Lab implements "site lab -designs LIST -jobs N -workers W -crash_rate R -seed S
// -lease_seed S -lease_timeout T -format table|json": the designs on a real broker, database and
// worker processes, each beside the model's counts for the same stream. The values are read as
// the page reads its form (lab.ParseParams), so a wrong one is refused in the page's words, every
// wrong one at once. Each design runs in lab.Run, as the page's runs do, in the foreground: the
// run is this process's own, so only it (its Ctrl-C, ctx) cancels it, and no clock watches for
// readers who left. It fails with ErrSilent (exit 1) when a design's real counts differ from
// what its model predicts beyond the tolerance the run states (labVerdict), as the page would
// mark them.
func Lab(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, children Children) error {
	fs := flag.NewFlagSet("lab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := lab.DefaultParams()
	designs := fs.String("designs", "all", "all, or a comma-separated list of "+designNames())
	values := map[string]*string{}
	for _, f := range lab.Fields(lab.MaxJobs) {
		help := f.Help + " Accepts " + f.Range() + "."
		if f.Unit != "" {
			help = "(" + f.Unit + ") " + help
		}
		values[f.Name] = fs.String(f.Name, def.Text()[f.Name], help)
	}
	handler := fs.String(lab.FieldHandler, "", "a handler for the workbench (FILE.star, or template:NAME) to run instead of the designs")
	crashPoint := fs.Int(lab.FieldCrashPoint, 0, "with -handler: the row of the workbench's crash-point table where a crashed job's worker dies (0: before anything)")
	crashAgain := fs.Bool(lab.FieldCrashAgain, false, "with -handler: the redelivery of a crashed job dies at the same point once more")
	keyWindow := fs.Int64(lab.FieldKeyWindow, 0, "with -handler: the keys table keeps only this many most recent keys (0: every key)")
	fireAndForget := fs.Bool(lab.FieldFireAndForget, false, "plain acks with no reply awaited: an ack lost with a killed worker adds a duplicate the model lacks")
	format := fs.String("format", "table", "table or json")
	sinkURL := fs.String("database-url", getenv("DATABASE_URL"), "a postgres:// database for the sink instead of a SQLite file (env DATABASE_URL)")
	natsURL := fs.String("nats-url", getenv("LAB_NATS_URL"), "an existing NATS server with JetStream instead of the embedded one (env LAB_NATS_URL)")
	dataDir := fs.String("data-dir", envOr(getenv, "DATA_DIR", "./data"), "the site's data directory: the run's scratch files live under its lab/ (env DATA_DIR)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("lab: unexpected argument %q", fs.Arg(0))
	}
	if *format != "table" && *format != "json" {
		return fmt.Errorf("lab: -format must be table or json")
	}
	raw := map[string][]string{}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *handler == "" {
		for _, name := range []string{lab.FieldCrashPoint, lab.FieldCrashAgain, lab.FieldKeyWindow} {
			if set[name] {
				return fmt.Errorf("lab: -%s: only a run of a handler (-handler FILE.star) takes it", name)
			}
		}
	} else if set["designs"] {
		return errors.New("lab: -designs: a run of a handler (-handler) runs the handler alone; leave -designs out")
	}
	if *designs == "all" || *handler != "" {
		for _, d := range lab.Designs() {
			raw[lab.FieldDesign] = append(raw[lab.FieldDesign], string(d))
		}
	} else if *designs != "" {
		raw[lab.FieldDesign] = strings.Split(*designs, ",")
	}
	for name, v := range values {
		raw[name] = []string{*v}
	}
	p, errs := lab.ParseParams(raw, lab.MaxJobs)
	if len(errs) > 0 {
		var all []error
		for _, e := range errs {
			name := e.Field
			if name == lab.FieldDesign {
				name = "designs"
			}
			all = append(all, fmt.Errorf("lab: -%s: %s", name, e.Message))
		}
		return errors.Join(all...)
	}
	p.FireAndForget = *fireAndForget
	if set[lab.FieldDupWindow] && (*handler != "" || !p.HasPublishRetry()) {
		// The form always sends a window; a command line that names one for a design that has no
		// use for it is a mistake the reader should hear of.
		return fmt.Errorf("lab: -%s: only the %s design takes a dedup window; add it to -designs or leave -%s out", lab.FieldDupWindow, lab.PublishRetry, lab.FieldDupWindow)
	}
	if *handler != "" {
		hc, err := labHandler(ctx, children.Check, p, *handler, *crashPoint, *crashAgain, *keyWindow)
		if err != nil {
			return err
		}
		p.Designs, p.Handler = []lab.Design{lab.DesignHandler}, hc
	}
	if *sinkURL != "" && !strings.HasPrefix(*sinkURL, "postgres://") && !strings.HasPrefix(*sinkURL, "postgresql://") {
		return errors.New("lab: -database-url: want a postgres:// or postgresql:// URL")
	}

	log := slog.New(slog.NewTextHandler(stderr, nil))
	scratch := lab.ScratchDir(*dataDir)
	sweep := func(ctx context.Context) {
		n, err := lab.Sweep(ctx, scratch, *natsURL, *sinkURL)
		if n > 0 {
			log.Info("lab: removed the files of runs that are gone", "runs", n, "dir", scratch)
		}
		if err != nil {
			log.Error("lab: sweep", "dir", scratch, "err", err)
		}
	}
	sweep(ctx) // what a killed run of this command, or of the site, left behind
	// Each design has the page's whole deadline: a command line may ask for all six at 5,000.
	runCtx, cancel := context.WithTimeout(ctx, time.Duration(len(p.Designs))*lab.DefaultDeadline)
	defer cancel()
	var results []lab.Result
	var runErr error
	for _, d := range p.Designs {
		cfg := p.Config(d)
		cfg.NATSURL, cfg.SinkURL, cfg.ScratchDir, cfg.Command = *natsURL, *sinkURL, scratch, children.LabWorker
		fmt.Fprintf(stderr, "lab: %s: %s…\n", cfg.Design, labRunning(cfg))
		res, err := lab.Run(runCtx, cfg, nil) // on Ctrl-C, it kills the workers and removes the files first
		if err != nil {
			if !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, lab.ErrDeadline) {
				log.Error("lab run", "design", d, "err", err)
			}
			runErr = fmt.Errorf("%s: %w", d, err)
			break
		}
		results = append(results, res)
	}
	sweep(context.WithoutCancel(ctx))
	if err := ctx.Err(); err != nil {
		return err
	}
	var he *lab.HandlerError
	if errors.As(runErr, &he) {
		return fmt.Errorf("lab: %s: the handler failed in worker %d: %s", *handler, he.Worker, he.Code.Error())
	}
	if runErr != nil {
		return fmt.Errorf("lab: %w", runErr)
	}
	if *format == "json" {
		out := struct {
			Designs []labDesignJSON `json:"designs"`
		}{Designs: []labDesignJSON{}}
		for _, r := range results {
			j := labDesignJSON{Design: r.Design, Jobs: r.Jobs, Workers: r.Workers, Seed: r.Seed, LeaseTimeout: r.LeaseTimeout,
				Lost: r.Lost, Duplicated: r.Duplicated, ExactlyOnce: r.ExactlyOnce, WorkersKilled: r.WorkersKilled,
				Redeliveries: r.Redeliveries, Seconds: r.Seconds, MatchesModel: r.MatchesModel(), FireAndForgetAcks: r.FireAndForgetAcks}
			if !r.Design.IsLease() {
				j.CrashRate = &r.CrashRate
			}
			if r.Design.IsLease() {
				j.Tolerance, j.LateRenewals = &r.Tolerance, r.LateRenewals
			}
			j.SlowAcks = r.SlowAcks
			j.Model.Lost, j.Model.Duplicated = r.ModelLost, r.ModelDuplicated
			if h := r.Handler; h != nil {
				j.Handler, j.CrashPoint, j.Label, j.Events = *handler, &h.CrashPoint, h.Label, h.Events
				once, killed := h.ModelExactlyOnce, h.ModelCrashed
				j.Model.ExactlyOnce, j.Model.WorkersKilled, j.Model.Events = &once, &killed, h.ModelEvents
				j.KilledDeliveries, j.Tolerance = &r.KilledDeliveries, &r.Tolerance
				switch {
				case h.Replayed:
					j.ModelDelays, j.DrawnModel, j.NearEdge = "measured", h.Drawn, &h.NearEdge
				case h.LeaseTime:
					j.ModelDelays = "lease"
				}
			}
			if pr := r.PublishRetry; pr != nil {
				j.DupWindow, j.Retried, j.StoredTwice, j.NearEdge, j.Model.StoredTwice = pr.DupWindow, &pr.Retried, &pr.StoredTwice, &pr.NearEdge, &pr.ModelStoredTwice
			}
			out.Designs = append(out.Designs, j)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			return err
		}
	} else {
		if *handler != "" {
			fmt.Fprintf(stdout, "%s.\n\n", labHandlerSettings(p, *handler, results))
		} else {
			fmt.Fprintf(stdout, "%s.\n\n", present.SayCap(p.Settings()))
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "design\tjobs\tlost\tmodel\tduplicated\tmodel\texactly once\tkilled\tredelivered\tseconds\t\t")
		for _, r := range results {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t  %s\t\n", r.Design, r.Jobs, r.Lost, r.ModelLost,
				r.Duplicated, r.ModelDuplicated, r.ExactlyOnce, r.WorkersKilled, r.Redeliveries, r.Seconds, agreement(r))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		labHandlerEvents(stdout, results)
		labHandlerNotes(stdout, results)
	}
	return labVerdict(results, stderr)
}

// labVerdict is the command's exit status, the page's verdict (lab.Result.MatchesModel): any
// design whose counts differ from the model's beyond what the run states as its tolerance (jobs
// near their lease's edge, near a window's edge) is named on stderr and fails the command.
func labVerdict(results []lab.Result, stderr io.Writer) error {
	differs := false
	for _, r := range results {
		if r.MatchesModel() {
			continue
		}
		if tol, why := r.Tolerated(); tol > 0 {
			fmt.Fprintf(stderr, "lab: %s: the real counts differ from the model's by more than its %d %s\n", r.Design, tol, why)
		} else {
			fmt.Fprintf(stderr, "lab: %s: the real counts differ from the model's\n", r.Design)
		}
		differs = true
	}
	if differs {
		return ErrSilent
	}
	return nil
}

// labRunning is the line a design's start writes to stderr: what runs, and with what.
func labRunning(cfg lab.Config) string {
	if cfg.Design == lab.PublishRetry {
		return fmt.Sprintf("%s jobs from one producer, no workers; publish acks lost at rate %s", experiments.Thousands(cfg.Jobs), experiments.FormatFloat(cfg.CrashRate))
	}
	return fmt.Sprintf("%s jobs on %d workers", experiments.Thousands(cfg.Jobs), cfg.Workers)
}

// envOr is the environment's value for k, or def when it is unset or empty.
func envOr(getenv func(string) string, k, def string) string {
	if v := getenv(k); v != "" {
		return v
	}
	return def
}

// agreement is the table's last column, from the lab's own comparison: DIFFERS for a count
// beyond the run's tolerance, what the tolerance covers for one within it, and the duplicates
// fire-and-forget acks added.
func agreement(r lab.Result) string {
	if !r.MatchesModel() {
		return "DIFFERS"
	}
	within, extra := false, false
	for _, c := range r.Compare() {
		within = within || c.Agree == lab.Within
		extra = extra || c.Agree == lab.Extra
	}
	tol, why := r.Tolerated()
	switch {
	case within && r.PublishRetry != nil:
		return fmt.Sprintf("within %d %s (not claimed)", tol, why)
	case within && r.Handler != nil && r.Handler.NearEdge > 0:
		return fmt.Sprintf("within %d %s (commit order)", tol, why)
	case within:
		return fmt.Sprintf("within %d (real-time jitter)", tol)
	case extra:
		return fmt.Sprintf("+%d duplicated (acks lost with their worker)", r.ExtraDuplicates())
	}
	return ""
}

func designNames() string {
	var names []string
	for _, d := range lab.Designs() {
		names = append(names, string(d))
	}
	return strings.Join(names, ", ")
}
