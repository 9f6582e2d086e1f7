package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is the type of value a parameter holds.
type Kind int

// The kinds of parameter a form, the API and the CLI understand.
const (
	KindInt Kind = iota
	KindFloat
	KindIntList
	KindFloatList
)

// String names the kind the way the API documents it.
func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindIntList:
		return "int list"
	case KindFloatList:
		return "float list"
	}
	return "unknown"
}

// MaxListItems bounds every list parameter: a chart with more points than this is unreadable, and
// the bound keeps the cost estimate honest.
const MaxListItems = 50

// maxRawLen bounds the text of one parameter. Longer input is refused before parsing so that a
// pasted essay costs nothing and is never echoed back in full.
const maxRawLen = 1000

// MaxCost is the work budget of one run, in the units each experiment's cost function counts. A
// unit is about 4 ns of the 2-core machine the site is built on (each cost function says how it
// was measured), so an accepted run ends within about two seconds there. Readers never see these
// units: a refused run is explained by the value of one parameter that would fit (see overBudget),
// and every field's advertised range runs at the document's values (see fitRanges).
const MaxCost int64 = 400_000_000

// Field describes one parameter: the form, the API listing and the CLI flags are all generated from
// it, so a range or a label is changed in exactly one place.
type Field struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	Unit  string `json:"unit,omitempty"`
	Help  string `json:"help"`
	Kind  Kind   `json:"-"`
	// Min and Max bound a float (or every item of a float list), inclusive.
	Min float64 `json:"-"`
	Max float64 `json:"-"`
	// MinInt and MaxInt bound an int (or every item of an int list), inclusive. When the catalog is
	// built, an int's MaxInt is lowered if needed to what the experiment runs at its defaults.
	MinInt int64 `json:"-"`
	MaxInt int64 `json:"-"`
	// Shared marks one of the job stream's parameters (jobs, crash_rate, seed, delay_seed): a
	// page's later experiment inherits a shared field from the page's first form, so that every
	// experiment on the page replays the same stream unless the reader says otherwise. It is set
	// only on the one definition of each in catalog.go, so two fields that compare equal agree on it.
	Shared bool `json:"shared,omitempty"`
}

// Range says in words which values the field accepts; every error message for the field ends with it.
func (f Field) Range() string {
	switch f.Kind {
	case KindInt:
		return fmt.Sprintf("a whole number from %s to %s", Thousands(f.MinInt), Thousands(f.MaxInt))
	case KindIntList:
		return fmt.Sprintf("up to %d comma-separated whole numbers, each from %s to %s", MaxListItems, Thousands(f.MinInt), Thousands(f.MaxInt))
	case KindFloat:
		return fmt.Sprintf("a number from %s to %s", rangeFloat(f.Min), rangeFloat(f.Max))
	case KindFloatList:
		return fmt.Sprintf("up to %d comma-separated numbers, each from %s to %s", MaxListItems, rangeFloat(f.Min), rangeFloat(f.Max))
	}
	return ""
}

// IsList reports whether the field takes a comma-separated list.
func (f Field) IsList() bool { return f.Kind == KindIntList || f.Kind == KindFloatList }

// FieldError is one refused parameter, with a message a reader can act on.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// FieldErrors is every refused parameter of one request, in the order of the experiment's fields.
type FieldErrors []FieldError

// Error lists every refused field in one line, for logs; a page shows each message by its field.
func (fe FieldErrors) Error() string {
	parts := make([]string, len(fe))
	for i, e := range fe {
		parts[i] = e.Field + ": " + e.Message
	}
	return "invalid parameters: " + strings.Join(parts, "; ")
}

// For returns the message for one field, or "" when the field was accepted.
func (fe FieldErrors) For(name string) string {
	for _, e := range fe {
		if e.Field == name {
			return e.Message
		}
	}
	return ""
}

// mustBind checks once, when the catalog is built, that every field names a struct member of the
// right type; a mismatch is a programming error, so it panics at start-up rather than at a request.
func (e *Experiment) mustBind() {
	v := reflect.ValueOf(e.defaults())
	for _, f := range e.Fields {
		m, ok := member(v, f.Name)
		if !ok {
			panic(fmt.Sprintf("experiment %s: field %s has no struct member", e.Name, f.Name))
		}
		want := map[Kind]reflect.Type{
			KindInt: reflect.TypeFor[int64](), KindFloat: reflect.TypeFor[float64](),
			KindIntList: reflect.TypeFor[[]int64](), KindFloatList: reflect.TypeFor[[]float64](),
		}[f.Kind]
		if m.Type() != want {
			panic(fmt.Sprintf("experiment %s: field %s is %s, spec says %s", e.Name, f.Name, m.Type(), f.Kind))
		}
	}
	for _, l := range e.levers {
		f, ok := e.Field(l.field)
		fits := ok && map[leverWay]bool{
			lowerValue: f.Kind == KindInt || f.Kind == KindFloat,
			raiseFloor: f.Kind == KindFloatList,
			fewerItems: f.IsList(),
		}[l.way]
		if !fits {
			panic(fmt.Sprintf("experiment %s: lever on %s does not match a field of the right kind", e.Name, l.field))
		}
	}
}

// member finds the struct member whose json tag is name.
func member(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Defaults returns the document's parameters for this experiment.
func (e *Experiment) Defaults() any { return e.defaults() }

// Field returns the spec of the named parameter.
func (e *Experiment) Field(name string) (Field, bool) {
	for _, f := range e.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Run runs the experiment on params that came from Parse or Defaults.
func (e *Experiment) Run(ctx context.Context, params any) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.run(ctx, params)
}

// Cost returns the work units a run would take; Parse refuses runs above MaxCost.
func (e *Experiment) Cost(params any) int64 { return e.cost(params) }

// Parse reads parameters from a query: absent fields take the document's defaults, present ones
// must be well formed and in range. Names in allowed are other query keys the caller understands
// (format, for example); any other unknown key is refused so that a typo is not silently ignored.
// The error, when not nil, is a FieldErrors.
func (e *Experiment) Parse(raw map[string][]string, allowed ...string) (any, error) {
	ptr := reflect.New(reflect.TypeOf(e.defaults()))
	ptr.Elem().Set(reflect.ValueOf(e.defaults()))
	var errs FieldErrors
	for _, f := range e.Fields {
		vals, ok := raw[f.Name]
		if !ok {
			continue
		}
		if len(vals) != 1 {
			errs = append(errs, FieldError{f.Name, fmt.Sprintf("given %d times; give it once, as %s", len(vals), f.Range())})
			continue
		}
		m, _ := member(ptr.Elem(), f.Name)
		if msg := parseInto(f, vals[0], m); msg != "" {
			errs = append(errs, FieldError{f.Name, msg})
		}
	}
	var unknown []string
	for k := range raw {
		if _, ok := e.Field(k); !ok && !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	for _, k := range unknown {
		errs = append(errs, FieldError{Clip(k, 40), fmt.Sprintf("%s has no parameter of this name; it takes %s", e.Name, e.fieldNames())})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	p := ptr.Elem().Interface()
	if !e.fits(p) {
		return nil, FieldErrors{e.overBudget(p)}
	}
	return p, nil
}

func (e *Experiment) fieldNames() string {
	names := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// ParseScalar reads one value of a KindInt or KindFloat field exactly as Parse reads a query's
// (separators, bounds, the same messages), for a form that is not an experiment's, such as the
// live lab's: an int64 or a float64, or nil and the message to show beside the field.
func (f Field) ParseScalar(raw string) (any, string) {
	var m reflect.Value
	switch f.Kind {
	case KindInt:
		m = reflect.New(reflect.TypeFor[int64]()).Elem()
	case KindFloat:
		m = reflect.New(reflect.TypeFor[float64]()).Elem()
	default:
		return nil, "takes a list; it must be " + f.Range()
	}
	if msg := parseInto(f, raw, m); msg != "" {
		return nil, msg
	}
	return m.Interface(), ""
}

// parseInto parses one raw value into m and returns an error message, or "".
func parseInto(f Field, raw string, m reflect.Value) string {
	bad := "must be " + f.Range()
	if len(raw) > maxRawLen {
		return fmt.Sprintf("the value is %s characters long; it %s", Thousands(int64(len(raw))), bad)
	}
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "the field is empty; it " + bad
	}
	if !f.IsList() {
		plain, ok := Ungroup(raw)
		if !ok {
			return fmt.Sprintf("%q groups its digits wrongly: a comma, underscore or thin space may only mark off thousands, in threes as in 20,000 (write decimals with a point); it %s", Clip(raw, 24), bad)
		}
		raw = plain
		if f.Kind == KindInt {
			v, msg := parseInt(f, raw)
			if msg != "" {
				return msg
			}
			m.SetInt(v)
			return ""
		}
		v, msg := parseFloat(f, raw)
		if msg != "" {
			return msg
		}
		m.SetFloat(v)
		return ""
	}
	items := strings.Split(raw, ",")
	if len(items) > MaxListItems {
		return fmt.Sprintf("the list has %d items; it %s", len(items), bad)
	}
	if f.Kind == KindIntList {
		return parseList(f, items, parseInt, m)
	}
	return parseList(f, items, parseFloat, m)
}

// parseList parses every item with one, then sorts and drops repeats: a chart's x axis wants its
// points in order, and running a window twice would only cost time.
func parseList[T int64 | float64](f Field, items []string, one func(Field, string) (T, string), m reflect.Value) string {
	out := make([]T, 0, len(items))
	for _, it := range items {
		v, msg := one(f, strings.TrimSpace(it))
		if msg != "" {
			return msg
		}
		out = append(out, v)
	}
	slices.Sort(out)
	m.Set(reflect.ValueOf(slices.Compact(out)))
	return ""
}

// groupMarks are the thousands separators a scalar field accepts: the comma the site itself prints,
// Go's and Python's underscore, and the thin and narrow no-break spaces of typeset and French-style
// numbers (and the plain no-break space some keyboards produce for the latter).
const groupMarks = ",_\u2009\u202f\u00a0"

// Ungroup removes thousands separators from a scalar's text, or reports false when a separator is
// there but does not mark thousands. Only the whole part may be grouped, with one kind of mark, a
// first group of one to three digits that does not start with 0, and every later group exactly
// three digits: so "0,5" and "1,0000" are refused instead of silently read as 5 and 10000, which a
// reader writing a decimal comma could not notice. Text without a separator comes back unchanged.
func Ungroup(s string) (string, bool) {
	if !strings.ContainsAny(s, groupMarks) {
		return s, true
	}
	sign := ""
	if s[0] == '+' || s[0] == '-' {
		sign, s = s[:1], s[1:]
	}
	whole, rest := s, ""
	if i := strings.IndexAny(s, ".eE"); i >= 0 {
		whole, rest = s[:i], s[i:]
	}
	if strings.ContainsAny(rest, groupMarks) {
		return "", false
	}
	mark := whole[strings.IndexAny(whole, groupMarks):]
	_, size := utf8.DecodeRuneInString(mark)
	groups := strings.Split(whole, mark[:size])
	for i, g := range groups {
		digits := strings.Trim(g, "0123456789") == ""
		if !digits || (i == 0 && (len(g) < 1 || len(g) > 3 || g[0] == '0')) || (i > 0 && len(g) != 3) {
			return "", false
		}
	}
	return sign + strings.Join(groups, "") + rest, true
}

// plainNumber accepts decimal digits, one sign, a point and an exponent: no hex, no underscores, no
// "inf" or "NaN", no non-ASCII digits, all of which strconv would otherwise take or mangle.
func plainNumber(s string) bool {
	if s == "" {
		return false
	}
	digits := false
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digits = true
		case r == '.' || r == 'e' || r == 'E':
		case (r == '+' || r == '-') && (i == 0 || s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return digits
}

// shownNumber writes a reader's number back in a message the way they would read it, one rule for
// every field: a plain decimal with its whole part grouped in thousands (1000000 as 1,000,000,
// 1234.5 as 1,234.5), anything else (1e30) as typed; clipped either way, so a pasted run of
// digits is never echoed in full.
func shownNumber(s string) string {
	sign, rest := "", s
	if rest != "" && (rest[0] == '+' || rest[0] == '-') {
		sign, rest = rest[:1], rest[1:]
	}
	whole, frac, point := strings.Cut(rest, ".")
	if whole == "" || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return Clip(s, 24)
	}
	if t := strings.TrimLeft(whole, "0"); t != "" {
		whole = t
	} else {
		whole = "0"
	}
	out := sign + GroupDigits(whole)
	if point {
		out += "." + frac
	}
	return Clip(out, 32)
}

func parseInt(f Field, s string) (int64, string) {
	bad := "must be " + f.Range()
	shown := Clip(s, 24)
	if !plainNumber(s) {
		return 0, fmt.Sprintf("%q is not a number; it %s", shown, bad)
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Accept whole numbers written with an exponent or a point (1e6, 20000.0).
		x, ferr := strconv.ParseFloat(s, 64)
		if errors.Is(ferr, strconv.ErrSyntax) { // "1.2.3", "1e": digits, but not a number
			return 0, fmt.Sprintf("%q is not a number; it %s", shown, bad)
		}
		if ferr != nil || math.IsInf(x, 0) || x != math.Trunc(x) || math.Abs(x) >= 1<<63 {
			if errors.Is(err, strconv.ErrRange) || (ferr == nil && x == math.Trunc(x)) || errors.Is(ferr, strconv.ErrRange) {
				return 0, fmt.Sprintf("%s is out of range; it %s", shownNumber(s), bad)
			}
			return 0, fmt.Sprintf("%s is not a whole number; it %s", shownNumber(s), bad)
		}
		v = int64(x)
	}
	if v < f.MinInt || v > f.MaxInt {
		return 0, fmt.Sprintf("%s is out of range; it %s", shownNumber(s), bad)
	}
	return v, ""
}

func parseFloat(f Field, s string) (float64, string) {
	bad := "must be " + f.Range()
	shown := Clip(s, 24)
	if !plainNumber(s) {
		return 0, fmt.Sprintf("%q is not a number; it %s", shown, bad)
	}
	v, err := strconv.ParseFloat(s, 64)
	if errors.Is(err, strconv.ErrSyntax) { // "1.2.3", "1e": digits, but not a number
		return 0, fmt.Sprintf("%q is not a number; it %s", shown, bad)
	}
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Sprintf("%s is out of range; it %s", shownNumber(s), bad)
	}
	if v < f.Min || v > f.Max {
		return 0, fmt.Sprintf("%s is out of range; it %s", shownNumber(s), bad)
	}
	// -0 equals 0 but formats as "-0": normalise it, or equal parameters get different cache keys
	// and permalinks.
	return v + 0, ""
}

// Format returns every parameter of p as the text a form field or a permalink carries.
func (e *Experiment) Format(p any) map[string]string {
	return e.write(p, func(x int64) string { return strconv.FormatInt(x, 10) }, FormatFloat, ",")
}

// Say returns every parameter of p as a person reads it in a sentence: numbers with thousands
// separators (5,000) and list items apart (100, 500, 1,000), as the site writes numbers elsewhere.
func (e *Experiment) Say(p any) map[string]string {
	return e.write(p, Thousands, Readable, ", ")
}

// write is Format and Say: every parameter of p, its numbers written by ints and floats and a
// list's items joined by sep.
func (e *Experiment) write(p any, ints func(int64) string, floats func(float64) string, sep string) map[string]string {
	v := reflect.ValueOf(p)
	out := make(map[string]string, len(e.Fields))
	for _, f := range e.Fields {
		m, _ := member(v, f.Name)
		switch f.Kind {
		case KindInt:
			out[f.Name] = ints(m.Int())
		case KindFloat:
			out[f.Name] = floats(m.Float())
		case KindIntList:
			xs := m.Interface().([]int64)
			s := make([]string, len(xs))
			for i, x := range xs {
				s[i] = ints(x)
			}
			out[f.Name] = strings.Join(s, sep)
		case KindFloatList:
			xs := m.Interface().([]float64)
			s := make([]string, len(xs))
			for i, x := range xs {
				s[i] = floats(x)
			}
			out[f.Name] = strings.Join(s, sep)
		}
	}
	return out
}

// Key is a canonical text of p, equal for equal parameters: the result cache's key.
func (e *Experiment) Key(p any) string {
	vals := e.Format(p)
	var b strings.Builder
	b.WriteString(e.Name)
	for _, f := range e.Fields {
		b.WriteString("&" + f.Name + "=" + vals[f.Name])
	}
	return b.String()
}

// ParamsHash is a short fingerprint of p: the first 12 hex digits of the SHA-256 of Key(p). Exports
// and pages print it beside the notebook's version, so a pasted number says which inputs made it,
// and two runs on equal parameters carry the same fingerprint however their URLs were written.
func (e *Experiment) ParamsHash(p any) string { return fingerprint(e.Key(p)) }

// fingerprint is the first 12 hex digits of the SHA-256 of a canonical text: short enough to
// paste beside a number, long enough that two different inputs never meet in practice.
func fingerprint(canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return hex.EncodeToString(sum[:6])
}

// FormatFloat writes a float in the shortest form that parses back to the same value.
// Plain decimals are used wherever they stay short and exact (1000000000 and 0.000001, not 1e+09
// and 1e-06): a reader edits these values in a form, and exponents there look like errors.
func FormatFloat(x float64) string {
	if a := math.Abs(x); x == 0 || (a >= 1e-7 && a < 1e16) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// Readable writes a number in a message for people, as the range of every field is written:
// whole numbers with thousands separators (1,000,000,000, never 1e+09), others in their shortest
// plain form (0.5). Other packages' messages (the study rooms' limits and ranges) use it too, so a
// number reads the same in every refusal.
func Readable(x float64) string { return rangeFloat(x) }

// rangeFloat writes a range bound for people: whole numbers with thousands separators.
func rangeFloat(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e18 {
		return Thousands(int64(x))
	}
	return FormatFloat(x)
}

// Thousands writes an integer with thousands separators, as the documents print counts; the
// pages use it too, so a number reads the same in a table, a reading and an error message.
func Thousands(v int64) string {
	s := strconv.FormatInt(v, 10)
	if rest, neg := strings.CutPrefix(s, "-"); neg {
		return "-" + GroupDigits(rest)
	}
	return GroupDigits(s)
}

// GroupDigits puts a comma between every three digits of a run of digits, from the right: the one
// grouping loop of the project, for integers here and for the whole part of a decimal in pages.
func GroupDigits(digits string) string {
	var b strings.Builder
	for i, r := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Clip shortens reader input to at most n bytes, cut at a character boundary and marked with an
// ellipsis, before it is quoted in a message or echoed in a form: a pasted essay is never sent
// back in full. The site's other layers use it too, so every echo is clipped the same way.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
