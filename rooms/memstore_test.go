package rooms_test

import (
	"testing"

	"effectivelyonce/rooms"
	"effectivelyonce/rooms/roomstest"
)

// TestMemStore holds the reference store to the contract every SQL store must meet.
func TestMemStore(t *testing.T) {
	roomstest.Run(t, func(t *testing.T) rooms.Store { return rooms.NewMemStore() })
}
