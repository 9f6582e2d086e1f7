// Package workbench runs a reader's own consumer, written in Starlark, against the notebook's
// model world, and crashes its worker at every step of it, one crash point at a time. It has no
// HTTP: the server, the command line (site check), the live lab and the study rooms call it.
//
// # The handler
//
// A handler is a Starlark file that defines
//
//	def handle(job, queue, db, bus):
//
// and is called once per delivery of a job. Its world is these names and nothing else:
//
//   - job.id, the job's number in the stream (0, 1, 2, ...), and job.attempt, 1 on the first
//     delivery, 2 on the first redelivery, and so on.
//   - queue.ack() tells the queue this delivery is done; queue.lease_timeout is the lease in
//     seconds.
//   - db.apply(id) is the job's effect, committed at once. db.seen(key) asks the dedup table for a
//     key; db.remember(key) writes one, committed at once, and returns False if it was already
//     there. Keys are whole numbers, strings, bools and tuples of those.
//   - db.begin() opens a transaction tx with tx.apply, tx.seen, tx.remember, tx.outbox(event),
//     tx.commit() and tx.rollback(). Nothing in it is durable before the commit, and a crash
//     loses it whole. A commit whose key another delivery committed meanwhile rolls back and
//     returns False (a unique key), otherwise it returns True.
//   - bus.publish(event) sends an event to a second system at once: the dual write. Rows written
//     with tx.outbox are published by a relay after the commit, at least once.
//   - work(renew_every=None) runs the job's own duration in virtual time, renewing the lease every
//     renew_every seconds while it runs if given; uuid() returns a fresh id per call, the same on
//     every run of a check.
//
// Starlark is Python's syntax with the parts a handler could use to hide from a crash taken out:
// there is no try (a crash is not an exception), no while and no recursion (every loop ends), no
// load. print goes to the check's output, capped at 16 KB.
//
// # The model world
//
// The stream is the experiments' own: job i crashes iff the i-th draw of Random(seed) is below
// crash_rate (Random(13) and 2% reproduce the hands-on document). A crash point is a place in the
// handler's sequence of primitive operations (the calls above, work() included): point 0 dies
// before anything, point k right after the k-th operation. At each point, the first delivery of
// every crashing job dies there (and its redelivery too, once, with crash_again); the rest of the
// stream runs clean. A crash keeps what was durable and loses the rest.
//
// A delivery that ends without an ack comes back later. Its redelivery arrives 1 to max_delay
// jobs later, drawn from Random(delay_seed) per crashed job in job order, in block 4's exact loop
// order; one that merely returned without acking waits max_delay jobs. A handler that names
// work() lives in lease time instead: jobs take the lease experiment's durations (Random(31):
// mostly about 2 s, 5% about 40 s), a lease that runs out hands the job to another worker while
// the first may still run, a heartbeat renews only if it arrives by the expiry, and a crashed
// worker's lease runs out after its last renewal. The dedup table keeps every key, or only the
// most recent key_window of them (first in, first out, as block 4's window does).
//
// In the producer's world (world=producer, the concept page's outbox), a request is handled once
// and never retried; its first write crashes it with probability crash_rate, its second write
// likewise, and the outbox relay dies between publishing a row and marking it sent as often as
// the outbox experiment draws it, from the same Random(seed).
//
// # What a check reports
//
// Per crash point: jobs lost (never applied), applied exactly once, duplicated (applied more than
// once), deliveries, and for a handler that publishes, events lost (a committed effect nothing
// announced), phantom (an event for an effect that never committed) and duplicated; the job ids
// behind each count; for a failing point, a sentence told from one job's durable state at its
// crash (ack sent? effect committed? key committed? event published?) and what its redelivery
// then did, with that job's timeline in the experiments' event vocabulary. Then the verdict, and
// the smallest failing case: the shortest start of the stream and the single crash point that
// still break the handler, as parameters a permalink carries.
//
// # How it is fast
//
// A check runs the stream once without crashes and once per crash point, so the handler is
// called hundreds of thousands of times. It is called in Starlark only when it must: every
// delivery's operations are recorded with the answers the world gave, and a later run of the same
// delivery replays them in Go for as long as the world answers the same, going live in Starlark
// from the first answer that differs (a redelivery that finds a key this time, say). A handler is
// deterministic, so the replay is what Starlark would have done.
//
// # Where it runs
//
// Check runs in the caller's process and is for trusted handlers (the templates, tests). A
// reader's handler goes through a Sandbox, which runs it in a child process, the site's own binary
// re-executed as ChildCommand, with an empty environment, no inherited descriptors, its own
// process group, rlimits on CPU, open files, core and address space, a Go memory limit, a step
// limit and a deadline; the parent kills the group on deadline or cancel. Admission (how many
// checks at once, how often per reader) belongs to the caller.
package workbench
