-- A member whose browser became the room's host through a host link: still seated (their answers
-- so far stay in the rounds' tallies), but no longer someone the host waits for, nor counted in a
-- round's "of M". Read and written whole with the member, never searched.

-- +goose Up
ALTER TABLE members ADD COLUMN hosting INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE members DROP COLUMN hosting;
