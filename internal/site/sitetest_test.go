package site

import "effectivelyonce/internal/sitetest"

// The helpers these tests share with cmd/site's (see internal/sitetest), under the names the
// tests here call them.
const streamWait = sitetest.StreamWait

type (
	sseEvent  = sitetest.SSEEvent
	sseStream = sitetest.SSEStream
	created   = sitetest.Created
)

var (
	streamClient = sitetest.StreamClient
	openStream   = sitetest.OpenStream
	named        = sitetest.Named
	text         = sitetest.Text
	apiCall      = sitetest.APICall
	dialFrom     = sitetest.DialFrom
	metricValue  = sitetest.MetricValue
	grepLine     = sitetest.GrepLine
)
