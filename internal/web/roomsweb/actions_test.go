package roomsweb

import "testing"

// TestFormNumber checks how a typed guess is read: separators that group thousands are fine, a
// decimal comma is refused with a message that says what to write instead.
func TestFormNumber(t *testing.T) {
	for in, want := range map[string]float64{"1200": 1200, "1,200": 1200, "1 200": 1200, " 0.5 ": 0.5, "-3": -3, "1e3": 1000} {
		if got, err := formNumber("value", in); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0,5", "1,20", "lots", ""} {
		if _, err := formNumber("value", in); err == nil || ErrorField(err) != "value" {
			t.Errorf("%q: err %v, want a refusal on value", in, err)
		}
	}
}
