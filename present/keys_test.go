package present

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadKeys(t *testing.T) {
	stream := experiments.DefaultStreamParams()

	checkReadings(t, "keys", []readingCase{
		{name: "keys at the document's values", params: stream,
			result: experiments.KeysResult{Jobs: 20_000, Crashed: 398, Rows: []experiments.KeyRow{
				{Key: experiments.KeyJobID, Duplicated: 0}, {Key: experiments.KeyJobIDAttempt, Duplicated: 398}, {Key: experiments.KeyUUIDPerAttempt, Duplicated: 398},
			}},
			want: []string{"398 of 20,000", "Keyed on job-id, 0 duplicates", "100.00% of the redeliveries", "Only job-id stopped every redelivery", "Job-id+attempt and uuid-per-attempt stopped none"}},
		{name: "keys without crashes", params: stream,
			result: experiments.KeysResult{Jobs: 1_000, Rows: []experiments.KeyRow{{Key: experiments.KeyJobID}, {Key: experiments.KeyUUIDPerAttempt}}},
			want:   []string{"None of the 1,000 jobs crashed", "cannot tell a working key"}},
	})
}
