package experiments

import (
	"context"
	"math"
	"net/url"
	"strconv"
)

// WindowTimeParams describe a dedup window the way a vendor documents it, in time (SQS FIFO's
// 5 minutes, JetStream's Duplicates of 2 minutes), beside the reader's own traffic: how many
// messages a second pass through it and how long after the first copy the second one arrives.
type WindowTimeParams struct {
	Throughput    float64 `json:"throughput"`
	WindowSeconds float64 `json:"window_seconds"`
	DelaySeconds  float64 `json:"delay_seconds"`
}

// DefaultWindowTimeParams are SQS FIFO's 5-minute interval at 100 messages a second, with a second
// copy 30 s later (SQS's default visibility timeout).
func DefaultWindowTimeParams() WindowTimeParams {
	return WindowTimeParams{Throughput: 100, WindowSeconds: 300, DelaySeconds: 30}
}

// WindowTimeResult is the window and the delay counted in jobs, as block 4 counts them, and the
// parameters that run block 4's window experiment on them.
type WindowTimeResult struct {
	// WindowIDs is how many ids arrive while the window lasts: the ids it holds at once.
	WindowIDs int64 `json:"window_ids"`
	// DelayJobs is how many other jobs arrive between the first copy and the second.
	DelayJobs int64 `json:"delay_jobs"`
	// Safe says whether the window still holds the key when the second copy arrives; block 4
	// shows that a window at least as large as the largest delay lets no duplicate through.
	Safe bool `json:"safe"`
	// Block4 is block 4's window experiment at these values, when its ranges admit them.
	Block4 *WindowParams `json:"block4,omitempty"`
	// Block4Query is Block4 as a permalink's query string ("" when Block4 is nil).
	Block4Query string `json:"block4_query,omitempty"`
}

// The largest window and delay block 4 can be opened with: its windows and max_delay fields' range.
const block4Max = 10_000_000

// WindowTime converts a window and a delay given in seconds into jobs at the given throughput.
// It rounds to the nearest job, as "about 3,000 jobs later" does: traffic is never that even.
func WindowTime(ctx context.Context, p WindowTimeParams) (WindowTimeResult, error) {
	if err := ctx.Err(); err != nil {
		return WindowTimeResult{}, err
	}
	r := WindowTimeResult{
		WindowIDs: int64(math.Round(p.Throughput * p.WindowSeconds)),
		DelayJobs: int64(math.Round(p.Throughput * p.DelaySeconds)),
	}
	r.Safe = r.DelayJobs <= r.WindowIDs
	if b, ok := block4(r.WindowIDs, r.DelayJobs); ok {
		r.Block4 = &b
		r.Block4Query = Block4Query(b)
	}
	return r, nil
}

// block4 returns block 4's window experiment at a window of w ids and delays up to d jobs. The
// stream is twice the larger of the two (at least the document's 20,000 jobs): a stream no longer
// than the window never evicts a key, and would show a window too small for the delay as safe.
func block4(w, d int64) (WindowParams, bool) {
	if w < 1 || w > block4Max || d > block4Max {
		return WindowParams{}, false
	}
	p := DefaultWindowParams()
	p.Windows = []int64{w}
	p.MaxDelay = max(d, 1)
	p.Jobs = min(max(2*max(w, p.MaxDelay), 20_000), block4Max)
	return p, true
}

// Block4Query writes the values a window-time run changes in block 4's experiment as a query
// string, in the order a reader reads them.
func Block4Query(p WindowParams) string {
	q := url.Values{}
	q.Set("jobs", strconv.FormatInt(p.Jobs, 10))
	q.Set("max_delay", strconv.FormatInt(p.MaxDelay, 10))
	q.Set("windows", strconv.FormatInt(p.Windows[0], 10))
	return q.Encode()
}

func windowTimeExperiment() *Experiment {
	return define("window-time", "A dedup window in time, counted in jobs",
		"How many ids a window given in seconds holds at a throughput, how many jobs later a delayed second copy arrives, and whether the window still remembers it.",
		[]Field{
			{Name: "throughput", Label: "Throughput", Unit: "messages/s",
				Help: "How many messages a second pass through the window.", Kind: KindFloat, Min: 0.001, Max: 1_000_000},
			{Name: "window_seconds", Label: "Dedup window", Unit: "s",
				Help: "How long the system remembers an id (SQS FIFO: 300, JetStream's default Duplicates: 120).", Kind: KindFloat, Min: 0.1, Max: 2_592_000},
			{Name: "delay_seconds", Label: "Redelivery delay", Unit: "s",
				Help: "How long after the first copy the second arrives: a visibility timeout, an ack wait, a publisher's retry.", Kind: KindFloat, Min: 0, Max: 2_592_000},
		},
		DefaultWindowTimeParams, WindowTime, func(WindowTimeParams) int64 { return 1 }). // arithmetic: no size to limit
		memory(smallMemory).counts(WholeRun, windowTimeCounts).untraced(notJobs).
		headline(headlineWindowTime).build()
}
