package experiments

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// leverWay says which way a parameter must move to make a run cheaper.
type leverWay int

const (
	lowerValue leverWay = iota // a smaller number costs less (jobs, a crash rate, a mean duration)
	raiseFloor                 // larger numbers cost less: every item must reach a floor (timeouts)
	fewerItems                 // a shorter list costs less (windows, delays)
)

// lever is one parameter a reader can move to bring an over-budget run within MaxCost. An
// experiment lists its levers with its cost function; when a run is refused, the message sits on
// the lever that drives the cost and states the value of it that fits.
type lever struct {
	field string
	way   leverWay
}

func lower(field string) lever { return lever{field, lowerValue} }
func raise(field string) lever { return lever{field, raiseFloor} }
func fewer(field string) lever { return lever{field, fewerItems} }

// with returns a copy of the parameters p with one member set to v; p itself is not touched, and
// neither are its lists, which v replaces rather than edits.
func with(p any, name string, v any) any {
	ptr := reflect.New(reflect.TypeOf(p))
	ptr.Elem().Set(reflect.ValueOf(p))
	m, _ := member(ptr.Elem(), name)
	m.Set(reflect.ValueOf(v))
	return ptr.Elem().Interface()
}

// fits reports whether a run with parameters p is within the budget.
func (e *Experiment) fits(p any) bool { return e.cost(p) <= MaxCost }

// fix is what one lever can do for an over-budget run: the value that fits (set, with the text a
// reader reads), or ok false when no value of this parameter alone brings the run within reach.
type fix struct {
	lever lever
	f     Field
	value any
	text  string
	ok    bool
}

// solve finds the value of l's parameter nearest the reader's that fits, the other values held.
// Each search relies on the cost being monotone in the parameter, which every cost function here
// is: more jobs, a higher crash rate, longer means, longer lists and shorter timeouts all cost more.
func (e *Experiment) solve(p any, l lever) fix {
	f, _ := e.Field(l.field)
	m, _ := member(reflect.ValueOf(p), l.field)
	out := fix{lever: l, f: f}
	switch {
	case l.way == lowerValue && f.Kind == KindInt:
		// The largest v in [MinInt, current] that fits, by bisection on the integers.
		lo, hi := f.MinInt, m.Int()
		if !e.fits(with(p, l.field, lo)) {
			return out
		}
		for lo < hi {
			mid := lo + (hi-lo)/2 + 1 // rounds up, so lo always moves
			if e.fits(with(p, l.field, mid)) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		out.value, out.text, out.ok = lo, Thousands(lo), true
	case l.way == lowerValue && f.Kind == KindFloat:
		v, ok := bisect(f.Min, m.Float(), func(x float64) bool { return e.fits(with(p, l.field, x)) }, true)
		if !ok {
			return out
		}
		// Three significant digits, rounded down: a value a reader can type that still fits.
		if r := roundSig(v, 3, math.Floor); r >= f.Min && e.fits(with(p, l.field, r)) {
			v = r
		}
		out.value, out.text, out.ok = v, rangeFloat(v), true
	case l.way == raiseFloor && f.Kind == KindFloatList:
		xs := m.Interface().([]float64)
		merge := false
		floor := func(x float64) []float64 {
			ys := slices.Clone(xs)
			for i := range ys {
				ys[i] = max(ys[i], x)
			}
			if merge {
				return slices.Compact(ys) // xs is sorted, so the raised items are in a run
			}
			return ys
		}
		fits := func(x float64) bool { return e.fits(with(p, l.field, floor(x))) }
		// First keep the raised items apart, so that raising them to any distinct values at or
		// above the floor fits too; failing that, count them as the one item Parse makes of
		// several equal timeouts.
		v, ok := bisect(slices.Min(xs), f.Max, fits, false)
		if !ok {
			merge = true
			if v, ok = bisect(slices.Min(xs), f.Max, fits, false); !ok {
				return out
			}
		}
		if r := roundSig(v, 3, math.Ceil); r <= f.Max && e.fits(with(p, l.field, floor(r))) {
			v = r
		}
		out.value, out.text, out.ok = floor(v), rangeFloat(v), true
	case l.way == fewerItems && f.IsList():
		// The most items such that both the first k and the last k fit: with a cost that adds up
		// per item and grows or shrinks with an item's value, that is every choice of k items.
		n := m.Len()
		k := n - 1
		for ; k >= 1; k-- {
			if e.fits(with(p, l.field, m.Slice(0, k).Interface())) && e.fits(with(p, l.field, m.Slice(n-k, n).Interface())) {
				break
			}
		}
		if k < 1 {
			return out
		}
		out.value, out.text, out.ok = m.Slice(0, k).Interface(), strconv.Itoa(k), true
	}
	return out
}

// bisect finds, within [a, b], the boundary between values that fit and values that do not:
// the largest that fits when down is true (fits(a) must hold), else the smallest (fits(b) must).
func bisect(a, b float64, fits func(float64) bool, down bool) (float64, bool) {
	if (down && !fits(a)) || (!down && !fits(b)) {
		return 0, false
	}
	good, bad := a, b
	if !down {
		good, bad = b, a
	}
	for range 200 {
		mid := good + (bad-good)/2
		if mid == good || mid == bad {
			break
		}
		if fits(mid) {
			good = mid
		} else {
			bad = mid
		}
	}
	return good, true
}

// roundSig rounds x to n significant digits in the direction round gives (math.Floor or math.Ceil).
func roundSig(x float64, n int, round func(float64) float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	scale := math.Pow(10, float64(n-1)-math.Floor(math.Log10(math.Abs(x))))
	r := round(x*scale) / scale
	// Parse and format the result so it is the float a reader typing its text would get.
	v, err := strconv.ParseFloat(strconv.FormatFloat(r, 'g', n, 64), 64)
	if err != nil {
		return x
	}
	return v
}

// drive measures how much a lever's parameter is responsible for the cost: the run's cost over
// what it would cost with that parameter back at the document's value. The lever the reader
// pushed furthest is the one whose reset saves the most.
func (e *Experiment) drive(p any, l lever) float64 {
	d, _ := member(reflect.ValueOf(e.defaults()), l.field)
	back := e.cost(with(p, l.field, d.Interface()))
	return float64(e.cost(p)) / float64(max(back, 1))
}

// overBudget explains a refused run in the reader's terms. Of the levers that can bring the run
// within reach on their own, it picks the one that drives the cost most, and states the value of
// it that fits; the direction word says which way to move it.
func (e *Experiment) overBudget(p any) FieldError {
	levers := slices.Clone(e.levers)
	drives := make(map[lever]float64, len(levers))
	for _, l := range levers {
		drives[l] = e.drive(p, l)
	}
	slices.SortStableFunc(levers, func(a, b lever) int {
		switch {
		case drives[a] > drives[b]:
			return -1
		case drives[a] < drives[b]:
			return 1
		}
		return 0
	})
	// The message follows the field's label ("Jobs: 3,000,000 makes ..."), so it opens with what
	// the reader gave, not with a sentence of its own.
	const head = "makes this run too large to compute here"
	for _, l := range levers {
		fx := e.solve(p, l)
		if !fx.ok {
			continue
		}
		name, unit := strings.ToLower(fx.f.Label), ""
		if fx.f.Unit != "" {
			unit = " " + fx.f.Unit
		}
		switch l.way {
		case lowerValue:
			return FieldError{l.field, fmt.Sprintf("%s %s; with the other values as they are, %s can be at most %s%s; lower it to that or less",
				givenText(p, fx.f), head, name, fx.text, unit)}
		case raiseFloor:
			return FieldError{l.field, fmt.Sprintf("this list %s; with the other values as they are, each of the %s must be at least %s%s; raise those below it",
				head, name, fx.text, unit)}
		case fewerItems:
			return FieldError{l.field, fmt.Sprintf("this list %s; with the other values as they are, at most %s %s fit in one run; give that many or fewer",
				head, fx.text, name)}
		}
	}
	// No single parameter is enough: name the one that drives the cost and say so.
	field := e.Fields[0].Name
	if len(levers) > 0 {
		field = levers[0].field
	}
	f, _ := e.Field(field)
	return FieldError{field, fmt.Sprintf("this value, with the others, %s, and no value of %s alone would make it fit; bring the other values back toward the document's as well",
		strings.TrimPrefix(head, "makes "), strings.ToLower(f.Label))}
}

// givenText is a scalar parameter's value in p as the site writes numbers (3,000,000, 0.5).
func givenText(p any, f Field) string {
	m, _ := member(reflect.ValueOf(p), f.Name)
	if f.Kind == KindInt {
		return Thousands(m.Int())
	}
	return rangeFloat(m.Float())
}

// MaxFitting returns the largest value of the whole-number field that keeps a run with p's other
// values within the budget, so that a form can state the real bound beside the field's range. It
// reports false when the field's own maximum fits, or when the field is not a whole number of e's.
func (e *Experiment) MaxFitting(p any, field string) (int64, bool) {
	f, ok := e.Field(field)
	if !ok || f.Kind != KindInt || reflect.TypeOf(p) != reflect.TypeOf(e.defaults()) {
		return 0, false
	}
	top := with(p, field, f.MaxInt)
	if e.fits(top) {
		return f.MaxInt, false
	}
	fx := e.solve(top, lower(field))
	if !fx.ok {
		return f.MinInt - 1, true // not even the smallest value fits: the others must move
	}
	return fx.value.(int64), true
}

// fitRanges narrows, once when the catalog is built, any whole-number field whose advertised
// maximum would not run with every other value at the document's: the form then offers only what
// it can run (the claims verifier, for one, cannot take ten million jobs at its defaults). The new
// maximum is the largest that fits, rounded down to two significant digits so it reads plainly.
// Any other field that cannot run at its bounds is a mistake in the spec, and panics.
func (e *Experiment) fitRanges() {
	d := e.defaults()
	for i := range e.Fields {
		f := &e.Fields[i]
		for name, raw := range boundTexts(*f) {
			m, _ := member(reflect.ValueOf(d), f.Name)
			v := reflect.New(m.Type()).Elem()
			if msg := parseInto(*f, raw, v); msg != "" {
				panic(fmt.Sprintf("experiment %s: field %s: its own %s %q does not parse: %s", e.Name, f.Name, name, raw, msg))
			}
			if e.fits(with(d, f.Name, v.Interface())) {
				continue
			}
			if f.Kind != KindInt || name != "max" {
				panic(fmt.Sprintf("experiment %s: field %s at its %s does not run at the defaults", e.Name, f.Name, name))
			}
			fx := e.solve(with(d, f.Name, f.MaxInt), lower(f.Name))
			if !fx.ok || fx.value.(int64) < m.Int() {
				panic(fmt.Sprintf("experiment %s: field %s cannot even run its default", e.Name, f.Name))
			}
			f.MaxInt = max(m.Int(), int64(roundSig(float64(fx.value.(int64)), 2, math.Floor)))
		}
	}
}

// boundTexts are the texts of a field's bounds, as a reader would type them: each end alone and,
// for a list, a full list spread over the range (the largest ids or the smallest timeouts cost most,
// so both ends are in it).
func boundTexts(f Field) map[string]string {
	out := map[string]string{}
	switch f.Kind {
	case KindInt, KindIntList:
		out["min"], out["max"] = strconv.FormatInt(f.MinInt, 10), strconv.FormatInt(f.MaxInt, 10)
	case KindFloat, KindFloatList:
		out["min"], out["max"] = FormatFloat(f.Min), FormatFloat(f.Max)
	}
	if f.IsList() {
		items := make([]string, MaxListItems)
		for i := range items {
			if f.Kind == KindIntList {
				step := (f.MaxInt - f.MinInt) / int64(MaxListItems-1)
				items[i] = strconv.FormatInt(f.MinInt+int64(i)*step, 10)
			} else {
				items[i] = FormatFloat(f.Min + (f.Max-f.Min)*float64(i)/float64(MaxListItems-1))
			}
		}
		items[len(items)-1] = out["max"]
		out["full list"] = strings.Join(items, ",")
	}
	return out
}
