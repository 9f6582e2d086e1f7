package present

import "testing"

// TestSayAndFormat pins the number formatting and the prose helpers every reading is built from.
func TestSayAndFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{count(0), "0"},
		{count(999), "999"},
		{count(1000), "1,000"},
		{count(-1234567), "-1,234,567"},
		{percent(0.0199), "1.99%"},
		{sayShare(1, 0), "0.00%"},
		{bytesSI(448e9), "448 GB"},
		{sayProb(1e-6), "1 in 1,000,000"},
		{sayProb(0.02), "2%"},
		{saySpan(86.4), "86.4 s"},
		{saySpan(3600), "60 minutes"},
		{SayList([]string{"a", "b", "c"}), "a, b and c"},
		{saySpan(8.64e-5), "86.4 µs"},
		{saySpan(0.5), "500 ms"},
		{saySpan(60), "60 s"},
		{saySpan(86_400), "24 hours"},
		{saySpan(86_400 * 2), "2 days"},
		{seconds(1000), "1,000 s"},
		{saySecs(287.34), "287.3 s"},
		{saySecs(12_345.6), "12,345.6 s"},
		{saySecs(5), "5.0 s"},
		{seconds(5), "5 s"},
		{Plural(0, "job", "jobs"), "0 jobs"},
		{Plural(1, "job", "jobs"), "1 job"},
		{Plural(2, "job", "jobs"), "2 jobs"},
		{Plural(20_000, "job", "jobs"), "20,000 jobs"},
		{Plural(1, "job is", "jobs are"), "1 job is"},
		{pluralF(1, "day", "days"), "1 day"},
		{pluralF(0.5, "day", "days"), "0.5 days"},
		{pluralF(7e9, "key", "keys"), "7,000,000,000 keys"},
		{verb(1, "was", "were"), "was"},
		{verb(0, "was", "were"), "were"},
		{sayThe(1, "redelivery", "redeliveries"), "the single redelivery"},
		{sayThe(398, "redelivery", "redeliveries"), "the 398 redeliveries"},
		{sayCrashed(1, 1, "crashed", "crashed"), "The one job crashed"},
		{sayCrashed(2, 2, "crashed", "crashed"), "Both jobs crashed"},
		{sayCrashed(1, 20_000, "had its worker die", "had their worker die"), "1 of 20,000 jobs had its worker die"},
		{sayNoneCrashed(1), "The one job did not crash"},
		{sayNoneCrashed(2), "Neither job crashed"},
		{sayNoneCrashed(300), "None of the 300 jobs crashed"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
