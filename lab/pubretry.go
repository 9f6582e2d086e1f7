package lab

// The publish-retry design: a bounded dedup window that lives in the broker, not in the sink.
// A producer publishes every job with its id in the Nats-Msg-Id header. For the jobs the stream
// marks (the crash designs' marks, Random(seed).random() < crash_rate), the producer acts as if
// the publish acknowledgement never came back: it waits, then publishes the same message again.
// JetStream remembers each id for the stream's Duplicates window; a retry that arrives inside it
// is answered as a duplicate and not stored, one that arrives after it is stored a second time,
// and every consumer of the stream then gets that job twice. No worker runs: the count is read
// from the stream itself.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"effectivelyonce/experiments"
)

// The publish-retry design's Duplicates window, in seconds. nats-server refuses a window under
// 100 ms; 10 s is five times the longest retry delay, so the top of the range shows a window
// that absorbs every retry without a run that lasts minutes. JetStream's own default, 2 minutes,
// is for the /systems page's prose: a run at it would show nothing the 10 s window does not.
const (
	DefaultDupWindow = 1.0
	MinDupWindow     = 0.1
	MaxDupWindow     = 10.0
)

// The retries' delays are block 4's redelivery delays, randint(1, 2000) from a fresh Random(17)
// per marked job in job order, read as milliseconds instead of jobs: so the same stream gives
// block 4 and this design the same delays, and a 1 s window sits in the middle of them.
const (
	retryMaxDelayMs = 2000
	retryDelaySeed  = 17
)

// retryClock is the throughput at which the window model counts time: one id a millisecond, so
// that experiments.WindowTime's "window in ids" and "delay in jobs" are both milliseconds, and
// its rounding to whole jobs moves no verdict outside the edge band below.
const retryClock = 1000.0

// purgeLag and edgeJitter bound how far the real broker can stray from the model's sharp edge.
// nats-server does not compare an id's age when a retry arrives; it looks the id up in a map
// that a timer prunes, and that timer never fires sooner than 50 ms after its last run
// (purgeMsgIds' minFire in server/stream.go, v2.15). An id can so outlive its window by up to
// purgeLag, and a retry that lands then is still absorbed. edgeJitter covers the rest: the
// first ack's trip back, the producer's timer, the retry's trip in.
const (
	purgeLag   = 50 * time.Millisecond
	edgeJitter = 10 * time.Millisecond
)

// Retry is one marked job's second publish, as the model sees it and as the broker answered.
type Retry struct {
	Job int64 `json:"job"`
	// DelayMs is the drawn delay between the first copy's acknowledgement and the retry.
	DelayMs int64 `json:"delay_ms"`
	// WaitedMs is the real time from the first acknowledgement to the retry's send.
	WaitedMs float64 `json:"waited_ms"`
	// ModelAbsorbed is the window model's verdict; StoredOnce what the stream holds after the
	// run; AckDuplicate what the broker's acknowledgement of the retry said.
	ModelAbsorbed bool `json:"model_absorbed"`
	StoredOnce    bool `json:"stored_once"`
	AckDuplicate  bool `json:"ack_duplicate"`
	// NearEdge marks a delay within edgeJitter before the window's end or purgeLag+edgeJitter
	// after it, where the broker's purge timer decides and the model may not agree.
	NearEdge bool `json:"near_edge"`
}

// PublishRetryResult is the publish-retry design's own part of a Result.
type PublishRetryResult struct {
	DupWindow float64 `json:"dup_window_s"`
	// Retried is how many jobs the stream marked, whose producer published them twice.
	Retried int64 `json:"retried"`
	// StoredTwice is how many jobs the stream holds two messages of, read back message by
	// message; StreamMessages is the stream's message count, which is Jobs + StoredTwice.
	StoredTwice    int64 `json:"stored_twice"`
	StreamMessages int64 `json:"stream_messages"`
	// AckDuplicates is how many retries the broker acknowledged as duplicates: the producer's
	// view of the same count, Retried - StoredTwice when the two agree.
	AckDuplicates    int64 `json:"ack_duplicates"`
	ModelStoredTwice int64 `json:"model_stored_twice"`
	// NearEdge counts the retries whose delay lies near the window's end; the model's verdict
	// for those is not claimed.
	NearEdge int64 `json:"near_edge"`
	// Differs counts the retries away from the edge whose real fate is not the model's: 0
	// when the broker behaves as the window model says.
	Differs int64   `json:"differs"`
	Retries []Retry `json:"retries"`
}

// consistent says whether the broker agreed with the model on every retry away from the edge, and
// its two views (the stream and its acks) agree with each other; Compare weighs the totals.
func (p *PublishRetryResult) consistent() bool {
	return p.Differs == 0 && p.AckDuplicates == p.Retried-p.StoredTwice
}

// PublishRetryModel is the window model's prediction for a stream of retries: delays[j] is job
// j's retry delay in milliseconds (0 for a job published once), window the Duplicates window in
// seconds. A retry is absorbed when the window still holds its id, as experiments.WindowTime
// decides at one id a millisecond; the rest are stored twice. It returns every retry, in job
// order, with its verdict and whether it lies near the edge, and how many the model stores twice.
func PublishRetryModel(ctx context.Context, delays []int64, window float64) ([]Retry, int64, error) {
	var retries []Retry
	var twice int64
	w := Config{DupWindow: window}.dupWindow()
	for j, d := range delays {
		if d == 0 {
			continue
		}
		t, err := experiments.WindowTime(ctx, experiments.WindowTimeParams{Throughput: retryClock, WindowSeconds: window,
			DelaySeconds: float64(d) / retryClock})
		if err != nil {
			return nil, 0, err
		}
		delay := time.Duration(d) * time.Millisecond
		r := Retry{Job: int64(j), DelayMs: d, ModelAbsorbed: t.Safe,
			NearEdge: delay >= w-edgeJitter && delay <= w+purgeLag+edgeJitter}
		if !r.ModelAbsorbed {
			twice++
		}
		retries = append(retries, r)
	}
	return retries, twice, nil
}

// retryDelays are the run's marked jobs and their delays in milliseconds (0: not marked).
func retryDelays(ctx context.Context, cfg Config) ([]int64, error) {
	marked, err := experiments.Crashes(ctx, cfg.Jobs, cfg.CrashRate, cfg.Seed)
	if err != nil {
		return nil, err
	}
	return experiments.RedeliveryDelays(ctx, marked, retryMaxDelayMs, retryDelaySeed)
}

// dupWindow is the stream's Duplicates window: 0, the server's default, for every design but
// publish-retry, whose DupWindow withDefaults has filled in.
func (c Config) dupWindow() time.Duration {
	return time.Duration(math.Round(c.DupWindow * float64(time.Second)))
}

// msgID is job j's Nats-Msg-Id: the same for both publishes, as a producer's retry must be.
func msgID(j int64) string { return "job-" + strconv.FormatInt(j, 10) }

// runPublishRetry is Run for the publish-retry design: the broker alone, no workers and no sink.
func runPublishRetry(ctx context.Context, cfg Config, progress func(Progress)) (Result, error) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.Deadline)
	defer cancel()
	res := Result{Design: cfg.Design, Jobs: cfg.Jobs, Workers: cfg.Workers, CrashRate: cfg.CrashRate, Seed: cfg.Seed}
	delays, err := retryDelays(ctx, cfg)
	if err != nil {
		return Result{}, err
	}
	retries, modelTwice, err := PublishRetryModel(ctx, delays, cfg.DupWindow)
	if err != nil {
		return Result{}, err
	}
	pr := &PublishRetryResult{DupWindow: cfg.DupWindow, Retried: int64(len(retries)), ModelStoredTwice: modelTwice, Retries: retries}
	for _, r := range retries {
		if r.NearEdge {
			pr.NearEdge++
		}
	}
	res.Crashed, res.ModelDuplicated, res.Tolerance = pr.Retried, modelTwice, pr.NearEdge

	sc, err := newScratch(cfg.ScratchDir)
	if err != nil {
		return Result{}, err
	}
	defer sc.remove()
	b, err := startBroker(ctx, cfg, sc)
	if err != nil {
		return Result{}, err
	}
	defer b.close()

	var done atomic.Int64 // jobs whose every publish has been acknowledged
	var wg sync.WaitGroup
	errs := make(chan error, 1)
	fail := func(err error) {
		select {
		case errs <- err:
		default:
		}
		cancel()
	}
	next := 0 // into retries, which are in job order
	for j := range cfg.Jobs {
		data := strconv.AppendInt(nil, j, 10)
		f, err := b.js.PublishAsync(b.subject, data, jetstream.WithMsgID(msgID(j)))
		if err != nil {
			return Result{}, fmt.Errorf("lab: publish job %d: %w", j, err)
		}
		var r *Retry
		if next < len(retries) && retries[next].Job == j {
			r = &retries[next]
			next++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-f.Ok():
			case err := <-f.Err():
				fail(fmt.Errorf("lab: publish job %d: %w", j, err))
				return
			case <-ctx.Done():
				return
			}
			if r == nil {
				done.Add(1)
				return
			}
			// The acknowledgement came, and the producer acts as if it had not: it waits its
			// delay and publishes the same message, with the same id, again.
			acked := time.Now()
			t := time.NewTimer(time.Duration(r.DelayMs) * time.Millisecond)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return
			}
			r.WaitedMs = float64(time.Since(acked).Microseconds()) / 1000
			ack, err := b.js.Publish(ctx, b.subject, data, jetstream.WithMsgID(msgID(j)))
			if err != nil {
				fail(fmt.Errorf("lab: publish job %d again: %w", j, err))
				return
			}
			r.AckDuplicate = ack.Duplicate
			done.Add(1)
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
wait:
	for {
		select {
		case <-finished:
			break wait
		case <-tick.C:
			progress(Progress{Design: cfg.Design, Jobs: cfg.Jobs, Done: done.Load(), Elapsed: time.Since(start)})
		}
	}
	select {
	case err := <-errs:
		return Result{}, err
	default:
	}
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return Result{}, fmt.Errorf("%w (%v)", ErrDeadline, cfg.Deadline)
		}
		return Result{}, err
	}

	stored, total, err := b.storedPerJob(ctx, cfg.Jobs)
	if err != nil {
		return Result{}, err
	}
	pr.StreamMessages = total
	w := cfg.dupWindow()
	for i := range pr.Retries {
		r := &pr.Retries[i]
		// A loaded machine can fire the producer's timer late: a retry whose real wait, not only
		// its drawn delay, reaches the edge band is reported near the edge, not claimed.
		if waited := time.Duration(r.WaitedMs * float64(time.Millisecond)); !r.NearEdge && r.ModelAbsorbed && waited >= w-edgeJitter {
			r.NearEdge = true
			pr.NearEdge++
			res.Tolerance++
		}
		r.StoredOnce = stored[r.Job] == 1
		if r.AckDuplicate {
			pr.AckDuplicates++
		}
		if !r.NearEdge && r.StoredOnce != r.ModelAbsorbed {
			pr.Differs++
		}
	}
	res.Lost, res.ExactlyOnce, res.Duplicated = experiments.Tally(stored)
	pr.StoredTwice = res.Duplicated
	res.PublishRetry = pr
	res.Seconds = time.Since(start).Seconds()
	progress(Progress{Design: cfg.Design, Jobs: cfg.Jobs, Done: cfg.Jobs, Elapsed: time.Since(start)})
	return res, nil
}

// storedPerJob reads the run's stream back, message by message, and counts the messages each
// job's id has there: the broker's own record of what it stored, not the producer's.
func (b *broker) storedPerJob(ctx context.Context, jobs int64) ([]int64, int64, error) {
	s, err := b.js.Stream(ctx, b.stream)
	if err != nil {
		return nil, 0, fmt.Errorf("lab: stream: %w", err)
	}
	state := s.CachedInfo().State
	stored := make([]int64, jobs)
	for seq := state.FirstSeq; seq <= state.LastSeq && state.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			return nil, 0, fmt.Errorf("lab: stream message %d: %w", seq, err)
		}
		j, err := strconv.ParseInt(string(m.Data), 10, 64)
		if err != nil || j < 0 || j >= jobs || m.Header.Get(jetstream.MsgIDHeader) != msgID(j) {
			return nil, 0, fmt.Errorf("lab: stream message %d is not one of the run's jobs (%q, id %q)", seq, m.Data, m.Header.Get(jetstream.MsgIDHeader))
		}
		stored[j]++
	}
	return stored, int64(state.Msgs), nil
}
