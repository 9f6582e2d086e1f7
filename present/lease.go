package present

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"effectivelyonce/experiments"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// leaseShows presents block 6's visibility timeouts with and without renewal.
var leaseShows = shows[experiments.LeaseParams, experiments.LeaseResult]{
	charts: func(domID string, _ experiments.LeaseParams, r experiments.LeaseResult) []Chart {
		return []Chart{leaseChart(domID, r)}
	},
	tables:  leaseTables,
	reading: readLease,
	opening: func(_ experiments.LeaseParams, r experiments.LeaseResult) Opening {
		// To the tenth of a second, as the reading says it: the number on the page is the truth.
		return Opening{Name: "slowest_s", Value: math.Round(r.SlowestS*10) / 10, Unit: "seconds the slowest job took",
			Ask: "How long did the slowest job take, in seconds?"}
	},
	point:   func(p experiments.Point) string { return "timeout " + experiments.FormatFloat(p.X) + " s" },
	rowWord: "at",
	// The timeouts go on a log axis from a tenfold span, so that 5, 15, 30 and 60 s do not huddle
	// at the left edge of an axis that runs to 300.
	band: &bandAxis{"visibility timeout (s)", "{value} s", 10},
	// Its counts are its renewal policies, named as its table heads their columns.
	counts: map[string]string{"no_renewal": "no renewal", "renew_third": "renew at t/3",
		"renew_double": "2t, document", "renew_double_real": "2t, real queue"},
	countsOf: "Jobs run twice",
	// Without renewal no heartbeat is sent, so the heartbeats' loss and its seed change nothing.
	ask: &asking[experiments.LeaseParams, experiments.LeaseResult]{
		says:  []string{"jobs", "slow_fraction", "fast_mean_s", "slow_mean_s", "timeouts", "heartbeat_loss", "loss_seed"},
		words: askLease},
}

// askLease asks q5 at the reader's durations and timeout: "Most jobs take about 2 s, but 5% take
// about 40 s. With a 5 s visibility timeout and no renewal, how many of 20,000 jobs run twice?"
func askLease(p experiments.LeaseParams, _ experiments.LeaseResult, at experiments.Count) string {
	jobs := fmt.Sprintf("Most jobs take about %s, but %s take about %s.", seconds(p.FastMeanS), rate(p.SlowFraction), seconds(p.SlowMeanS))
	switch p.SlowFraction {
	case 0:
		jobs = fmt.Sprintf("Jobs take about %s.", seconds(p.FastMeanS))
	case 1:
		jobs = fmt.Sprintf("Jobs take about %s.", seconds(p.SlowMeanS))
	}
	policy := map[string]string{"no_renewal": "no renewal", "renew_third": "renewal every third of the timeout",
		"renew_double": "renewal at twice the timeout (the document's count)", "renew_double_real": "renewal at twice the timeout (a real queue)"}[at.Name]
	return fmt.Sprintf("%s With a %s visibility timeout and %s, how many of %s run twice?", jobs, seconds(at.At.X), policy, ofJobs(p.Jobs))
}

func leaseTables(_ experiments.LeaseParams, r experiments.LeaseResult) []Table {
	t := newTable(fmt.Sprintf("Jobs executed twice, of %s", count(r.Jobs)),
		col{"visibility timeout", "timeout_s", true}, col{"no renewal", "twice_no_renewal_jobs", true},
		col{"renew t/3", "twice_renew_third_jobs", true},
		col{"2t, document", "twice_renew_double_jobs", true},
		col{"2t, real queue", "twice_renew_double_real_jobs", true})
	for _, p := range r.Points {
		t.addAt(experiments.SweepPoint(p.TimeoutS), secondsCell(p.TimeoutS), countCell(p.NoRenewal), countCell(p.RenewThird), countCell(p.RenewDouble), countCell(p.RenewDoubleReal))
	}
	return []Table{t}
}

func readLease(p experiments.LeaseParams, r experiments.LeaseResult) []string {
	if len(r.Points) == 0 || r.Jobs == 0 {
		return []string{"No timeouts or no jobs were given, so there is nothing to read."}
	}
	pts := slices.Clone(r.Points)
	slices.SortStableFunc(pts, func(a, b experiments.LeasePoint) int { return cmp.Compare(a.TimeoutS, b.TimeoutS) })
	first, last := pts[0], pts[len(pts)-1]
	one := len(pts) == 1
	// atTimeouts names the timeouts a whole column was measured at.
	atTimeouts := fmt.Sprintf("at every timeout from %s to %s", seconds(first.TimeoutS), seconds(last.TimeoutS))
	if one {
		atTimeouts = "at the only timeout tried, " + seconds(first.TimeoutS)
	}
	var out []string
	if r.Jobs == 1 {
		out = append(out, fmt.Sprintf("The one job took %s.", saySecs(r.SlowestS)))
	} else {
		out = append(out, fmt.Sprintf("Of %s, the slowest took %s.", Plural(r.Jobs, "job", "jobs"), saySecs(r.SlowestS)))
	}

	zero := -1
	for i, pt := range pts {
		if pt.NoRenewal == 0 {
			zero = i
			break
		}
	}
	switch {
	case zero == 0 && one:
		out = append(out, fmt.Sprintf("Without renewal, the only timeout tried, %s, ran no job twice: no job outlived it.", seconds(first.TimeoutS)))
	case zero == 0:
		out = append(out, fmt.Sprintf("Without renewal, even the shortest timeout tried, %s, ran no job twice: no job outlived it.", seconds(first.TimeoutS)))
	case zero > 0:
		out = append(out, fmt.Sprintf("Without renewal, a %s visibility timeout ran %s twice (%s). The count first reaches zero at %s, the first timeout tried that outlasts every job; but with that timeout a worker that really has died keeps its job hidden for %s before anyone retries it.",
			seconds(first.TimeoutS), Plural(first.NoRenewal, "job", "jobs"), sayShare(first.NoRenewal, r.Jobs), seconds(pts[zero].TimeoutS), seconds(pts[zero].TimeoutS)))
	default:
		s := fmt.Sprintf("Without renewal, a %s visibility timeout ran %s twice (%s)", seconds(first.TimeoutS), Plural(first.NoRenewal, "job", "jobs"), sayShare(first.NoRenewal, r.Jobs))
		if !one {
			s += fmt.Sprintf(", and no timeout tried reaches zero: at %s, %s still ran twice", seconds(last.TimeoutS), count(last.NoRenewal))
		}
		s += fmt.Sprintf(". Without a heartbeat the timeout has to outlast the slowest job, %s here.", saySecs(r.SlowestS))
		out = append(out, s)
	}

	// The model's rule, which both renewal columns follow from (see experiments/lease.go).
	rule := "In this model a worker reports completion on a heartbeat tick, so every job holds its lease for at least one renewal interval, however short the job."
	ruleSaid := false
	allThirdZero := true
	thirdNotWorse := true
	for _, pt := range pts {
		if pt.RenewThird != 0 {
			allThirdZero = false
		}
		if pt.RenewThird > pt.NoRenewal {
			thirdNotWorse = false
		}
	}
	if p.HeartbeatLoss == 0 {
		if allThirdZero {
			out = append(out, fmt.Sprintf("%s Renewing every third of the timeout, each heartbeat arrives while the lease still runs, so no lease lapses: 0 jobs ran twice %s. With a heartbeat, the timeout only has to outlast the gap between renewals, not the job.",
				rule, atTimeouts))
			ruleSaid = true
		} else {
			s := fmt.Sprintf("Renewing every third of the timeout ran %s twice at %s", Plural(first.RenewThird, "job", "jobs"), seconds(first.TimeoutS))
			if !one {
				s += fmt.Sprintf(" and %s at %s", count(last.RenewThird), seconds(last.TimeoutS))
			}
			out = append(out, s+", although no heartbeat was lost.")
		}
	} else {
		s := fmt.Sprintf("With %s of heartbeats lost, renewing every third of the timeout ran %s twice at %s", rate(p.HeartbeatLoss), Plural(first.RenewThird, "job", "jobs"), seconds(first.TimeoutS))
		if !one {
			s += fmt.Sprintf(" and %s at %s", count(last.RenewThird), seconds(last.TimeoutS))
		}
		s += fmt.Sprintf(", against %s", count(first.NoRenewal))
		if !one {
			s += fmt.Sprintf(" and %s", count(last.NoRenewal))
		}
		s += " with no renewal."
		if allThirdZero {
			s += " No lease lapsed: in this model a lapse needs three heartbeats in a row to go missing, a gap longer than the timeout, and no job drew such a run."
		} else {
			s += " One lost heartbeat leaves a third of the timeout to spare; two in a row leave none (the next renewal lands at the instant of expiry, a tie this model counts as survival and a real queue may not); three always lose the lease, and a long job sends more heartbeats, so it has more chances to meet such a run. That is why a worker whose renewal fails should stop, and why the dedup key is still needed."
		}
		if !thirdNotWorse {
			s += " At some timeouts renewal did worse than no renewal at all."
		}
		out = append(out, s)
	}

	allDouble := true
	realIsNone := true
	for _, pt := range pts {
		if pt.RenewDouble != r.Jobs {
			allDouble = false
		}
		if pt.RenewDoubleReal != pt.NoRenewal {
			realIsNone = false
		}
	}
	var s string
	if allDouble {
		s = fmt.Sprintf("The column for renewing once every two timeouts shows %s run twice %s. That is the document's simplification, not a lesson: its model counts a job as doubled whenever the heartbeat is slower than the lease, whatever the job's length.",
			sayAllJobs(r.Jobs), atTimeouts)
		if !ruleSaid {
			s = rule + " " + s
		}
	} else {
		s = fmt.Sprintf("In the document's model, renewing once every two timeouts ran %s twice at %s", Plural(first.RenewDouble, "job", "jobs"), seconds(first.TimeoutS))
		if !one {
			s += fmt.Sprintf(" and %s at %s", count(last.RenewDouble), seconds(last.TimeoutS))
		}
		s += "."
	}
	s += " On a real queue a heartbeat that arrives after the lease has expired renews nothing, so renewing that slowly is no renewal at all: a job runs twice only if it outlives the timeout, and one shorter than the timeout finishes in time."
	if realIsNone {
		s += fmt.Sprintf(" The real-queue column counts exactly that, and it matches the column without renewal: %s at %s.", Plural(first.RenewDoubleReal, "job", "jobs"), seconds(first.TimeoutS))
	} else {
		s += fmt.Sprintf(" The real-queue column counts that: %s run twice at %s.", Plural(first.RenewDoubleReal, "job", "jobs"), seconds(first.TimeoutS))
	}
	out = append(out, s)
	return out
}

// sayAllJobs is "the one job", "both jobs" or "all 20,000 jobs".
func sayAllJobs(n int64) string {
	switch n {
	case 1:
		return "the one job"
	case 2:
		return "both jobs"
	}
	return "all " + count(n) + " jobs"
}

// leaseChart draws double executions against the visibility timeout: no renewal, then renewal at
// twice the timeout as a real queue does it (a renewal after expiry renews nothing, so the line
// follows no renewal, dashed so both show where they coincide), then renewal at a third of the
// timeout. The document's count for renewing at 2t (every job, a quirk of its model) stays in the
// table and a note of the reading; drawn, its 20,000 needed a panel of its own. Timeouts stand on
// a log axis at their true distances.
func leaseChart(domID string, r experiments.LeaseResult) Chart {
	title := "Double executions versus visibility timeout"
	build := func(narrow bool) (map[string]any, int) {
		c := charts.NewLine()
		timeouts := make([]float64, len(r.Points))
		no, real, third := []opts.LineData{}, []opts.LineData{}, []opts.LineData{}
		for i, p := range r.Points {
			timeouts[i] = p.TimeoutS
			no = append(no, opts.LineData{Value: []any{p.TimeoutS, p.NoRenewal}})
			real = append(real, opts.LineData{Value: []any{p.TimeoutS, p.RenewDoubleReal}})
			third = append(third, opts.LineData{Value: []any{p.TimeoutS, p.RenewThird}})
		}
		// Any two timeouts a decade apart go on a log axis: 5, 15, 30, 60 and 300 s are a
		// geometric list, and even spacing would hide that 300 s is five times 60 s.
		x, ticks := sweepAxis("visibility timeout (s)", "{value} s", timeouts, 10)
		// The renewal line sits on the zero line with big symbols: its timeouts' labels stand
		// further down so no symbol touches them.
		x.AxisLabel.Margin = 14
		x.NameGap = 34
		width := wideWidth
		if narrow {
			width = narrowWidth
		}
		names := []string{"no renewal", leaseRealName, "renew at t/3"}
		legend := legendHeight(names, width)
		var most int64
		for _, p := range r.Points {
			most = max(most, p.NoRenewal, p.RenewThird, p.RenewDoubleReal)
		}
		left := 7*len(count(most)) + 18
		// The axis name stands 34 px above the plot, clear of the count labelled above a point at
		// the top of the scale.
		top, height := legend+50, 220
		if narrow {
			height = 200
		}
		c.SetGlobalOptions(append(common(),
			charts.WithGridOpts(opts.Grid{Top: itoa(top), Height: itoa(height), Left: "8", Right: "28", ContainLabel: opts.Bool(true)}),
			charts.WithXAxisOpts(x),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "jobs run twice", NameGap: 34, Min: 0, AxisLabel: &opts.AxisLabel{FontSize: minFont}}),
		)...)
		labels := charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top"})
		hide := charts.WithLabelLayoutOpts(opts.LabelLayout{HideOverlap: opts.Bool(true)})
		c.AddSeries("no renewal", no, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 7}), labels, hide)
		// At the document's values the real queue's line lies on the no-renewal line, point for
		// point: dashed, with larger rings, it shows through.
		c.AddSeries(leaseRealName, real, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 11}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 2, Type: "dashed"}))
		// At the document's values this line is flat at zero, on top of the axis: a thick dashed line
		// with large symbols keeps it visible there. Where no renewal also reaches zero, its small
		// ring is painted inside the large one (see the z below), so both points show.
		c.AddSeries("renew at t/3", third, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true), SymbolSize: 15}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 3, Type: "dotted"}))
		c.Validate()
		return extend(c.JSON(), func(o map[string]any) {
			withTicksAt(o, ticks)
			withCountLabels(o, "no renewal")
			// Where the three lines meet (at zero), the smaller rings are painted inside the larger:
			// t/3's 15 px ring lowest, the real queue's 11 px above it, no renewal's 7 px on top.
			for _, s := range Objects(o["series"]) {
				switch s["name"] {
				case "no renewal":
					// Above the renewal lines' symbols, and its counts clear of their large rings.
					s["z"] = 4 // a line series is z 3 by default
					s["label"].(map[string]any)["distance"] = 10
				case leaseRealName:
					s["z"] = 3.5
				}
			}
			for _, g := range Objects(o["grid"]) {
				g["containLabel"] = false
				g["left"] = left
			}
			for _, y := range Objects(o["yAxis"]) {
				y["nameTextStyle"] = map[string]any{"align": "left", "padding": []int{0, 0, 0, -left + 4}}
			}
		}), top + height + 54
	}
	wide, h := build(false)
	narrow, nh := build(true)
	return Chart{ID: domID + "-curve", Title: title,
		Alt:     "Lines of jobs executed twice at each visibility timeout, on a log scale of timeouts: no renewal, renewal at twice the timeout as a real queue does it, and renewal at a third of the timeout.",
		Options: wide, Narrow: narrow, Height: h, NarrowHeight: nh}
}

// leaseRealName is the chart's name for renewing at twice the timeout on a real queue.
const leaseRealName = "renew at 2t, real queue"
