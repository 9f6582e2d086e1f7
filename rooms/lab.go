package rooms

import "context"

// maxLabRun bounds the lab run's id a room keeps: the lab's ids are 32 hex digits.
const maxLabRun = 64

// WatchLab records that the room watches the live lab's run called runID, which its host has just
// started from the room: every member's room page and bar then show that run's progress and, once
// it ends, its table. It is a room change like presenting a page, so every stream hears of it; the
// run's own progress is the lab's and never a change of the room. An empty runID watches none.
func (s *Service) WatchLab(ctx context.Context, host Caller, runID string) error {
	if !plain(runID, maxLabRun) {
		return fieldErr("run", ErrInvalid, "a lab run's id is at most %d characters of plain text", maxLabRun)
	}
	_, err := s.updateRoom(ctx, host, func(r *Room) error { r.LabRun = runID; return nil })
	return err
}
