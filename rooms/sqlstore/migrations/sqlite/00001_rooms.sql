-- The study rooms' tables for SQLite. Times are microseconds since 1970 (UTC) in an INTEGER, the
-- same unit the Postgres schema uses, so the Go code converts them one way for both. Hashes are
-- the 32 bytes of a SHA-256 sum. Every child row names its room, so deleting a room takes its
-- members, rounds, guesses and pins with it (foreign_keys is switched on for each connection).

-- +goose Up
CREATE TABLE rooms (
	id            TEXT PRIMARY KEY,
	code          TEXT NOT NULL UNIQUE,
	title         TEXT NOT NULL,
	host_key_hash BLOB NOT NULL CHECK (length(host_key_hash) = 32),
	locked        INTEGER NOT NULL DEFAULT 0,
	closed        INTEGER NOT NULL DEFAULT 0,
	created_at    INTEGER NOT NULL,
	last_activity INTEGER NOT NULL,
	presenting    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX rooms_idle ON rooms (closed, last_activity);

CREATE TABLE members (
	pos        INTEGER PRIMARY KEY AUTOINCREMENT,
	room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
	id         TEXT NOT NULL,
	name       TEXT NOT NULL,
	name_key   TEXT NOT NULL,
	token_hash BLOB NOT NULL CHECK (length(token_hash) = 32),
	kicked     INTEGER NOT NULL DEFAULT 0,
	joined_at  INTEGER NOT NULL,
	UNIQUE (room_id, id),
	UNIQUE (room_id, name_key),
	UNIQUE (room_id, token_hash)
);

CREATE TABLE rounds (
	room_id       TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL CHECK (seq >= 1),
	question      TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('open', 'locked', 'revealed')),
	measured      REAL NOT NULL DEFAULT 0,
	names_visible INTEGER NOT NULL DEFAULT 0,
	opened_at     INTEGER NOT NULL,
	revealed_at   INTEGER NOT NULL,
	PRIMARY KEY (room_id, seq)
);

CREATE TABLE guesses (
	room_id   TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	member_id TEXT NOT NULL,
	value     REAL NOT NULL,
	at        INTEGER NOT NULL,
	PRIMARY KEY (room_id, seq, member_id),
	FOREIGN KEY (room_id, seq) REFERENCES rounds (room_id, seq) ON DELETE CASCADE,
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
CREATE INDEX guesses_member ON guesses (room_id, member_id);

CREATE TABLE pins (
	pos       INTEGER PRIMARY KEY AUTOINCREMENT,
	room_id   TEXT NOT NULL,
	id        TEXT NOT NULL,
	member_id TEXT NOT NULL,
	path      TEXT NOT NULL,
	note      TEXT NOT NULL,
	hidden    INTEGER NOT NULL DEFAULT 0,
	at        INTEGER NOT NULL,
	UNIQUE (room_id, id),
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
CREATE INDEX pins_member ON pins (room_id, member_id);

-- +goose Down
DROP TABLE pins;
DROP TABLE guesses;
DROP TABLE rounds;
DROP TABLE members;
DROP TABLE rooms;
