package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"

	"effectivelyonce/experiments"
	"effectivelyonce/present"
	"effectivelyonce/workbench"
)

// Check implements "site check handler.star [-param value ...] [-format table|json|csv]": the
// workbench's check of a handler, in a child process (child, the binary's own workbench.ChildCommand)
// as on the server. It fails with ErrSilent (exit 1) when the verdict is that some crash point
// breaks the handler.
func Check(ctx context.Context, args []string, stdout io.Writer, child func(context.Context) *exec.Cmd) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return fmt.Errorf("check: name a handler file (a .star file with def handle(job, queue, db, bus):), or template:NAME for one of %s", templateNames())
	}
	name := args[0]
	src, err := handlerSource(name)
	if err != nil {
		return err
	}
	raw, err := readFlags(args[1:])
	if err != nil {
		return fmt.Errorf("check %s: %w", name, err)
	}
	format := "table"
	if v, ok := raw["format"]; ok {
		if len(v) != 1 || (v[0] != "json" && v[0] != "csv" && v[0] != "table") {
			return fmt.Errorf("check %s: -format must be table, json or csv", name)
		}
		format = v[0]
	}
	p, err := workbench.Parse(raw, "format")
	if err != nil {
		return fieldErrors("check "+name, err)
	}
	res, err := workbench.Sandbox{Command: child}.Check(ctx, src, p)
	var ce *workbench.CodeError
	switch {
	case errors.As(err, &ce):
		return errors.New(codeAt(name, ce))
	case err != nil:
		return fieldErrors("check "+name, err)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		body := map[string]any{"handler": name, "source_hash": workbench.SourceHash(src), "version": present.Version(),
			"verdict": res.Verdict, "points": res.Points, "smallest": res.Smallest, "result": res}
		if err := enc.Encode(body); err != nil {
			return err
		}
	case "csv":
		if _, err := io.WriteString(stdout, checkCSV(name, src, res)); err != nil {
			return err
		}
	default:
		if _, err := io.WriteString(stdout, checkText(name, src, res)); err != nil {
			return err
		}
	}
	if !res.Verdict.Survives {
		return ErrSilent
	}
	return nil
}

// handlerSource reads the handler from a file, or a template by its name.
func handlerSource(name string) (string, error) {
	if t, ok := strings.CutPrefix(name, "template:"); ok {
		tp, found := workbench.LookupTemplate(t)
		if !found {
			return "", fmt.Errorf("check: no template %q; the templates are %s", t, templateNames())
		}
		return tp.Source, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("check: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, workbench.MaxSource+1))
	if err != nil {
		return "", fmt.Errorf("check: %s: %w", name, err)
	}
	if len(b) > workbench.MaxSource {
		return "", fmt.Errorf("check: %s is longer than %s bytes (16 KB), a handler's limit", name, experiments.Thousands(workbench.MaxSource))
	}
	return string(b), nil
}

func templateNames() string {
	var names []string
	for _, t := range workbench.Templates() {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// checkTable is the crash points as one table, with typed cells beside the display text.
func checkTable(res workbench.Result) present.Table {
	t := present.Table{Caption: "Crash points",
		Head:    []string{"crash point", "", "lost", "exactly once", "duplicated", "deliveries"},
		Numeric: []bool{true, false, true, true, true, true},
		Keys:    []string{"crash_point", "label", "lost_jobs", "exactly_once_jobs", "duplicated_jobs", "deliveries"}}
	if res.Publishes {
		t.Head = append(t.Head, "events lost", "phantom", "duplicated events")
		t.Numeric = append(t.Numeric, true, true, true)
		t.Keys = append(t.Keys, "events_lost", "events_phantom", "events_duplicated", "extra_events")
	}
	t.Head = append(t.Head, "verdict")
	t.Numeric = append(t.Numeric, false)
	t.Keys = append(t.Keys, "survives")
	producer := res.Params.World == workbench.WorldProducer
	if producer {
		// A request that crashed before its change committed failed in front of its caller: it
		// is counted as failed, and nothing is lost.
		t.Head[2], t.Keys[2] = "failed", "failed_requests"
	}
	num := experiments.Thousands
	count := func(n int64) present.Cell { return present.NumberCell(num(n), float64(n)) }
	for _, p := range res.Points {
		point := present.NumberCell(strconv.Itoa(p.CrashPoint), float64(p.CrashPoint))
		switch {
		case p.CrashPoint == workbench.RelayPoint:
			point = present.WordCell("relay", "relay")
		case p.CrashPoint < 0:
			point = present.WordCell("as drawn", "as drawn")
		}
		first := count(p.Lost)
		if producer && p.Failed != nil {
			first = count(*p.Failed)
		}
		shown := []present.Cell{point, present.WordCell(p.Label, p.Label), first, count(p.ExactlyOnce), count(p.Duplicated), count(p.Deliveries)}
		if res.Publishes {
			shown = append(shown, count(*p.EventsLost), count(*p.EventsPhantom), count(*p.EventsDuplicated))
		}
		// A program's form also carries the extra events, which people are not shown.
		data := slices.Clone(shown)
		if res.Publishes {
			data = append(data, count(*p.ExtraEvents))
		}
		verdict := present.WordCell(map[bool]string{true: "survives", false: "BREAKS"}[p.Survives], strconv.FormatBool(p.Survives))
		shown, data = append(shown, verdict), append(data, verdict)
		row := make([]string, len(shown))
		for i, c := range shown {
			row[i] = c.Text
		}
		t.Rows, t.Data = append(t.Rows, row), append(t.Data, data)
	}
	return t
}

func checkText(name, src string, res workbench.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n\n", name, res.Verdict.Text)
	b.WriteString(checkTable(res).Text() + "\n")
	for _, p := range res.Points {
		if p.Explanation != "" {
			fmt.Fprintf(&b, "crash point %s (%s):\n  %s\n", pointName(p), p.Label, p.Explanation)
		}
	}
	if s := res.Smallest; s != nil {
		fmt.Fprintf(&b, "\nsmallest failing case: %s\n", s.Text)
		if s.Note != "" {
			fmt.Fprintf(&b, "  %s\n", s.Note)
		}
		fmt.Fprintf(&b, "  site check %s %s\n", name, flagsOf(s.Query))
	}
	if res.Output != "" {
		b.WriteString("\nprinted:\n" + res.Output)
	}
	fmt.Fprintf(&b, "\nnotebook %s · handler %s\n", present.Version(), workbench.SourceHash(src))
	return b.String()
}

func pointName(p workbench.Point) string {
	if p.CrashPoint == workbench.RelayPoint {
		return "relay"
	}
	return strconv.Itoa(p.CrashPoint)
}

// flagsOf turns a permalink's query into the command line's flags.
func flagsOf(query string) string {
	var flags []string
	for _, kv := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			flags = append(flags, "-"+k+" "+v)
		}
	}
	return strings.Join(flags, " ")
}

// checkCSV is the crash points for spreadsheets and pandas, after the parameters as comment lines,
// as every CSV of the notebook starts.
func checkCSV(name, src string, res workbench.Result) string {
	var b strings.Builder
	b.WriteString("# check=" + name + "\r\n")
	values := res.Params.Format()
	for _, f := range workbench.Fields() {
		b.WriteString("# " + f.Name + "=" + values[f.Name] + "\r\n")
	}
	b.WriteString("# version=" + present.Version() + "\r\n")
	b.WriteString("# source_hash=" + workbench.SourceHash(src) + "\r\n")
	b.WriteString(checkTable(res).CSV())
	return b.String()
}

// codeAt is a mistake in the handler file name as a compiler says it: "name:line:col: message",
// or "name: message" for a fault of the whole handler (its size, its memory), which has no place
// to name.
func codeAt(name string, ce *workbench.CodeError) string {
	if ce.Line == 0 {
		return name + ": " + ce.Msg
	}
	return fmt.Sprintf("%s:%d:%d: %s", name, ce.Line, ce.Col, ce.Msg)
}
