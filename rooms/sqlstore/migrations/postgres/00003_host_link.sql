-- A room's one unused host link, as JSON ({"token_hash","sealed","expires"}): the hash of the
-- link's token, the host key sealed under the token, and when the link stops working (see
-- rooms.HostLink). Empty when there is none. Read and written whole with the room, never searched.

-- +goose Up
ALTER TABLE rooms ADD COLUMN host_link TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE rooms DROP COLUMN host_link;
