package workbench

// The live lab's hook into the consumer world: a check that places the queue's redeliveries where
// a real broker handed them out, instead of at the delays Random(delay_seed) draws. The lab's
// broker redelivers after its ack wait, a matter of how fast its workers go, so a model at the
// drawn delays and the lab differ wherever the delays matter (a key window). Replaying the model
// at the lab's own positions leaves the handler as the only thing the two could disagree on.

import (
	"context"
	"fmt"

	"effectivelyonce/experiments"
)

// Redelivery places one redelivery of the consumer world's queue: delivery Attempt (2 or more) of
// Job is handed out right after the first delivery of job After, before job After+1's; an After
// at or past the stream's last job places it after the whole stream. Order ranks redeliveries
// placed after the same job, lowest first (the lab gives the broker's delivery sequence).
type Redelivery struct {
	Job     int64 `json:"job"`
	Attempt int64 `json:"attempt"`
	After   int64 `json:"after"`
	Order   int64 `json:"order"`
}

// MaxReplay bounds the redeliveries one replay places: two for each job of the largest stream.
const MaxReplay = 2 * MaxJobs

// unplacedOrder ranks a redelivery the replay does not place (the real run never made it) after
// every placed one queued for the same step.
const unplacedOrder = 1 << 40

// CheckReplay is Check with the consumer world's redeliveries placed by at (a redelivery at does
// not name keeps its drawn delay). Lease time and the producer's world have no such queue, and
// ignore at. Like Check it runs the handler in this process: only trusted code may be checked
// this way; a reader's handler goes through Sandbox.CheckReplay.
func CheckReplay(ctx context.Context, src string, p Params, at []Redelivery) (Result, error) {
	placed, err := placements(p, at)
	if err != nil {
		return Result{}, err
	}
	c, err := start(ctx, src, p)
	if err != nil {
		return Result{}, err
	}
	if len(placed) > 0 {
		c.e.placed = placed
	}
	return c.check()
}

// CheckReplay is CheckReplay in a child process, as Check is.
func (s Sandbox) CheckReplay(ctx context.Context, src string, p Params, at []Redelivery) (Result, error) {
	if _, err := placements(p, at); err != nil {
		return Result{}, err
	}
	resp, err := s.ask(ctx, request{Source: src, Params: p, Replay: at})
	if err != nil {
		return Result{}, err
	}
	if resp.Result == nil {
		return Result{}, fmt.Errorf("workbench: the check's child answered without a result")
	}
	return *resp.Result, nil
}

// placements indexes at by job and attempt, refusing a placement no stream of p has.
func placements(p Params, at []Redelivery) (map[uint64]Redelivery, error) {
	if len(at) > MaxReplay {
		return nil, experiments.FieldErrors{{Field: "replay", Message: fmt.Sprintf("%s redeliveries; a replay places at most %s", thousands(int64(len(at))), thousands(MaxReplay))}}
	}
	placed := make(map[uint64]Redelivery, len(at))
	for _, r := range at {
		k := uint64(r.Job)<<32 | uint64(r.Attempt)
		switch {
		case r.Job < 0 || r.Job >= p.Jobs || r.Attempt < 2 || r.Attempt > maxLeaseDeliveries || r.After < 0 || r.Order < 0 || r.Order >= unplacedOrder:
			return nil, experiments.FieldErrors{{Field: "replay", Message: fmt.Sprintf("job %d, delivery %d after job %d is not a redelivery of this stream", r.Job, r.Attempt, r.After)}}
		case placed[k] != (Redelivery{}):
			return nil, experiments.FieldErrors{{Field: "replay", Message: fmt.Sprintf("job %d's delivery %d is placed twice", r.Job, r.Attempt)}}
		}
		placed[k] = r
	}
	return placed, nil
}

// place is where the queue puts the redelivery of job j that follows a delivery of attempt: its
// step and rank, the drawn ones when the check replays nothing or not this one.
func (e *engine) place(j, attempt int32, due, seq int64) (int64, int64) {
	if e.placed == nil {
		return due, seq
	}
	if at, ok := e.placed[uint64(j)<<32|uint64(attempt+1)]; ok {
		return at.After, at.Order
	}
	return due, unplacedOrder + seq
}
