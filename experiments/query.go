package experiments

import (
	"fmt"
	"net/url"
	"strings"
)

// MaxFieldErrors is how many field errors one answer lists; the rest are counted in a last entry,
// so that a request of ten thousand unknown keys does not get ten thousand messages back.
const MaxFieldErrors = 5

// CapErrors keeps the first MaxFieldErrors errors and says how many more there were.
func CapErrors(fe FieldErrors) FieldErrors {
	if len(fe) <= MaxFieldErrors {
		return fe
	}
	out := append(FieldErrors{}, fe[:MaxFieldErrors]...)
	return append(out, FieldError{Message: fmt.Sprintf("and %d more", len(fe)-MaxFieldErrors)})
}

// ParseQuery reads a query string as url.ParseQuery does, except that nothing is dropped: a pair
// that does not decode (a bad %-escape) or that holds a ';' (which Go no longer takes as a
// separator) keeps its raw text as its value and is reported, so that the caller can refuse it
// instead of silently running on the defaults.
func ParseQuery(raw string) (url.Values, FieldErrors) {
	vals := url.Values{}
	var problems FieldErrors
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, kerr := url.QueryUnescape(k)
		if kerr != nil {
			key = k
		}
		val, verr := url.QueryUnescape(v)
		switch {
		case strings.Contains(part, ";"):
			if i := strings.IndexByte(key, ';'); i >= 0 {
				key = key[:i]
			}
			problems = append(problems, FieldError{Field: Clip(key, 40),
				Message: fmt.Sprintf("%q holds a ';', which does not separate parameters; separate them with '&'", Clip(part, 40))})
			val = v
		case kerr != nil || verr != nil:
			problems = append(problems, FieldError{Field: Clip(key, 40),
				Message: fmt.Sprintf("%q is not URL-encoded correctly: a %% must be followed by two hexadecimal digits", Clip(part, 40))})
			val = v
		}
		vals[key] = append(vals[key], val)
	}
	return vals, problems
}

// ExplainMalformed puts the query's own problem in place of the parser's message for each field
// whose value did not parse as a query at all; name gives a field's key in the query.
func ExplainMalformed(fe FieldErrors, problems FieldErrors, name func(string) string) {
	for i := range fe {
		for _, p := range problems {
			if p.Field == name(fe[i].Field) {
				fe[i].Message = p.Message
			}
		}
	}
}
