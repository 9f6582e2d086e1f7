-- Peer instruction, countdowns and confidence (issue 23), as the SQLite migration of the same
-- number: a round has one or two votes and says which is taking answers (vote); its countdown is
-- the seconds each vote is given, the deadline of the one running (microseconds since 1970, UTC;
-- 0 when none runs) and what a paused one has left (microseconds; 0 unless paused). A guess
-- belongs to one vote of its round (every earlier guess was vote 1) and may carry the member's
-- confidence ('' when they did not say); vote joins the guesses' primary key, which Postgres
-- changes in place.

-- +goose Up
ALTER TABLE rounds
	ADD COLUMN votes INTEGER NOT NULL DEFAULT 1 CHECK (votes IN (1, 2)),
	ADD COLUMN vote INTEGER NOT NULL DEFAULT 1 CHECK (vote IN (1, 2)),
	ADD COLUMN seconds INTEGER NOT NULL DEFAULT 0,
	ADD COLUMN deadline BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN paused_left BIGINT NOT NULL DEFAULT 0;

ALTER TABLE guesses
	ADD COLUMN vote INTEGER NOT NULL DEFAULT 1 CHECK (vote IN (1, 2)),
	ADD COLUMN confidence TEXT NOT NULL DEFAULT '' CHECK (confidence IN ('', 'low', 'medium', 'high')),
	DROP CONSTRAINT guesses_pkey,
	ADD PRIMARY KEY (room_id, seq, member_id, vote);

-- +goose Down
-- A round of two votes keeps its last answer from each member: the one its reveal counted.
DELETE FROM guesses g WHERE g.vote < (SELECT max(o.vote) FROM guesses o
	WHERE o.room_id = g.room_id AND o.seq = g.seq AND o.member_id = g.member_id);
ALTER TABLE guesses
	DROP CONSTRAINT guesses_pkey,
	ADD PRIMARY KEY (room_id, seq, member_id),
	DROP COLUMN confidence,
	DROP COLUMN vote;
ALTER TABLE rounds
	DROP COLUMN paused_left,
	DROP COLUMN deadline,
	DROP COLUMN seconds,
	DROP COLUMN vote,
	DROP COLUMN votes;
