package site

import (
	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/internal/web"
)

// metrics are the web layer's shared series and the notebook's own, on one registry (the rooms
// register theirs on it in roomsweb.New).
type metrics struct {
	*web.Metrics
	runs  *prometheus.HistogramVec
	cache *prometheus.CounterVec
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
	}
	m.Reg.MustRegister(m.runs, m.cache)
	return m
}
