package workbench

import (
	"embed"
	"slices"
)

//go:embed templates/*.star
var templateFiles embed.FS

// Template is one of the documents' designs written as a handler, for the workbench's menu and
// for "Edit and check" under a block's design. Query holds the parameters it is meant for (a
// permalink's), Point the crash point where the documents put the crash.
type Template struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	From    string `json:"from"`
	Source  string `json:"source"`
	Query   string `json:"query,omitempty"`
	Point   int    `json:"point"`
	Summary string `json:"summary"`
}

// templates is the menu, in the order the documents teach the designs.
var templates = []Template{
	{Name: "ack-before-work", Title: "Ack before work", From: "Block 1 and the assembly", Point: 1,
		Summary: "At most once: a crash after the ack loses the job."},
	{Name: "ack-after-work", Title: "Ack after work", From: "Block 2 and the assembly", Point: 1,
		Summary: "At least once: a crash before the ack runs the job twice."},
	{Name: "dedup-in-tx", Title: "Dedup key in the effect's transaction", From: "Block 3 and the assembly", Point: 4,
		Summary: "Effectively once: the key and the effect commit together."},
	{Name: "key-job-id", Title: "Key: the job id", From: "Block 3", Point: 4,
		Summary: "A key that stays the same across attempts."},
	{Name: "key-job-attempt", Title: "Key: job id and attempt", From: "Block 3", Point: 4,
		Summary: "A key that changes with every attempt."},
	{Name: "key-uuid", Title: "Key: a fresh uuid", From: "Block 3", Point: 4,
		Summary: "A key minted anew on every delivery."},
	{Name: "window", Title: "Bounded dedup window", From: "Block 4", Point: 4, Query: "key_window=1000",
		Summary: "Keys kept for the last 1,000 only, against delays of up to 2,000 jobs."},
	{Name: "key-then-effect", Title: "Key, then effect", From: "Block 5", Point: 1,
		Summary: "The key is written first and alone: a crash loses the job."},
	{Name: "dedup-outside-tx", Title: "Effect, then key", From: "Block 5 and the assembly", Point: 2,
		Summary: "The effect is written first and alone: a crash duplicates the job."},
	{Name: "lease-no-renewal", Title: "Lease without renewal", From: "Block 6", Point: 0, Query: "crash_rate=0",
		Summary: "Slow jobs outlive their lease and run twice."},
	{Name: "lease-heartbeat", Title: "Lease with a heartbeat", From: "Block 6", Point: 0, Query: "crash_rate=0",
		Summary: "Renewing every third of the lease keeps every job with its worker."},
	{Name: "lease-late-heartbeat", Title: "Heartbeat slower than the lease", From: "Block 6", Point: 0, Query: "crash_rate=0",
		Summary: "A renewal after the lease ran out renews nothing."},
	{Name: "outbox", Title: "Transactional outbox", From: "The concept page", Point: 0, Query: "world=producer",
		Summary: "The change and its event's outbox row commit together; a relay publishes."},
	{Name: "dual-write-db-first", Title: "Dual write, database first", From: "The concept page", Point: 0, Query: "world=producer",
		Summary: "A crash after the commit loses the event."},
	{Name: "dual-write-publish-first", Title: "Dual write, event first", From: "The concept page", Point: 0, Query: "world=producer",
		Summary: "A crash before the commit publishes a phantom event."},
}

// Templates returns the menu of designs with their sources; the slice is the caller's own.
func Templates() []Template {
	out := slices.Clone(templates)
	for i := range out {
		src, err := templateFiles.ReadFile("templates/" + out[i].Name + ".star")
		if err != nil {
			panic("workbench: template " + out[i].Name + " is not embedded")
		}
		out[i].Source = string(src)
	}
	return out
}

// LookupTemplate returns the named template.
func LookupTemplate(name string) (Template, bool) {
	for _, t := range Templates() {
		if t.Name == name {
			return t, true
		}
	}
	return Template{}, false
}
