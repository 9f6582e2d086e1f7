package experiments

import (
	"context"
	"fmt"
	"reflect"
)

// The exports below serve the consumer workbench (package workbench), whose model world replays the
// same streams as the experiments: the same crashed jobs, the same redelivery delays, the same
// producer crashes, drawn by the code that draws them here, so that a reader's handler and the
// experiments' engines are compared on identical inputs. The workbench's engine itself is written
// apart from the experiments' and calls none of them.

// RedeliveryDelays draws block 4's redelivery delays for a stream: one randint(1, maxDelay) from a
// fresh Random(delaySeed) per crashed job, in job order, as the document's loop draws them;
// delays[j] is 0 for a job that did not crash. The slice is the caller's own.
func RedeliveryDelays(ctx context.Context, crashed []bool, maxDelay, delaySeed int64) ([]int64, error) {
	if maxDelay < 1 {
		return nil, fmt.Errorf("max_delay: %d is below 1", maxDelay)
	}
	rng := newPyRandom(delaySeed)
	delays := make([]int64, len(crashed))
	for j, c := range crashed {
		if j%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if c {
			delays[j] = rng.randint(1, maxDelay)
		}
	}
	return delays, nil
}

// ProducerCrash is where the outbox experiment's crashes land for one event: at the producer's
// first write (nothing happens), at its second write, and how many times the outbox relay dies
// between publishing the event and marking its row sent.
type ProducerCrash struct {
	First        bool `json:"first"`
	Second       bool `json:"second"`
	RelayCrashes int  `json:"relay_crashes"`
}

// ProducerCrashes draws every event's crashes as the outbox experiment does, from one
// Random(seed) in event order. The slice is the caller's own.
func ProducerCrashes(ctx context.Context, events int64, rate float64, seed int64) ([]ProducerCrash, error) {
	if events < 0 {
		return nil, fmt.Errorf("events: %d is negative", events)
	}
	rng := newPyRandom(seed)
	out := make([]ProducerCrash, events)
	for e := range out {
		if e%ctxEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		c := drawCrashes(rng, rate)
		out[e] = ProducerCrash{First: c.first, Second: c.second, RelayCrashes: c.markSent}
	}
	return out, nil
}

// ParseInt reads one value of a whole-number field as every form, API and flag of the notebook
// does (thousands separators, exponents, the field's range), returning the value or the message
// to show beside the field.
func ParseInt(f Field, raw string) (int64, string) {
	var v int64
	return v, parseInto(f, raw, reflect.ValueOf(&v).Elem())
}

// ParseFloat reads one value of a number field, like ParseInt.
func ParseFloat(f Field, raw string) (float64, string) {
	var v float64
	return v, parseInto(f, raw, reflect.ValueOf(&v).Elem())
}
