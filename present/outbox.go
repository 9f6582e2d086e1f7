package present

import (
	"fmt"

	"effectivelyonce/experiments"
)

// outboxShows presents the dual write against the transactional outbox.
var outboxShows = shows[experiments.OutboxParams, experiments.OutboxResult]{
	charts:  outboxCharts,
	tables:  outboxTables,
	reading: readOutbox,
	point:   func(p experiments.Point) string { return p.Name + ", " + outboxConsumer(p.Flag) },
	rowWord: "with",
	units:   map[string]string{"lost": "events lost"},
	ids:     "events",
	ask:     &asking[experiments.OutboxParams, experiments.OutboxResult]{says: []string{"events", "crash_rate"}, words: askOutbox},
}

// producerDoes says what each producer design does, to open a question about its rows.
var producerDoes = map[string]string{
	string(experiments.DualWriteDBFirst):      "Committing the row, then publishing the event",
	string(experiments.DualWritePublishFirst): "Publishing the event, then committing the row",
	string(experiments.TransactionalOutbox):   "With a transactional outbox",
}

// eventsDid says what a count of events counts, after "how many of 20,000 events".
var eventsDid = map[string]string{"lost": "are lost", "phantom": "are published for a change that never committed",
	"duplicate_applications": "are applied a second time"}

// askOutbox asks for a producer design's lost, phantom or twice-applied events.
func askOutbox(p experiments.OutboxParams, _ experiments.OutboxResult, at experiments.Count) string {
	consumer := "a consumer that keeps no dedup key"
	if at.At.Flag {
		consumer = "a consumer that keeps a dedup key"
	}
	crash := "no step ever crashing"
	if p.CrashRate > 0 {
		crash = "each step crashing " + rate(p.CrashRate) + " of the time"
	}
	return fmt.Sprintf("%s, and %s, how many of %s %s with %s?", producerDoes[at.At.Name], consumer, Plural(p.Events, "event", "events"), eventsDid[at.Name], crash)
}

func outboxCharts(domID string, _ experiments.OutboxParams, r experiments.OutboxResult) []Chart {
	cats, series := rowBars(r.Rows, func(x experiments.OutboxRow) string {
		if x.ConsumerDedup {
			return string(x.Design) + " / dedup"
		}
		return string(x.Design) + " / no dedup"
	},
		column[experiments.OutboxRow]{"lost", func(x experiments.OutboxRow) int64 { return x.Lost }},
		column[experiments.OutboxRow]{"phantom", func(x experiments.OutboxRow) int64 { return x.Phantom }},
		column[experiments.OutboxRow]{"duplicate applications", func(x experiments.OutboxRow) int64 { return x.DuplicateApplications }})
	return []Chart{barChart(domID+"-bars", "Lost, phantom and duplicated events",
		"Grouped bars of lost events, phantom events and duplicate applications for each producer design and consumer.",
		"", "events", cats, series)}
}

func outboxTables(_ experiments.OutboxParams, r experiments.OutboxResult) []Table {
	t := newTable("Producer designs, "+Plural(r.Events, "event", "events"),
		col{"producer", "producer", false}, col{"consumer", "consumer_dedup", false}, col{"lost events", "lost_events", true},
		col{"phantom events", "phantom_events", true}, col{"duplicate applications", "duplicate_applications", true})
	for _, row := range r.Rows {
		c := "no dedup key"
		if row.ConsumerDedup {
			c = "dedup key"
		}
		cells := []cell{textCell(string(row.Design)), flagCell(c, row.ConsumerDedup), countCell(row.Lost), countCell(row.Phantom), countCell(row.DuplicateApplications)}
		for i := range cells {
			cells[i].RowAlso = outboxConsumer(row.ConsumerDedup)
		}
		t.addAt(experiments.OutboxPoint(row.Design, row.ConsumerDedup), cells...)
	}
	return []Table{t}
}

// outboxConsumer names the consumer of an outbox row, beside its producer design.
func outboxConsumer(dedup bool) string {
	if dedup {
		return "consumer with dedup"
	}
	return "consumer without dedup"
}

// outboxDesign names a producer design of the outbox experiment for prose.
func outboxDesign(d experiments.OutboxDesign) string {
	switch d {
	case experiments.DualWriteDBFirst:
		return "the dual write that commits first"
	case experiments.DualWritePublishFirst:
		return "the dual write that publishes first"
	case experiments.TransactionalOutbox:
		return "the outbox"
	}
	return string(d)
}

func readOutbox(p experiments.OutboxParams, r experiments.OutboxResult) []string {
	if r.Events == 0 || len(r.Rows) == 0 {
		return []string{"No events were produced in this run, so there is nothing to read."}
	}
	out := []string{fmt.Sprintf("The producer made %s, and each step crashed with a chance of %s.", Plural(r.Events, "business change", "business changes"), rate(p.CrashRate))}
	// Group the rows by producer design: lost and phantom events are the producer's doing and the
	// same for either consumer, duplicate applications are the consumer's.
	type pair struct{ no, yes *experiments.OutboxRow }
	var order []experiments.OutboxDesign
	designs := map[experiments.OutboxDesign]*pair{}
	for i := range r.Rows {
		row := &r.Rows[i]
		d := designs[row.Design]
		if d == nil {
			d = &pair{}
			designs[row.Design] = d
			order = append(order, row.Design)
		}
		if row.ConsumerDedup {
			d.yes = row
		} else {
			d.no = row
		}
	}
	clean := func(row *experiments.OutboxRow) bool {
		return row != nil && row.Lost == 0 && row.Phantom == 0 && row.DuplicateApplications == 0
	}
	var cleanNames []string
	cleanCount := 0
	allClean := true
	for _, name := range order {
		d := designs[name]
		pr := d.no
		if pr == nil {
			pr = d.yes
		}
		lost := "no event lost"
		if pr.Lost > 0 {
			lost = Plural(pr.Lost, "event lost", "events lost")
		}
		phantom := "no phantom event"
		if pr.Phantom > 0 {
			phantom = Plural(pr.Phantom, "phantom event", "phantom events")
		}
		var dups string
		switch {
		case (d.no == nil || d.no.DuplicateApplications == 0) && (d.yes == nil || d.yes.DuplicateApplications == 0):
			dups = "no event applied twice"
		case d.no != nil && d.yes != nil:
			dups = fmt.Sprintf("%s at a consumer without a dedup key and %s at one with a key",
				Plural(d.no.DuplicateApplications, "duplicate application", "duplicate applications"), count(d.yes.DuplicateApplications))
		case d.no != nil:
			dups = Plural(d.no.DuplicateApplications, "duplicate application", "duplicate applications") + " at a consumer without a dedup key"
		default:
			dups = Plural(d.yes.DuplicateApplications, "duplicate application", "duplicate applications") + " at a consumer with a dedup key"
		}
		out = append(out, fmt.Sprintf("%s: %s, %s, %s.", SayCap(outboxDesign(name)), lost, phantom, dups))
		switch {
		case clean(d.no) && clean(d.yes):
			cleanNames = append(cleanNames, outboxDesign(name)+" with either consumer")
			cleanCount += 2
		case clean(d.yes):
			cleanNames = append(cleanNames, outboxDesign(name)+" with a consumer that dedups")
			cleanCount++
			allClean = false
		case clean(d.no):
			cleanNames = append(cleanNames, outboxDesign(name)+" with a consumer that does not dedup")
			cleanCount++
			allClean = false
		default:
			allClean = false
		}
	}
	if p.CrashRate == 0 {
		return append(out, "With no crashes every design looks perfect; they differ only inside the crash window.")
	}
	switch {
	case allClean:
		out = append(out, "Every combination came through clean: no crash on this run fell between two steps that had to agree. More events or a higher crash rate will separate them.")
	case len(cleanNames) == 0:
		out = append(out, "No combination came through clean on every count.")
	case cleanCount == 1:
		out = append(out, fmt.Sprintf("Only one combination lost nothing, invented nothing and applied nothing twice: %s.", cleanNames[0]))
	default:
		out = append(out, fmt.Sprintf("Clean on every count: %s.", SayList(cleanNames)))
	}
	if ob := designs["outbox"]; ob != nil && ob.no != nil && !allClean {
		switch {
		case ob.no.DuplicateApplications == 0:
			out = append(out, "The outbox's relay never had to publish a row twice on this run, so the consumer's key had nothing to catch there.")
		case ob.yes != nil:
			applied := "none of them"
			if n := ob.yes.DuplicateApplications; n > 0 {
				applied = count(n) + " of them"
			}
			out = append(out, fmt.Sprintf("Each of the outbox's %s is its relay publishing a row again after a crash between publishing and marking the row sent; a consumer with a dedup key applied %s. The outbox makes sure the event exists; the key makes sure it lands once.",
				Plural(ob.no.DuplicateApplications, "duplicate", "duplicates"), applied))
		}
	}
	return out
}
