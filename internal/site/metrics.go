package site

import (
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/internal/web"
	"effectivelyonce/rooms"
)

// metrics are the web layer's shared series and the notebook's and rooms' own, on one registry.
type metrics struct {
	*web.Metrics
	runs  *prometheus.HistogramVec
	cache *prometheus.CounterVec
	// roomParts counts the room parts the event streams draw, by part: how much a room's changes
	// cost in rendering, and that a part whose inputs did not change is not drawn again.
	roomParts *prometheus.CounterVec
	// rereads counts the times a room stream could not re-read its room (the database out of
	// reach) and kept the stream open to try again.
	rereads prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		Metrics: web.NewMetrics(),
		runs: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "site_experiment_run_seconds", Help: "Time to run an experiment (cache misses only).",
			Buckets: []float64{0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10},
		}, []string{"experiment", "lane"}),
		cache: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_result_cache_total", Help: "Result cache lookups by outcome (hit or miss).",
		}, []string{"outcome"}),
		roomParts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_room_part_renders_total", Help: "Live parts of study rooms drawn for event streams, by part.",
		}, []string{"part"}),
		rereads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "site_room_stream_rereads_failed_total", Help: "Times a room's event stream could not re-read the room (its database out of reach) and stayed open to try again.",
		}),
	}
	m.Reg.MustRegister(m.runs, m.cache, m.rereads, m.roomParts)
	return m
}

// countRoomReads registers site_room_store_reads_total, the reads the rooms' Service has made of
// its store (its counting decorator keeps the figure): with one reader per watched room it grows
// with the rooms' changes, not with the number of people watching them.
func (m *metrics) countRoomReads(rs *rooms.Service) {
	m.Reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "site_room_store_reads_total", Help: "Reads the study rooms made of their store (rooms, members, rounds, guesses, pins).",
	}, func() float64 { return float64(rs.StoreReads()) }))
}
