-- When a member's event stream last showed them in the room, in microseconds since 1970 (UTC);
-- 0 means they left. The roster marks a member present when this is under 30 s old.

-- +goose Up
ALTER TABLE members ADD COLUMN last_seen BIGINT NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE members DROP COLUMN last_seen;
