package workbench

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"effectivelyonce/experiments"
)

// Outcomes a point's job lists are keyed by: the counts' names.
const (
	OutcomeLost             = "lost"
	OutcomeExactlyOnce      = "exactly_once"
	OutcomeDuplicated       = "duplicated"
	OutcomeRedelivered      = "redelivered"
	OutcomeEventsLost       = "events_lost"
	OutcomeEventsPhantom    = "events_phantom"
	OutcomeEventsDuplicated = "events_duplicated"
	// OutcomeFailed is the producer's world's: a request that crashed before its change
	// committed, so its caller was told it failed. Nothing of it is lost to anyone who was told
	// otherwise, so it is no failure of the handler (unless its event went out: a phantom).
	OutcomeFailed = "failed"
)

// Point is one crash point's outcome over the whole stream.
type Point struct {
	// CrashPoint is 0 for "dies before anything", k for "dies right after its k-th operation";
	// the relay's own crash point, for handlers that write outbox rows, is RelayPoint.
	CrashPoint int    `json:"crash_point"`
	Label      string `json:"label"`
	// Line and Col are where the operation the point follows is written (0 for point 0).
	Line int `json:"line"`
	Col  int `json:"col"`
	// Mixed says that jobs took different paths, so their k-th operation is not always the one
	// the label names.
	Mixed bool `json:"mixed,omitempty"`
	// Crashed counts the deliveries whose worker died at this point.
	Crashed int64 `json:"crashed"`
	// Lost counts the jobs never applied that nobody was told about: in the consumer's world a job
	// the queue handed out and no delivery applied. In the producer's world every request's caller
	// hears of its crash, so Lost stays 0 there and Failed counts the requests that crashed
	// before their change committed.
	Lost        int64  `json:"lost"`
	Failed      *int64 `json:"failed,omitempty"`
	ExactlyOnce int64  `json:"exactly_once"`
	Duplicated  int64  `json:"duplicated"`
	Deliveries  int64  `json:"deliveries"`
	// The event counts are set for a handler that publishes (bus.publish or tx.outbox): a job
	// whose effect committed and whose event was never published (lost), whose event was
	// published though its effect never committed (phantom), and whose event the second system
	// received more than once (duplicated); ExtraEvents counts those extra copies, what a consumer
	// without its own dedup would apply again.
	EventsLost       *int64 `json:"events_lost,omitempty"`
	EventsPhantom    *int64 `json:"events_phantom,omitempty"`
	EventsDuplicated *int64 `json:"events_duplicated,omitempty"`
	ExtraEvents      *int64 `json:"extra_events,omitempty"`
	Survives         bool   `json:"survives"`
	// Explanation tells why the point fails, from the durable state at one job's crash and what
	// its redelivery then did; Job is that job, Timeline its life in this point's run.
	Explanation string              `json:"explanation,omitempty"`
	Job         *int64              `json:"job,omitempty"`
	Timeline    []experiments.Event `json:"timeline,omitempty"`
	// IDs are the jobs behind each count but exactly_once (the jobs in none of lost, failed and
	// duplicated), in id order; redelivered is behind deliveries: the jobs handed out more than
	// once.
	IDs map[string][]int64 `json:"ids"`
}

// Jobs returns the ids behind one of the point's counts, exactly_once included, for a stream of
// jobs jobs.
func (p Point) Jobs(outcome string, jobs int64) []int64 {
	if outcome != OutcomeExactlyOnce {
		return slices.Clone(p.IDs[outcome])
	}
	var out []int64
	not := [][]int64{p.IDs[OutcomeLost], p.IDs[OutcomeFailed], p.IDs[OutcomeDuplicated]}
	for j := range jobs {
		if !slices.ContainsFunc(not, func(ids []int64) bool { _, ok := slices.BinarySearch(ids, j); return ok }) {
			out = append(out, j)
		}
	}
	return out
}

// Outcomes are the names the points' job lists answer to, in the order a row shows its counts:
// lost (failed, in the producer's world), exactly_once, duplicated, redelivered (behind the
// deliveries), and the events' three for a handler that publishes.
func (r Result) Outcomes() []string {
	first := OutcomeLost
	if r.Params.World == WorldProducer {
		first = OutcomeFailed
	}
	out := []string{first, OutcomeExactlyOnce, OutcomeDuplicated, OutcomeRedelivered}
	if r.Publishes {
		out = append(out, OutcomeEventsLost, OutcomeEventsPhantom, OutcomeEventsDuplicated)
	}
	return out
}

// RelayPoint is the crash point at which the outbox relay dies after publishing a row and before
// marking it sent.
const RelayPoint = relayPoint

// Result is a check: every crash point's outcome, the verdict, and the smallest failing case.
type Result struct {
	Params Params `json:"params"`
	// Ops is the most operations one delivery performed with no crash; the crash points are 0
	// to Ops.
	Ops int `json:"ops"`
	// LeaseTime says the handler calls work(), so its redeliveries come when a lease lapses.
	LeaseTime bool    `json:"lease_time"`
	Publishes bool    `json:"publishes"`
	Points    []Point `json:"points"`
	Verdict   Verdict `json:"verdict"`
	// Smallest is the shortest start of the stream and the one crash point that still fail, or
	// nil when nothing fails.
	Smallest *Smallest `json:"smallest,omitempty"`
	// Output is what print wrote (capped at 16 KB; DroppedLines says how many lines did not fit).
	Output       string `json:"output"`
	DroppedLines int64  `json:"dropped_lines,omitempty"`
	Steps        uint64 `json:"steps"`
}

// Verdict is the check's answer in one line.
type Verdict struct {
	Survives bool   `json:"survives"`
	Text     string `json:"text"`
	// Failing lists the crash points that break the handler.
	Failing []int `json:"failing"`
}

// Smallest is the smallest failing case: parameters a permalink can carry (the crash point, the
// one crash kept as only_crash, the stream's length), the job that breaks and how.
type Smallest struct {
	Params  Params `json:"params"`
	Query   string `json:"query"`
	Job     int64  `json:"job"`
	Outcome string `json:"outcome"`
	Text    string `json:"text"`
	// Exact says that every shorter stream was run with the same crash and survives; when it is
	// false, Note says which lengths the search had no budget left to try.
	Exact bool   `json:"exact"`
	Note  string `json:"note,omitempty"`
}

// Check runs the handler in src over the model world with p, in this process. Only trusted code
// may be checked this way (the templates, the tests); a reader's handler goes through a Sandbox,
// which runs this in a child process under limits. A mistake in the handler, or a limit it runs
// into, is a *CodeError.
func Check(ctx context.Context, src string, p Params) (Result, error) {
	c, err := start(ctx, src, p)
	if err != nil {
		return Result{}, err
	}
	return c.check()
}

// checker is one check under way.
type checker struct {
	ctx  context.Context
	p    Params
	rt   *runtime
	e    *engine
	out  *output
	ops  int
	stop func() bool
	// labels name the crash points by the operations of the run without crashes, taken before
	// the crash points' runs replace any delivery's record.
	labels map[int]pointLabel
}

type pointLabel struct {
	text      string
	line, col int
	mixed     bool
}

func start(ctx context.Context, src string, p Params) (*checker, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	out := &output{max: maxOutput}
	rt := newRuntime(out)
	rt.setLease(p.LeaseTimeout)
	stop := context.AfterFunc(ctx, func() { rt.thread.Cancel("the check was cancelled") })
	prog, err := compile(rt.thread, src, rt.predeclared())
	if err != nil {
		stop()
		return nil, limitError(ctx, err)
	}
	rt.prog = prog
	e, err := newEngine(ctx, p, prog, rt)
	if err == nil {
		err = e.keepOnly(p.OnlyCrash)
	}
	if err != nil {
		stop()
		return nil, err
	}
	return &checker{ctx: ctx, p: p, rt: rt, e: e, out: out, stop: stop}, nil
}

// validate refuses parameters no check can run on, for callers that build Params in code.
func (p Params) validate() error {
	if p.World != WorldConsumer && p.World != WorldProducer {
		return experiments.FieldErrors{{Field: "world", Message: fmt.Sprintf("%q is not a world; it must be consumer or producer", p.World)}}
	}
	for _, f := range Fields() {
		var msg string
		switch {
		case f.OnlyWords:
		case f.Name == "crash_point" && p.CrashPoint == AllPoints:
		case f.Name == "only_crash" && p.OnlyCrash == NoOnlyCrash:
		case f.Kind == experiments.KindInt:
			_, msg = experiments.ParseInt(f.Field, fmt.Sprint(*p.intField(f.Name)))
		default:
			_, msg = experiments.ParseFloat(f.Field, experiments.FormatFloat(*p.floatField(f.Name)))
		}
		if msg != "" {
			return experiments.FieldErrors{{Field: f.Name, Message: msg}}
		}
	}
	return nil
}

// pass runs one pass and turns errors into the reader's terms.
func (c *checker) pass(r run) error {
	if err := c.e.pass(r); err != nil {
		return limitError(c.ctx, c.explainError(err))
	}
	return nil
}

// explainError says what a job the queue would hand out forever means for the handler.
func (c *checker) explainError(err error) error {
	var tm errTooManyDeliveries
	if errors.As(err, &tm) {
		return &CodeError{Line: int(c.rt.prog.handleDef.Line), Col: int(c.rt.prog.handleDef.Col),
			Msg: fmt.Sprintf("%s: handle returned without calling queue.ack(), so the queue kept handing the job out again (the limit is %s deliveries of one job)",
				tm.Error(), thousands(int64(tm.limit)))}
	}
	return err
}

func (c *checker) check() (Result, error) {
	defer c.stop()
	e := c.e
	res := Result{Params: c.p, LeaseTime: e.lease}
	all := run{point: -1, n: e.jobs}
	if err := c.pass(all); err != nil {
		return Result{}, err
	}
	c.ops = 0
	for _, r := range e.first {
		if r != nil {
			c.ops = max(c.ops, len(r.ops))
		}
	}
	res.Ops = c.ops
	c.labels = map[int]pointLabel{}
	for k := 0; k <= c.ops; k++ {
		text, line, col, mixed := c.label(k)
		c.labels[k] = pointLabel{text, line, col, mixed}
	}
	res.Publishes = e.published
	var points []int
	switch {
	case e.producer && c.p.CrashPoint != AllPoints:
		return Result{}, experiments.FieldErrors{{Field: "crash_point", Message: fmt.Sprintf(
			"%d is not a crash point of the producer's world, whose requests crash where the outbox experiment draws it (at either write, or in the relay); choose all", c.p.CrashPoint)}}
	case e.producer:
		points = []int{-1}
	case c.p.CrashPoint != AllPoints:
		if int(c.p.CrashPoint) > c.ops && c.p.CrashPoint != relayPoint {
			return Result{}, experiments.FieldErrors{{Field: "crash_point", Message: fmt.Sprintf(
				"%d is past the handler's last operation; this handler's crash points run from 0 to %d", c.p.CrashPoint, c.ops)}}
		}
		points = []int{int(c.p.CrashPoint)}
	default:
		if c.ops+1 > MaxPoints {
			return Result{}, &CodeError{Line: int(c.rt.prog.handleDef.Line), Col: int(c.rt.prog.handleDef.Col),
				Msg: fmt.Sprintf("one delivery performs %d operations; a check crashes each of them and allows at most %d", c.ops, MaxPoints-1)}
		}
		for k := 0; k <= c.ops; k++ {
			points = append(points, k)
		}
		if e.relayed {
			points = append(points, relayPoint)
		}
	}
	for _, k := range points {
		if err := c.pass(run{point: k, n: e.jobs}); err != nil {
			return Result{}, err
		}
		pt := c.tally(k, e.jobs)
		if !pt.Survives {
			if err := c.explain(&pt); err != nil {
				return Result{}, err
			}
		}
		res.Points = append(res.Points, pt)
	}
	res.Verdict = verdict(res.Points, e.producer)
	if !res.Verdict.Survives {
		s, err := c.smallest(res.Points)
		if err != nil {
			return Result{}, err
		}
		res.Smallest = s
	}
	res.Output, res.DroppedLines = c.out.text(), c.out.dropped
	res.Steps = c.rt.thread.ExecutionSteps()
	return res, nil
}

// tally counts the world after a pass over the first n jobs at point k.
func (c *checker) tally(k, n int) Point {
	e := c.e
	pt := Point{CrashPoint: k, Crashed: e.crashes, Deliveries: e.total, IDs: map[string][]int64{}}
	if l, ok := c.labels[k]; ok {
		pt.Label, pt.Line, pt.Col, pt.Mixed = l.text, l.line, l.col, l.mixed
	} else {
		pt.Label, pt.Line, pt.Col, pt.Mixed = c.label(k)
	}
	ids := func(name string, j int) { pt.IDs[name] = append(pt.IDs[name], int64(j)) }
	for _, name := range []string{OutcomeLost, OutcomeDuplicated, OutcomeRedelivered} {
		pt.IDs[name] = []int64{}
	}
	var failed int64
	if e.producer {
		pt.IDs[OutcomeFailed] = []int64{}
		pt.Failed = &failed
	}
	var evLost, evPhantom, evDup, extra int64
	for j := range n {
		a, pub := e.w.applied[j], e.w.published[j]
		switch {
		case a == 0 && e.producer:
			failed++
			ids(OutcomeFailed, j)
		case a == 0:
			pt.Lost++
			ids(OutcomeLost, j)
		case a == 1:
			pt.ExactlyOnce++
		default:
			pt.Duplicated++
			ids(OutcomeDuplicated, j)
		}
		if e.perJob[j] > 1 {
			ids(OutcomeRedelivered, j)
		}
		if !e.published {
			continue
		}
		switch {
		case a > 0 && pub == 0:
			evLost++
			ids(OutcomeEventsLost, j)
		case a == 0 && pub > 0:
			evPhantom++
			ids(OutcomeEventsPhantom, j)
		}
		if pub > 1 {
			evDup++
			extra += int64(pub) - 1
			ids(OutcomeEventsDuplicated, j)
		}
	}
	if e.published {
		for _, name := range []string{OutcomeEventsLost, OutcomeEventsPhantom, OutcomeEventsDuplicated} {
			if pt.IDs[name] == nil {
				pt.IDs[name] = []int64{}
			}
		}
		pt.EventsLost, pt.EventsPhantom, pt.EventsDuplicated, pt.ExtraEvents = &evLost, &evPhantom, &evDup, &extra
	}
	pt.Survives = c.survives(pt)
	return pt
}

// survives is a point's verdict: no job lost or applied twice, and no event lost or phantom. In
// the producer's world a request that crashed before its change committed failed in front of its
// caller, so it is counted as failed, not lost, and is no failure of the handler; half a change
// (an event lost or a phantom) is. Duplicated events never fail a point alone: the relay's
// contract is at least once, and the consumer's dedup is what makes that harmless.
func (c *checker) survives(pt Point) bool {
	ok := pt.Duplicated == 0 && pt.Lost == 0
	if pt.EventsLost != nil {
		ok = ok && *pt.EventsLost == 0 && *pt.EventsPhantom == 0
	}
	return ok
}

// label names a crash point by the operation it follows, as most crashing jobs' first
// deliveries performed it with no crash.
func (c *checker) label(k int) (string, int, int, bool) {
	switch {
	case c.e.producer:
		return "each write may crash, and the relay may die after publishing (the concept page's producer)", 0, 0, false
	case k == relayPoint:
		return "the relay dies after publishing an outbox row, before marking it sent", 0, 0, false
	case k == 0:
		return "dies before anything", 0, 0, false
	}
	count := map[int32]int{}
	var order []int32
	total := 0
	crashing := c.anyCrashed()
	for j, r := range c.e.first {
		if r == nil || len(r.ops) < k || (crashing && !c.e.crashed[j]) {
			continue
		}
		s := r.ops[k-1].site
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
		total++
	}
	if len(order) == 0 {
		return fmt.Sprintf("dies after its operation %d", k), 0, 0, false
	}
	best := order[0]
	for _, s := range order {
		if count[s] > count[best] {
			best = s
		}
	}
	st := c.rt.prog.siteList[best]
	return fmt.Sprintf("dies after `%s`", st.Text), st.Line, st.Col, count[best] != total
}

// anyCrashed reports whether the stream crashes any job: a label is then taken from the jobs that
// do crash at the point.
func (c *checker) anyCrashed() bool { return slices.Contains(c.e.crashed, true) }

// verdict sums the points up.
func verdict(points []Point, producer bool) Verdict {
	v := Verdict{Survives: true, Failing: []int{}}
	for _, p := range points {
		if !p.Survives {
			v.Survives = false
			v.Failing = append(v.Failing, p.CrashPoint)
		}
	}
	switch {
	case v.Survives && producer:
		v.Text = "survives: no event is lost or phantom and no effect is applied twice"
	case v.Survives && len(points) == 1:
		v.Text = "survives this crash point"
	case v.Survives:
		v.Text = "survives every crash point"
	case len(v.Failing) == 1:
		v.Text = fmt.Sprintf("breaks at 1 of %d crash points", len(points))
	default:
		v.Text = fmt.Sprintf("breaks at %d of %d crash points", len(v.Failing), len(points))
	}
	return v
}
