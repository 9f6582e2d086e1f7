package present

import (
	"testing"

	"effectivelyonce/experiments"
)

func TestReadOutbox(t *testing.T) {
	checkReadings(t, "outbox", []readingCase{
		{name: "outbox", params: experiments.DefaultOutboxParams(),
			result: experiments.OutboxResult{Events: 20_000, Rows: []experiments.OutboxRow{
				{Design: experiments.DualWriteDBFirst, Lost: 392}, {Design: experiments.DualWriteDBFirst, ConsumerDedup: true, Lost: 392},
				{Design: experiments.DualWritePublishFirst, Phantom: 401}, {Design: experiments.DualWritePublishFirst, ConsumerDedup: true, Phantom: 401},
				{Design: experiments.TransactionalOutbox, DuplicateApplications: 377},
				{Design: experiments.TransactionalOutbox, ConsumerDedup: true},
			}},
			want: []string{"20,000 business changes", "a chance of 2%", "The dual write that commits first: 392 events lost, no phantom event, no event applied twice", "401 phantom events",
				"377 duplicate applications at a consumer without a dedup key and 0 at one with a key",
				"Only one combination", "the outbox with a consumer that dedups", "Each of the outbox's 377 duplicates", "applied none of them"}},
		{name: "outbox of one clean event", params: experiments.OutboxParams{Events: 1, CrashRate: 0.5, Seed: 13},
			result: experiments.OutboxResult{Events: 1, Rows: []experiments.OutboxRow{
				{Design: experiments.DualWriteDBFirst}, {Design: experiments.DualWriteDBFirst, ConsumerDedup: true},
				{Design: experiments.TransactionalOutbox}, {Design: experiments.TransactionalOutbox, ConsumerDedup: true},
			}},
			want: []string{"1 business change,", "Every combination came through clean"}, not: []string{"republish", "relay", "1 business changes"}},
		{name: "outbox without a republish", params: experiments.DefaultOutboxParams(),
			result: experiments.OutboxResult{Events: 50, Rows: []experiments.OutboxRow{
				{Design: experiments.DualWriteDBFirst, Lost: 1}, {Design: experiments.DualWriteDBFirst, ConsumerDedup: true, Lost: 1},
				{Design: experiments.TransactionalOutbox}, {Design: experiments.TransactionalOutbox, ConsumerDedup: true},
			}},
			want: []string{"1 event lost", "Clean on every count: the outbox with either consumer", "never had to publish a row twice"}, not: []string{"Each of the outbox"}},
		{name: "outbox without crashes", params: experiments.OutboxParams{Events: 10, Seed: 13},
			result: experiments.OutboxResult{Events: 10, Rows: []experiments.OutboxRow{{Design: experiments.TransactionalOutbox}}},
			want:   []string{"differ only inside the crash window"}},
	})
}
