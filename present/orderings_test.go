package present

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadOrderings(t *testing.T) {
	stream := experiments.DefaultStreamParams()

	checkReadings(t, "orderings", []readingCase{
		{name: "orderings at the document's values", params: stream,
			result: experiments.OrderingsResult{Jobs: 20_000, Crashed: 398, Rows: []experiments.OrderingRow{
				{Order: experiments.OrderKeyThenEffect, Lost: 398}, {Order: experiments.OrderEffectThenKey, Duplicated: 398}, {Order: experiments.OrderOneTransaction},
			}},
			want: []string{"398 of 20,000", "key first lost 398 jobs and duplicated 0", "effect first lost 0 and duplicated 398", "In one transaction: 0 lost, 0 duplicated"}},
		{name: "orderings without crashes", params: stream,
			result: experiments.OrderingsResult{Jobs: 20_000, Rows: []experiments.OrderingRow{{Order: experiments.OrderKeyThenEffect}}},
			want:   []string{"None of the 20,000 jobs crashed", "never opened"}},
	})
}
