package present

import (
	"math"
	"testing"

	"effectivelyonce/experiments"
)

func TestReadScale(t *testing.T) {
	checkReadings(t, "scale", []readingCase{
		{name: "scale at the concept page's values", params: experiments.DefaultScaleParams(),
			result: experiments.ScaleResult{DuplicatesPerDay: 1000, SecondsBetweenDuplicates: 86.4, DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5},
			want:   []string{"1,000,000,000 messages", "1 in 1,000,000", "about 1,000 duplicates a day", "one every 86.4 s", "7,000,000,000 keys", "448 GB", "5x", "retry budget"}},
		{name: "scale at certain crashes", params: experiments.ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 1, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 1e9, SecondsBetweenDuplicates: 8.64e-5, DedupKeys: 7e9, DedupStoreBytes: 448e9, RetryPeakMultiplier: 5},
			want:   []string{"one every 86.4 µs"}, not: []string{"e-05"}},
		{name: "scale at a thousand a day", params: experiments.ScaleParams{MessagesPerDay: 1000, CrashWindowP: 1e-6, ReplayDays: 1, BytesPerKey: 1, RetryMultiplier: 1},
			result: experiments.ScaleResult{DuplicatesPerDay: 0.001, SecondsBetweenDuplicates: 8.64e7, DedupKeys: 1000, DedupStoreBytes: 1000},
			want:   []string{"1,000 messages", "one every 1,000 days", "for 1 day", "1,000 keys", "at 1 byte a key", "1 KB"}, not: []string{"kB", "1 days", "1 bytes"}},
		{name: "scale with no replay window", params: experiments.ScaleParams{MessagesPerDay: 1e9, CrashWindowP: 1e-6, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 1000, SecondsBetweenDuplicates: 86.4, RetryPeakMultiplier: 5},
			want:   []string{"With no replay window at all, no dedup key is kept", "That is no dedup"}, not: []string{"0 B", "0 keys"}},
		{name: "scale with a zero crash window", params: experiments.ScaleParams{MessagesPerDay: 1e6, ReplayDays: 1, BytesPerKey: 64, RetryMultiplier: 1},
			result: experiments.ScaleResult{DedupKeys: 1e6, DedupStoreBytes: 64e6, RetryPeakMultiplier: 1},
			want:   []string{"none, because the chance is zero", "64 MB"}, not: []string{"corrupted", "retry policy"}},
		{name: "scale with fewer than one a day", params: experiments.ScaleParams{MessagesPerDay: 1e5, CrashWindowP: 1e-6, ReplayDays: 7, BytesPerKey: 64, RetryMultiplier: 5},
			result: experiments.ScaleResult{DuplicatesPerDay: 0.1, SecondsBetweenDuplicates: 864_000, DedupKeys: 7e5, DedupStoreBytes: 44.8e6, RetryPeakMultiplier: 5},
			want:   []string{"about 0.1 duplicates a day", "one every 10 days"}},
		// Issue 8: large values mixed 1e+15 with separators, and a huge store read 36,500,000 EB.
		{name: "scale at the largest values accepted", params: experiments.ScaleParams{MessagesPerDay: 1e15, CrashWindowP: 1, ReplayDays: 36_500, BytesPerKey: 1e6, RetryMultiplier: 1000},
			result: experiments.ScaleResult{DuplicatesPerDay: 1e15, SecondsBetweenDuplicates: 8.64e-11, DedupKeys: 3.65e19, DedupStoreBytes: 3.65e25, RetryPeakMultiplier: 1000},
			want: []string{"At 1,000,000,000,000,000 messages a day", "about 1,000,000,000,000,000 duplicates", "one every 86.4 ps",
				"36,500,000,000,000,000,000 keys", "36.5 YB", "1,000,000 bytes"},
			not: []string{"e+", "e-", "EB"}},
		{name: "scale at the smallest values accepted", params: experiments.ScaleParams{MessagesPerDay: 1, CrashWindowP: 1e-6, ReplayDays: 0.001, BytesPerKey: 1, RetryMultiplier: 1},
			result: experiments.ScaleResult{DuplicatesPerDay: 1e-6, SecondsBetweenDuplicates: 8.64e10, DedupKeys: 0.001, DedupStoreBytes: 0.001, RetryPeakMultiplier: 1},
			want:   []string{"At 1 message a day", "about 0.000001 duplicates", "1,000,000 days", "0.001 days"}, not: []string{"e-06", "1 messages"}},
		{name: "scale too rare to time", params: experiments.ScaleParams{MessagesPerDay: 1, CrashWindowP: 5e-324, ReplayDays: 1, BytesPerKey: 1, RetryMultiplier: 1},
			result: experiments.ScaleResult{DuplicatesPerDay: 5e-324, SecondsBetweenDuplicates: math.Inf(1), DedupKeys: 1, DedupStoreBytes: 1, RetryPeakMultiplier: 1},
			want:   []string{"overflows any clock"}, not: []string{"never", "e-324", "unbounded"}},
	})
}
