package experiments

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
)

// literalEscapes follows escapes() from "Block 4 — The dedup table is not free" of the C01
// hands-on document (seeds/000, c01_job_scheduler.py) step by step, slowness included, so that the
// fast Window is checked against the document's own algorithm rather than against a second clever
// one. Its shape, in our words:
//
//   - a set of seen ids plus a list of them in arrival order; when the list grows past the window,
//     its oldest id leaves the set, by taking it off the front of the list (linear in the window);
//   - each job is applied first, and if it crashed, a redelivery joins a plain list with a delay
//     drawn as randint(1, max_delay) from Random(delay_seed);
//   - after each job, every queued delay goes down by one, the entries that reach zero are applied
//     in list order, and the rest are kept: a full scan of the list per job (jobs x queue);
//   - when the stream ends, whatever is still queued is applied in list order;
//   - the answer is the sum, over jobs applied more than once, of the applications beyond the first.
func literalEscapes(window, maxDelay, delaySeed int64, jobs int64, crashRate float64, seed int64) int64 {
	stream := newPyRandom(seed)
	rng := newPyRandom(delaySeed)
	seen := map[int64]bool{}
	var order []int64
	applied := map[int64]int64{}
	var q [][2]int64
	apply := func(j int64) {
		if seen[j] {
			return
		}
		seen[j] = true
		order = append(order, j)
		if int64(len(order)) > window {
			delete(seen, order[0])
			order = order[1:]
		}
		applied[j]++
	}
	for jid := int64(0); jid < jobs; jid++ {
		crashed := stream.random() < crashRate
		apply(jid)
		if crashed {
			q = append(q, [2]int64{jid, rng.randint(1, maxDelay)})
		}
		for i := range q {
			q[i][1]--
		}
		var due [][2]int64
		for _, e := range q {
			if e[1] <= 0 {
				due = append(due, e)
			}
		}
		for _, e := range due {
			apply(e[0])
		}
		var keep [][2]int64
		for _, e := range q {
			if e[1] > 0 {
				keep = append(keep, e)
			}
		}
		q = keep
	}
	for _, e := range q {
		apply(e[0])
	}
	var sum int64
	for _, v := range applied {
		if v > 1 {
			sum += v - 1
		}
	}
	return sum
}

func TestWindowMatchesLiteralTranscription(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2000))
	cases := []WindowParams{DefaultWindowParams()}
	for range 25 {
		p := randomWindowParams(r)
		p.Jobs = min(p.Jobs, 1500) // the literal version is quadratic
		if r.IntN(3) == 0 {
			p.CrashRate = 0.3 + 0.7*r.Float64() // crowded queues: many redeliveries fire together
		}
		cases = append(cases, p)
	}
	for i, p := range cases {
		t.Run(fmt.Sprintf("%d/jobs=%d,rate=%.3g,max_delay=%d", i, p.Jobs, p.CrashRate, p.MaxDelay), func(t *testing.T) {
			res, err := Window(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			for _, pt := range res.Points {
				if want := literalEscapes(pt.Window, p.MaxDelay, p.DelaySeed, p.Jobs, p.CrashRate, p.Seed); pt.Escaped != want {
					t.Errorf("window %d: fast %d, literal %d", pt.Window, pt.Escaped, want)
				}
			}
		})
	}
}
