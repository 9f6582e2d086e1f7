package lab

import (
	"fmt"
	"strings"
	"time"

	"effectivelyonce/experiments"
)

// The lab's runs in words: a design's name and the values a run starts with, as the progress box
// on the page and "site lab" both state them. They live with the lab's types, not in pages, so
// that the command line says them without depending on the templates.

// Label is the design's name in plain words; a design this list does not know yet (one added to
// the lab after it) shows its command-line name.
func (d Design) Label() string {
	switch d {
	case AckBeforeWork:
		return "Ack before work"
	case AckAfterWork:
		return "Ack after work"
	case DedupOutsideTx:
		return "Dedup key outside the transaction"
	case DedupInTx:
		return "Dedup key in the same transaction"
	case LeaseNoRenewal:
		return "Lease without renewal"
	case LeaseHeartbeat:
		return "Lease with a heartbeat"
	case PublishRetry:
		return "Publisher retries into the broker's dedup window"
	case DesignHandler:
		return "Your handler"
	}
	return string(d)
}

// Settings says every value p runs with, as the progress box states them: the designs, the
// stream, the crash designs' rate and seed, the lease designs' seed and timeout, and the acks.
func (p Params) Settings() string {
	names := make([]string, len(p.Designs))
	for i, d := range p.Designs {
		names[i] = d.Label()
		if d == DesignHandler {
			names[i] = "your handler" // mid-sentence: "Your run, with your handler, on …"
		}
	}
	s := fmt.Sprintf("%s, on %s jobs", sayList(names), experiments.Thousands(p.Jobs))
	if p.RunsWorkers() {
		s += " with " + plural(int64(p.Workers), "worker process", "worker processes")
		if p.HasPublishRetry() {
			s += " (the publisher's retry runs none)"
		}
	}
	// The stream's rate is a crash rate for the designs whose workers crash, and for the
	// publisher's retry the share of publish acks it loses: say which, or both.
	rate := experiments.FormatFloat(p.CrashRate)
	switch crash, pr := p.HasCrashDesign(), p.HasPublishRetry(); {
	case crash && pr:
		s += fmt.Sprintf("; crash rate %s (for the publisher's retry, the share of publish acks lost), stream seed %d", rate, p.Seed)
	case crash:
		s += fmt.Sprintf("; crash rate %s, stream seed %d", rate, p.Seed)
	case pr:
		s += fmt.Sprintf("; publish acks lost at rate %s, stream seed %d", rate, p.Seed)
	}
	if p.HasLease() {
		s += "; " + LeaseSettings(p.LeaseSeed, p.LeaseTimeout)
	}
	if p.HasPublishRetry() {
		s += fmt.Sprintf("; dedup window %s s", experiments.FormatFloat(p.DupWindow))
	}
	if h := p.Handler; h != nil {
		s += "; " + handlerPoint(h.CrashPoint, h.CrashAgain)
		if h.KeyWindow > 0 {
			s += fmt.Sprintf(", a key window of %s", experiments.Thousands(h.KeyWindow))
		}
	}
	if !p.HasCrashDesign() {
		return s // the lease designs always confirm their acks, and the publisher acks nothing
	}
	if p.FireAndForget {
		return s + "; fire-and-forget acks"
	}
	return s + "; confirmed acks"
}

// handlerPoint says where a handler run's crashed jobs die.
func handlerPoint(point int, again bool) string {
	s := fmt.Sprintf("crash point %d", point)
	if again {
		s += ", the redelivery dying there again"
	}
	return s
}

// LeaseSettings states a lease run's seed and timeout, the timeout also in the lab's real time.
func LeaseSettings(seed int64, timeout float64) string {
	return fmt.Sprintf("lease seed %d, lease timeout %s model seconds (%s ms)", seed, experiments.FormatFloat(timeout),
		experiments.Thousands(time.Duration(timeout*float64(ModelSecond)).Round(time.Millisecond).Milliseconds()))
}

// sayList joins names as a sentence lists them ("a, b and c"), as present.SayList does: the lab
// may not import present, which brings the chart library with it.
func sayList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// plural writes a count with its noun in the right number, as present.Plural does (see sayList).
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return experiments.Thousands(n) + " " + many
}
