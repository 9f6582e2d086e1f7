-- The workbench's shared handlers: the source a reader shared, under the hash of its content, so
-- that sharing the same handler twice gives the same short URL and keeps one row. Never changed
-- once written; created_at (microseconds since 1970, UTC) says when it was first shared.

-- +goose Up
CREATE TABLE workbench_shares (
    hash       TEXT PRIMARY KEY,
    source     TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

-- +goose Down
DROP TABLE workbench_shares;
