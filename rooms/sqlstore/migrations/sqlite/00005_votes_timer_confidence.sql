-- Peer instruction, countdowns and confidence (issue 23). A round has one or two votes and says
-- which is taking answers (vote); its countdown is the seconds each vote is given, the deadline
-- of the one running (microseconds since 1970, UTC; 0 when none runs) and what a paused one has
-- left (microseconds; 0 unless paused). A guess belongs to one vote of its round and may carry
-- the member's confidence ('' when they did not say).
--
-- A member may now have a guess in each vote, so vote joins the guesses' primary key. SQLite
-- cannot change a primary key in place: the table is made again under a new name, filled from
-- the old one (every old guess was vote 1), and takes the old name. Nothing references guesses,
-- so dropping the old table with foreign keys on touches no other row.

-- +goose Up
ALTER TABLE rounds ADD COLUMN votes INTEGER NOT NULL DEFAULT 1 CHECK (votes IN (1, 2));
ALTER TABLE rounds ADD COLUMN vote INTEGER NOT NULL DEFAULT 1 CHECK (vote IN (1, 2));
ALTER TABLE rounds ADD COLUMN seconds INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN deadline INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN paused_left INTEGER NOT NULL DEFAULT 0;

CREATE TABLE guesses_by_vote (
	room_id    TEXT NOT NULL,
	seq        INTEGER NOT NULL,
	member_id  TEXT NOT NULL,
	vote       INTEGER NOT NULL DEFAULT 1 CHECK (vote IN (1, 2)),
	value      REAL NOT NULL,
	confidence TEXT NOT NULL DEFAULT '' CHECK (confidence IN ('', 'low', 'medium', 'high')),
	at         INTEGER NOT NULL,
	PRIMARY KEY (room_id, seq, member_id, vote),
	FOREIGN KEY (room_id, seq) REFERENCES rounds (room_id, seq) ON DELETE CASCADE,
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
INSERT INTO guesses_by_vote (room_id, seq, member_id, vote, value, at)
	SELECT room_id, seq, member_id, 1, value, at FROM guesses;
DROP TABLE guesses;
ALTER TABLE guesses_by_vote RENAME TO guesses;
CREATE INDEX guesses_member ON guesses (room_id, member_id);

-- +goose Down
CREATE TABLE guesses_one_vote (
	room_id   TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	member_id TEXT NOT NULL,
	value     REAL NOT NULL,
	at        INTEGER NOT NULL,
	PRIMARY KEY (room_id, seq, member_id),
	FOREIGN KEY (room_id, seq) REFERENCES rounds (room_id, seq) ON DELETE CASCADE,
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
-- A round of two votes keeps its last answer from each member: the one its reveal counted.
INSERT INTO guesses_one_vote (room_id, seq, member_id, value, at)
	SELECT g.room_id, g.seq, g.member_id, g.value, g.at FROM guesses g
	WHERE g.vote = (SELECT max(o.vote) FROM guesses o WHERE o.room_id = g.room_id AND o.seq = g.seq AND o.member_id = g.member_id);
DROP TABLE guesses;
ALTER TABLE guesses_one_vote RENAME TO guesses;
CREATE INDEX guesses_member ON guesses (room_id, member_id);
ALTER TABLE rounds DROP COLUMN paused_left;
ALTER TABLE rounds DROP COLUMN deadline;
ALTER TABLE rounds DROP COLUMN seconds;
ALTER TABLE rounds DROP COLUMN vote;
ALTER TABLE rounds DROP COLUMN votes;
