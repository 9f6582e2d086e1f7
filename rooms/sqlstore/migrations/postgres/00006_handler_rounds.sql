-- Handler rounds (issue 23), as the SQLite migration of the same number: a submission's source is
-- a workbench share (00004), named by its hash; the row keeps the verdict of its check at the
-- round's parameters: crash points checked and survived, jobs lost and duplicated summed over
-- them, event faults (NULL for a handler that does not publish), and whether it survives. A round
-- keeps its reference handler's verdict once revealed (the JSON of rooms.Verdict, '' before) and
-- what the host shows on the projector ('' for nothing, 'reference', or a member's id).

-- +goose Up
ALTER TABLE rounds
	ADD COLUMN reference TEXT NOT NULL DEFAULT '',
	ADD COLUMN shown TEXT NOT NULL DEFAULT '';

CREATE TABLE submissions (
	room_id    TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	member_id  TEXT NOT NULL,
	share_hash TEXT NOT NULL REFERENCES workbench_shares (hash),
	points     INTEGER NOT NULL CHECK (points >= 1),
	survived   INTEGER NOT NULL CHECK (survived BETWEEN 0 AND points),
	lost       BIGINT NOT NULL CHECK (lost >= 0),
	duplicated BIGINT NOT NULL CHECK (duplicated >= 0),
	events     BIGINT CHECK (events >= 0),
	survives   BOOLEAN NOT NULL,
	at         BIGINT NOT NULL,
	PRIMARY KEY (room_id, seq, member_id),
	FOREIGN KEY (room_id, seq) REFERENCES rounds (room_id, seq) ON DELETE CASCADE,
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
CREATE INDEX submissions_member ON submissions (room_id, member_id);

-- +goose Down
DROP TABLE submissions;
ALTER TABLE rounds
	DROP COLUMN shown,
	DROP COLUMN reference;
