package site

import "effectivelyonce/internal/web/roomsweb"

// The rooms' names the site's integration tests use, from the rooms' handler package.
type (
	roomJSON   = roomsweb.RoomJSON
	resultJSON = roomsweb.ResultJSON
	guessJSON  = roomsweb.GuessJSON
)

const (
	hostCookie = roomsweb.HostCookie
	seatCookie = roomsweb.SeatCookie
)
