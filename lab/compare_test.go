package lab

import "testing"

// TestCompareIsTheOneVerdict pins the rules the page, the command line and the tests all read: a
// handler's killed deliveries must be the model's exactly, its other counts may stray by the
// stated tolerance and no further, a lease design never loses a job, and a crash design agrees
// digit for digit.
func TestCompareIsTheOneVerdict(t *testing.T) {
	ev := EventCounts{Lost: 2}
	handler := func() Result {
		e, m := ev, ev
		return Result{Design: DesignHandler, Jobs: 100, Lost: 0, Duplicated: 10, ExactlyOnce: 90, KilledDeliveries: 5, WorkersKilled: 4,
			ModelDuplicated: 10, Handler: &HandlerResult{ModelExactlyOnce: 90, ModelCrashed: 5, Events: &e, ModelEvents: &m}}
	}
	for name, c := range map[string]struct {
		r     func() Result
		want  bool
		count string
		agree Agreement
	}{
		"handler equal":                         {handler, true, CountKilled, Same},
		"one delivery killed more":              {func() Result { r := handler(); r.KilledDeliveries = 6; return r }, false, CountKilled, Differs},
		"killed stays exact within a tolerance": {func() Result { r := handler(); r.KilledDeliveries, r.Tolerance = 6, 3; return r }, false, CountKilled, Differs},
		"duplicated beyond the tolerance":       {func() Result { r := handler(); r.Duplicated, r.ExactlyOnce, r.Tolerance = 13, 87, 2; return r }, false, CountDuplicated, Differs},
		"duplicated within the tolerance":       {func() Result { r := handler(); r.Duplicated, r.ExactlyOnce, r.Tolerance = 12, 88, 2; return r }, true, CountDuplicated, Within},
		"events on one side only":               {func() Result { r := handler(); r.Handler.Events = nil; return r }, false, CountEventsLost, Differs},
		"a lease design's loss": {func() Result {
			return Result{Design: LeaseNoRenewal, Jobs: 10, Lost: 1, ExactlyOnce: 9, Tolerance: 3}
		}, false, CountLost, Differs},
		"a crash design one off": {func() Result {
			return Result{Design: AckAfterWork, Jobs: 10, Duplicated: 3, ExactlyOnce: 7, ModelDuplicated: 2, Tolerance: 3}
		}, false, CountDuplicated, Differs},
	} {
		r := c.r()
		var got Agreement
		for _, row := range r.Compare() {
			if row.Count == c.count {
				got = row.Agree
			}
		}
		if r.MatchesModel() != c.want || got != c.agree {
			t.Errorf("%s: matches %v (want %v), %s %q (want %q)", name, r.MatchesModel(), c.want, c.count, got, c.agree)
		}
	}
}
