package lab

// One definition of "the real run equals the model": Compare lays a result's counts out beside
// the model's, each with its verdict, and MatchesModel is true when none differs. The page's
// table marks, the command line's exit status and the tests all read these two, so that they
// can never disagree about a run.

// Agreement is how one real count stands to the model's.
type Agreement string

// The verdicts of one count.
const (
	// Same: the real count is the model's.
	Same Agreement = "same"
	// Within: not the model's, but no further from it than the run's stated tolerance: the jobs
	// that end near their lease (real time decides those), the redeliveries near a key window's
	// edge or the retries near a dedup window's (the order or the timer of a real system decides
	// those), and a lease run's deliveries that died with their worker.
	Within Agreement = "within"
	// Extra: more duplicates than the model (and as many fewer done once), by the acks that
	// fire-and-forget lost with their worker, which the model cannot have.
	Extra Agreement = "extra"
	// Differs: the real count disagrees with the model's beyond anything the run states.
	Differs Agreement = "differs"
)

// The counts a comparison names.
const (
	CountLost             = "lost"
	CountDuplicated       = "duplicated"
	CountExactlyOnce      = "exactly_once"
	CountKilled           = "killed"
	CountEventsLost       = "events_lost"
	CountEventsPhantom    = "events_phantom"
	CountEventsDuplicated = "events_duplicated"
	CountStoredTwice      = "stored_twice"
	CountStoredOnce       = "stored_once"
)

// Comparison is one count of a run, real beside the model's, and how they stand.
type Comparison struct {
	Count string    `json:"count"`
	Real  int64     `json:"real"`
	Model int64     `json:"model"`
	Agree Agreement `json:"agree"`
}

// Compare is the result's counts beside the model's, in the order a table shows them:
//
//   - a crash design: lost, duplicated and exactly once, digit for digit (with fire-and-forget
//     acks, duplicated may exceed the model's by the acks lost with a killed worker, and exactly
//     once fall short by as many: an unsent ack can bring a job back, never lose one);
//   - a lease design: lost exactly, duplicated and exactly once within Tolerance;
//   - the publisher's retry: stored twice and stored once within the retries near the window's
//     edge;
//   - a reader's handler: lost, duplicated, exactly once and its event counts within Tolerance,
//     and the deliveries killed at the crash point exactly, all against the workbench's check.
func (r Result) Compare() []Comparison {
	if pr := r.PublishRetry; pr != nil {
		rows := []Comparison{
			{Count: CountStoredTwice, Real: pr.StoredTwice, Model: pr.ModelStoredTwice},
			{Count: CountStoredOnce, Real: r.ExactlyOnce, Model: r.Jobs - pr.ModelStoredTwice},
		}
		for i := range rows {
			rows[i].Agree = judge(rows[i].Real, rows[i].Model, pr.NearEdge, false)
			// A retry away from the edge that went the other way, or the broker's two records
			// of the run disagreeing, is a difference even where the totals happen to agree.
			if rows[i].Agree == Within && !pr.consistent() {
				rows[i].Agree = Differs
			}
		}
		return rows
	}
	modelOnce := r.Jobs - r.ModelLost - r.ModelDuplicated
	if r.Handler != nil {
		modelOnce = r.Handler.ModelExactlyOnce
	}
	rows := []Comparison{
		{Count: CountLost, Real: r.Lost, Model: r.ModelLost},
		{Count: CountDuplicated, Real: r.Duplicated, Model: r.ModelDuplicated},
		{Count: CountExactlyOnce, Real: r.ExactlyOnce, Model: modelOnce},
	}
	tol := r.Tolerance
	if !r.Design.IsLease() && r.Handler == nil {
		tol = 0 // a crash design agrees digit for digit, whatever a result says
	}
	lostTol := int64(0) // a lease design never loses a job; its tolerance is of duplicates
	if r.Handler != nil {
		lostTol = tol
	}
	// Plain acks add duplicates only where a worker is killed holding an acked job: not in the
	// lease designs, which kill no worker.
	plain := r.FireAndForgetAcks && !r.Design.IsLease() && !(r.Handler != nil && r.Handler.LeaseTime)
	extra := r.Duplicated - r.ModelDuplicated
	rows[0].Agree = judge(r.Lost, r.ModelLost, lostTol, false)
	rows[1].Agree = judge(r.Duplicated, r.ModelDuplicated, tol, plain && extra > 0)
	rows[2].Agree = judge(r.ExactlyOnce, modelOnce, tol, plain && extra > 0 && r.ExactlyOnce-modelOnce == -extra)
	h := r.Handler
	if h == nil {
		return rows
	}
	rows = append(rows, Comparison{Count: CountKilled, Real: r.KilledDeliveries, Model: h.ModelCrashed,
		Agree: judge(r.KilledDeliveries, h.ModelCrashed, 0, false)})
	if h.Events != nil || h.ModelEvents != nil {
		var e, m EventCounts
		if h.Events != nil {
			e = *h.Events
		}
		if h.ModelEvents != nil {
			m = *h.ModelEvents
		}
		for _, c := range []Comparison{
			{Count: CountEventsLost, Real: e.Lost, Model: m.Lost},
			{Count: CountEventsPhantom, Real: e.Phantom, Model: m.Phantom},
			{Count: CountEventsDuplicated, Real: e.Duplicated, Model: m.Duplicated},
		} {
			c.Agree = judge(c.Real, c.Model, tol, false)
			if (h.Events == nil) != (h.ModelEvents == nil) {
				c.Agree = Differs // one side published and the other did not
			}
			rows = append(rows, c)
		}
	}
	return rows
}

// judge is one count's verdict: the same, more by acks lost (when extra allows it), within
// tolerance, or different.
func judge(real, model, tolerance int64, extra bool) Agreement {
	d := real - model
	switch {
	case d == 0:
		return Same
	case extra:
		return Extra
	case max(d, -d) <= tolerance:
		return Within
	}
	return Differs
}

// MatchesModel says whether the real run is the model's: no count of Compare differs, and, for
// the publisher's retry, no job was lost and the broker's records agree with each other.
func (r Result) MatchesModel() bool {
	if pr := r.PublishRetry; pr != nil && (r.Lost != 0 || !pr.consistent()) {
		return false
	}
	for _, c := range r.Compare() {
		if c.Agree == Differs {
			return false
		}
	}
	return true
}

// EdgeTolerance is the part of the Tolerance owed to jobs that end near their lease by the model's
// durations: the total less the parts the run counts and states apart (deliveries that died with
// their worker, late renewals, slow acks, and a handler's redeliveries near its key window's
// edge), so that the page and the command line each say every part once.
func (r Result) EdgeTolerance() int64 {
	t := r.Tolerance - r.DiedWithWorker - r.LateRenewals - r.SlowAcks
	if r.Handler != nil {
		t -= r.Handler.NearEdge
	}
	return t
}

// Tolerated is how far the result's counts may stray from the model's and still match, and why,
// in the words a table's note uses; 0 and "" for a run that must agree digit for digit.
func (r Result) Tolerated() (int64, string) {
	switch {
	case r.PublishRetry != nil:
		return r.PublishRetry.NearEdge, "retries near the window's edge"
	case r.Design.IsLease(), r.Handler != nil && r.Handler.LeaseTime:
		return r.Tolerance, "jobs near their lease's edge"
	case r.Handler != nil && r.Tolerance > 0:
		return r.Tolerance, "jobs redelivered near the key window's edge"
	}
	return 0, ""
}
