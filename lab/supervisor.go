package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"effectivelyonce/experiments"
)

// progressEvery is how often Run looks at the broker and reports: often enough for a live page,
// rarely enough that the look costs the workers nothing.
const progressEvery = 100 * time.Millisecond

// maxFailures is how many worker exits other than by SIGKILL a run tolerates before it gives up:
// a worker that cannot start would otherwise be restarted until the deadline.
const maxFailures = 5

// sampleJobs is how many crashed jobs' stories Result.Events tells.
const sampleJobs = 3

// Run runs one design: it starts the broker and the sink, publishes jobs 0..Jobs-1, keeps
// Workers worker processes alive (restarting each killed one at once) until the broker holds no
// job, then counts the sink and sets the counts beside the model's for the same stream. progress
// (which may be nil) is called from Run's goroutine a few times a second and once at the end.
//
// When ctx ends, or the deadline passes, every worker's process group is killed and waited for,
// the broker stopped and the scratch directory removed before Run returns: nothing is left
// behind. A passed deadline returns the counts so far with ErrDeadline.
func Run(ctx context.Context, cfg Config, progress func(Progress)) (Result, error) {
	if err := cfg.Validate(); err != nil {
		return Result{}, err
	}
	var res Result
	if cfg.Design == DesignHandler {
		// The workbench's check first: a handler it refuses is refused before any process starts.
		if err := prepareHandler(ctx, &cfg, &res); err != nil {
			return Result{}, err
		}
	}
	cfg = cfg.withDefaults()
	if progress == nil {
		progress = func(Progress) {}
	}
	if cfg.Design == PublishRetry {
		return runPublishRetry(ctx, cfg, progress)
	}
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	res.Design, res.Jobs, res.Workers, res.CrashRate, res.Seed = cfg.Design, cfg.Jobs, cfg.Workers, cfg.CrashRate, cfg.Seed
	res.FireAndForgetAcks = cfg.FireAndForgetAcks
	var sample []int64 // the jobs whose stories the event log tells, the first sampleJobs of them
	if cfg.Design.IsLease() {
		work, err := experiments.LeaseDurations(ctx, leaseParams(cfg.Jobs, cfg.Seed))
		if err != nil {
			return Result{}, err
		}
		res.LeaseTimeout = cfg.LeaseTimeout
		sample, res.ModelDuplicated, res.Tolerance = leaseModel(cfg.Design, work, cfg.LeaseTimeout)
	} else {
		crashed, err := experiments.Crashes(ctx, cfg.Jobs, cfg.CrashRate, cfg.Seed)
		if err != nil {
			return Result{}, err
		}
		for j, c := range crashed {
			if c {
				res.Crashed++
				sample = append(sample, int64(j))
			}
		}
		if cfg.Design != DesignHandler {
			res.ModelLost, res.ModelDuplicated = model(cfg.Design, crashed)
		}
	}

	sc, err := newScratch(cfg.ScratchDir)
	if err != nil {
		return Result{}, err
	}
	defer sc.remove() // last: after the workers and the broker are gone
	b, err := startBroker(ctx, cfg, sc)
	if err != nil {
		return Result{}, err
	}
	defer b.close()
	sinkPath := filepath.Join(sc.dir, "sink.db")
	if cfg.SinkURL != "" {
		target, drop, err := postgresSink(ctx, cfg.SinkURL, schemaName(sc.tag))
		if err != nil {
			return Result{}, err
		}
		defer drop() // deferred first, so it runs after the workers and the sink's own handle are gone
		sinkPath = target
	}
	db, err := createSink(ctx, sinkPath)
	if err != nil {
		return Result{}, err
	}
	defer db.Close()
	if err := b.publish(ctx, cfg.Jobs); err != nil {
		return Result{}, err
	}

	s := &supervisor{cfg: cfg, procs: map[int]*exec.Cmd{}, ids: map[int]int{}, replaces: map[int]int{}, own: map[int]*tailBuffer{}, early: map[int]bool{},
		fatal: make(chan error, 1), env: []string{
			envNATS + "=" + b.url,
			envStream + "=" + b.stream,
			envSink + "=" + sinkPath,
			envDesign + "=" + string(cfg.Design),
			envJobs + "=" + strconv.FormatInt(cfg.Jobs, 10),
			envRate + "=" + strconv.FormatFloat(cfg.CrashRate, 'g', -1, 64),
			envSeed + "=" + strconv.FormatInt(cfg.Seed, 10),
			envSlots + "=" + strconv.Itoa(leaseSlots(cfg.Workers)),
		}}
	if cfg.FireAndForgetAcks {
		s.env = append(s.env, envAcks+"="+acksFireAndForget)
	}
	if cfg.inLeaseTime() {
		// A lease run's log rows stay open while their delivery works: a killed worker's open rows
		// would keep the run waiting for them until its deadline.
		s.reaped = func(ctx context.Context, id int) error { return closeDead(ctx, db, id) }
	}
	stopRelay := func() {}
	if cfg.Design == DesignHandler {
		s.env = append(s.env, handlerEnv(cfg, b)...)
		rctx, cancelRelay := context.WithCancel(ctx)
		relayed := make(chan struct{})
		go func() {
			defer close(relayed)
			if err := relay(rctx, db, b.js, b.events); err != nil {
				s.fail(err)
			}
		}()
		stopRelay = func() { cancelRelay(); <-relayed }
		defer stopRelay()
	}
	defer s.stop() // before the broker closes, so no worker sees its broker vanish first
	for range cfg.Workers {
		if err := s.start(ctx, 0); err != nil {
			return Result{}, err
		}
	}

	var settling time.Time // when a lease run first looked over but for deliveries not yet logged
	report := func() (done bool, err error) {
		left, delivered, err := b.outstanding(ctx)
		if err != nil {
			return false, fmt.Errorf("lab: broker: %w", err)
		}
		finished, redelivered, err := logged(ctx, db)
		if err != nil {
			return false, fmt.Errorf("lab: sink: %w", err)
		}
		progress(Progress{Design: cfg.Design, Jobs: cfg.Jobs, Done: finished,
			WorkersKilled: s.killedSoFar(), Redeliveries: redelivered, Elapsed: time.Since(start)})
		// Both views must agree the run is over: the broker holds nothing unacked, and every
		// job's acked delivery was also carried through to its last write. In lease time the
		// log's own test below stands for the second: every delivery made was logged and closed
		// (a job whose every allowed delivery died with a killed worker has no acked one, and the
		// broker has given up on it).
		done = left == 0 && (finished == cfg.Jobs || cfg.inLeaseTime())
		if done {
			// A worker that logged its death is dying; wait until it is reaped and counted.
			dying, err := killsLogged(ctx, db)
			if err != nil {
				return false, fmt.Errorf("lab: sink: %w", err)
			}
			done = dying <= s.killedSoFar()
		}
		if !done || !cfg.inLeaseTime() {
			return done, nil
		}
		// A lease job's first ack clears it at the broker while its redelivery may still be
		// worked on elsewhere: the run is over only when no delivery is in progress, and every
		// delivery the broker made has been logged by its worker (or, for one the client dropped
		// unread, after leaseSettle).
		started, working, err := leaseLog(ctx, db)
		if err != nil {
			return false, fmt.Errorf("lab: sink: %w", err)
		}
		if working > 0 {
			return false, nil
		}
		if started >= delivered {
			return true, nil
		}
		if settling.IsZero() {
			settling = time.Now()
		}
		return time.Since(settling) >= leaseSettle, nil
	}
	deadline := time.NewTimer(cfg.Deadline - time.Since(start))
	defer deadline.Stop()
	tick := time.NewTicker(progressEvery)
	defer tick.Stop()
	var late error
wait:
	for {
		select {
		case <-ctx.Done():
			return Result{}, ctx.Err()
		case err := <-s.fatal:
			return Result{}, err
		case <-deadline.C:
			late = fmt.Errorf("%w (%v)", ErrDeadline, cfg.Deadline)
			break wait
		case <-tick.C:
			done, err := report()
			if err != nil {
				return Result{}, err
			}
			if done {
				break wait
			}
		}
	}
	// Stop the workers before counting, so that no write lands after the count.
	s.stop()
	res.WorkersKilled = s.killedSoFar()
	lost, dup, once, err := counts(ctx, db, cfg.Jobs)
	if err != nil {
		return Result{}, fmt.Errorf("lab: sink: %w", err)
	}
	res.Lost, res.Duplicated, res.ExactlyOnce = lost, dup, once
	if cfg.Design == DesignHandler {
		stopRelay()
		if err := countHandler(ctx, cfg, b, db, &res); err != nil {
			return Result{}, err
		}
	}
	if _, res.Redeliveries, err = logged(ctx, db); err != nil {
		return Result{}, fmt.Errorf("lab: sink: %w", err)
	}
	tally, err := tallyLog(ctx, db)
	if err != nil {
		return Result{}, fmt.Errorf("lab: sink: %w", err)
	}
	res.KilledDeliveries, res.DiedWithWorker = tally.killed, tally.withWorker
	res.LateRenewals, res.SlowAcks = tally.lateBeats, tally.slowAcks
	// A delivery that died with its worker is one the model never made, and one the machine let
	// lapse (a late renewal, a slow ack) one the model would not have: their jobs' verdicts are not
	// claimed. The drain keeps the first at 0 (see drain); a worker that failed mid-run makes some.
	res.Tolerance += res.DiedWithWorker + res.LateRenewals + res.SlowAcks
	if cfg.Design == DesignHandler && !cfg.leaseTime {
		if err := replayHandler(ctx, cfg, db, &res); err != nil {
			return Result{}, err
		}
	}
	if res.Events, err = sampleEvents(ctx, db, sample, sampleJobs, start); err != nil {
		return Result{}, fmt.Errorf("lab: sink: %w", err)
	}
	for i := range res.Events {
		res.Events[i].Replaces = s.replaced(res.Events[i].Worker)
	}
	res.Seconds = time.Since(start).Seconds()
	progress(Progress{Design: cfg.Design, Jobs: cfg.Jobs, Done: cfg.Jobs, WorkersKilled: res.WorkersKilled,
		Redeliveries: res.Redeliveries, Elapsed: time.Since(start)})
	return res, late
}

// model is the notebook's prediction for the design on the same crashed jobs.
func model(d Design, crashed []bool) (lost, dup int64) {
	var l, u int
	switch d {
	case AckBeforeWork:
		l, _, u = experiments.AckBeforeWork(crashed)
	case AckAfterWork:
		l, _, u = experiments.AckAfterWork(crashed)
	case DedupOutsideTx:
		l, u = experiments.DualWrite(crashed, experiments.OrderEffectThenKey)
	case DedupInTx:
		l, u = experiments.DualWrite(crashed, experiments.OrderOneTransaction)
	}
	return int64(l), int64(u)
}

// supervisor keeps the worker processes running and knows every one it started, so that it can
// kill them all.
type supervisor struct {
	cfg   Config
	env   []string
	mu    sync.Mutex
	procs map[int]*exec.Cmd // by pid, until waited for
	ids   map[int]int       // each live worker's id, by pid
	// replaces is, for each replacement worker's id, the id of the killed worker it replaced.
	replaces map[int]int
	nextID   int
	killed   int64
	failures int
	stopping bool
	wg       sync.WaitGroup
	fatal    chan error
	stderr   tailBuffer
	// own is each live worker's own stderr, by pid: where a handler's failure is told.
	own map[int]*tailBuffer
	// early marks the workers whose replacement started when they said they were dying.
	early map[int]bool
	// reaped, when set, is told of each worker killed with SIGKILL before its death is counted.
	reaped func(ctx context.Context, id int) error
}

// start starts one worker in a process group of its own, so that killing the group takes
// anything the worker might have started along with it. replaces is the id of the worker whose
// end it makes up for, 0 for one of the run's first workers.
func (s *supervisor) start(ctx context.Context, replaces int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopping || ctx.Err() != nil {
		return nil
	}
	s.nextID++
	if replaces != 0 {
		s.replaces[s.nextID] = replaces
	}
	cmd := s.cfg.Command(ctx)
	if cmd == nil {
		return errors.New("lab: Command returned no command")
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	cmd.Env = append(env, append(s.env, envWorkerID+"="+strconv.Itoa(s.nextID))...)
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	orphanGuard(cmd.SysProcAttr)
	own := &tailBuffer{}
	if cmd.Stderr == nil {
		id := s.nextID
		cmd.Stderr = io.MultiWriter(&s.stderr, own, &dyingWatch{fn: func() { s.replaceEarly(ctx, id) }})
	}
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Second // a stray holder of its stderr must not stall the wait
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("lab: start worker %d: %w", s.nextID, err)
	}
	s.procs[cmd.Process.Pid] = cmd
	s.ids[cmd.Process.Pid] = s.nextID
	s.own[cmd.Process.Pid] = own
	s.wg.Add(1)
	go s.wait(ctx, cmd)
	return nil
}

// wait reaps one worker and, unless the run is ending, replaces it at once: the broker redelivers
// its unacked job after AckWait whether or not a replacement exists, but a run with fewer workers
// would be slower than the model assumes for no reason.
func (s *supervisor) wait(ctx context.Context, cmd *exec.Cmd) {
	defer s.wg.Done()
	err := cmd.Wait()
	s.mu.Lock()
	id, own := s.ids[cmd.Process.Pid], s.own[cmd.Process.Pid]
	delete(s.procs, cmd.Process.Pid)
	delete(s.ids, cmd.Process.Pid)
	delete(s.own, cmd.Process.Pid)
	if s.stopping || ctx.Err() != nil {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	// What the dead worker still held is closed before its death is counted, so that a run that
	// sees the death also sees nothing of it still working.
	if s.reaped != nil {
		if err := s.reaped(ctx, id); err != nil && ctx.Err() == nil {
			s.fail(err)
			return
		}
	}
	s.mu.Lock()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			s.killed++
			replaced := s.early[id]
			s.mu.Unlock()
			if !replaced {
				s.restart(ctx, id)
			}
			return
		}
	}
	// A reader's handler that failed in a worker fails the same way in the next: the run ends
	// with its message at once.
	if s.cfg.Design == DesignHandler {
		if he := handlerFailure(id, own.String()); he != nil {
			s.mu.Unlock()
			s.fail(he)
			return
		}
	}
	// Any other end, a clean exit included, is a worker that should still be working.
	s.failures++
	failed := s.failures > maxFailures
	s.mu.Unlock()
	if failed {
		s.fail(fmt.Errorf("lab: workers keep failing (last: %v); their stderr ends:\n%s", err, s.stderr.String()))
		return
	}
	time.Sleep(100 * time.Millisecond) // a worker that cannot start must not spin
	s.restart(ctx, id)
}

// replaceEarly starts the replacement of worker id as soon as it says it is dying: a worker that
// holds several jobs goes on to finish the others before its SIGKILL (see drain), and the run
// should not work with fewer workers meanwhile than the model assumes.
func (s *supervisor) replaceEarly(ctx context.Context, id int) {
	s.mu.Lock()
	if s.early[id] || s.stopping {
		s.mu.Unlock()
		return
	}
	s.early[id] = true
	s.mu.Unlock()
	s.restart(ctx, id)
}

// dyingWatch reads a worker's stderr for the line it writes when it starts dying (dyingLine), and
// calls fn once when it sees it.
type dyingWatch struct {
	once sync.Once
	fn   func()
	tail []byte // the end of the last write: the line may arrive in two
}

func (d *dyingWatch) Write(p []byte) (int, error) {
	buf := append(d.tail, p...)
	if bytes.Contains(buf, []byte(dyingLine)) {
		d.once.Do(d.fn)
	}
	d.tail = bytes.Clone(buf[max(0, len(buf)-len(dyingLine)):])
	return len(p), nil
}

func (s *supervisor) restart(ctx context.Context, replaces int) {
	if err := s.start(ctx, replaces); err != nil {
		s.fail(err)
	}
}

// replaced is the id of the worker that worker id was started to replace, or 0.
func (s *supervisor) replaced(id int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.replaces[id]
}

func (s *supervisor) fail(err error) {
	select {
	case s.fatal <- err:
	default:
	}
}

func (s *supervisor) killedSoFar() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.killed
}

// stop kills every worker's process group and waits until each is reaped; a second call is a
// no-op wait. After it, start refuses, so a worker reaped during the stop is not replaced.
func (s *supervisor) stop() {
	s.mu.Lock()
	s.stopping = true
	for pid := range s.procs {
		syscall.Kill(-pid, syscall.SIGKILL) // the group: the worker and anything it started
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// tailBuffer keeps the last few KiB the workers wrote to stderr, for the error that explains why
// they keep failing, without growing over a long run.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = bytes.Clone(t.buf[len(t.buf)-tailMax:])
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
