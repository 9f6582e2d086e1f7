-- The study rooms' tables for Postgres. They mirror the SQLite schema column for column: times are
-- microseconds since 1970 (UTC) in a BIGINT, hashes the 32 bytes of a SHA-256 sum in a bytea, and
-- every child row names its room so that deleting a room cascades to all it holds.

-- +goose Up
CREATE TABLE rooms (
	id            TEXT PRIMARY KEY,
	code          TEXT NOT NULL UNIQUE,
	title         TEXT NOT NULL,
	host_key_hash BYTEA NOT NULL CHECK (length(host_key_hash) = 32),
	locked        BOOLEAN NOT NULL DEFAULT false,
	closed        BOOLEAN NOT NULL DEFAULT false,
	created_at    BIGINT NOT NULL,
	last_activity BIGINT NOT NULL,
	presenting    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX rooms_idle ON rooms (closed, last_activity);

CREATE TABLE members (
	pos        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	room_id    TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
	id         TEXT NOT NULL,
	name       TEXT NOT NULL,
	name_key   TEXT NOT NULL,
	token_hash BYTEA NOT NULL CHECK (length(token_hash) = 32),
	kicked     BOOLEAN NOT NULL DEFAULT false,
	joined_at  BIGINT NOT NULL,
	UNIQUE (room_id, id),
	UNIQUE (room_id, name_key),
	UNIQUE (room_id, token_hash)
);

CREATE TABLE rounds (
	room_id       TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL CHECK (seq >= 1),
	question      TEXT NOT NULL,
	state         TEXT NOT NULL CHECK (state IN ('open', 'locked', 'revealed')),
	measured      DOUBLE PRECISION NOT NULL DEFAULT 0,
	names_visible BOOLEAN NOT NULL DEFAULT false,
	opened_at     BIGINT NOT NULL,
	revealed_at   BIGINT NOT NULL,
	PRIMARY KEY (room_id, seq)
);

CREATE TABLE guesses (
	room_id   TEXT NOT NULL,
	seq       INTEGER NOT NULL,
	member_id TEXT NOT NULL,
	value     DOUBLE PRECISION NOT NULL,
	at        BIGINT NOT NULL,
	PRIMARY KEY (room_id, seq, member_id),
	FOREIGN KEY (room_id, seq) REFERENCES rounds (room_id, seq) ON DELETE CASCADE,
	FOREIGN KEY (room_id, member_id) REFERENCES members (room_id, id) ON DELETE CASCADE
);
CREATE INDEX guesses_member ON guesses (room_id, member_id);

CREATE TABLE pins (
	pos       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	room_id   TEXT NOT NULL,
	id        TEXT NOT NULL,
	member_id TEXT NOT NULL,
	path      TEXT NOT NULL,
	note      TEXT NOT NULL,
	hidden    BOOLEAN NOT NULL DEFAULT false,
	at        BIGINT NOT NULL,
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
