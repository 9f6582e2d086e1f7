-- The live lab's run a room watches: the lab's id for the run its host started from the room,
-- whose progress and table every member's page then shows. Empty when the room watches none.
-- Read and written whole with the room, never searched.

-- +goose Up
ALTER TABLE rooms ADD COLUMN lab_run TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE rooms DROP COLUMN lab_run;
