package workbench

import "strings"

// Rung is one exercise of the workbench's ladder: the template it starts from, at that template's
// parameters, and what to make of it. The tests hold a reference answer to every rung that
// survives where the start breaks.
type Rung struct {
	Title, Task string
	// Template names the template the rung starts from; Answer the template that answers it (for
	// the window, the same handler with a larger key window).
	Template, Answer string
}

// Ladder is the exercise ladder, in order: make ack-after-work survive, find the bounded key
// window that survives, and add the event with an outbox.
//
// The second rung asked at first for a handler that survives a window of 1,000 keys against
// delays of up to 2,000 jobs. No handler can: every job must write its key together with its
// effect (any job may crash right after the commit), a key found is not refreshed and none is
// written twice, so each job pushes exactly one older key out of the window; and the table is the
// only durable state a redelivery can read (an effect or an event cannot be asked after). A
// redelivery more than about a window's worth of jobs late finds nothing, whatever the handler
// does. So the rung asks what block 4 teaches instead: how large the window must be, against the
// longest delay.
func Ladder() []Rung {
	return []Rung{
		{Title: "Make ack-after-work survive", Template: "ack-after-work", Answer: "dedup-in-tx",
			Task: "It applies a job twice when the worker dies between the effect and the ack. Change it until every crash point says survives."},
		{Title: "Find the key window that survives", Template: "window", Answer: "window",
			Task: "Redeliveries come up to 2,000 jobs late (max delay), and the dedup table keeps only the last key window keys: 1,000 to start, and block 3's handler breaks. No handler can make up for a window that is too short, since every job must write its key with its effect and the table is all a redelivery can read. Raise the key window until every crash point survives: what is the smallest that does, and how does it compare with the longest delay?"},
		{Title: "Add the event with an outbox", Template: "dual-write-db-first", Answer: "outbox",
			Task: "This producer commits its change, then publishes the event, and a crash between the two loses the event. Write the event with tx.outbox in the same transaction instead, so no event is lost or sent for nothing."},
	}
}

// ReferenceFor is the template a study room's handler round shows as its answer when the host
// names none: the ladder's answer to a rung that starts from template, else the design the
// documents end on for template's kind of handler (the outbox for a producer, the heartbeat for a
// lease, the dedup key in the effect's transaction for the rest).
func ReferenceFor(template string) string {
	for _, r := range Ladder() {
		if r.Template == template {
			return r.Answer
		}
	}
	t, _ := LookupTemplate(template)
	switch {
	case strings.Contains(t.Query, "world=producer"):
		return "outbox"
	case strings.HasPrefix(template, "lease-"):
		return "lease-heartbeat"
	}
	return "dedup-in-tx"
}
