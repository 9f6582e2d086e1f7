package web

import (
	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the series every part of the server shares, on a registry of its own (no global
// state): the domains register theirs on Reg beside these.
type Metrics struct {
	Reg      *prometheus.Registry
	Requests *prometheus.CounterVec
	// Rejected counts requests refused or cut short, by a reason each refusal names.
	Rejected *prometheus.CounterVec
	Conns    *prometheus.CounterVec
}

// NewMetrics registers the shared series and the Go runtime's and the process's own.
func NewMetrics() *Metrics {
	m := &Metrics{
		Reg: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		Rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_rejections_total", Help: "Requests refused or cut short, by reason.",
		}, []string{"reason"}),
		Conns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_connections_limited_total", Help: "Connections closed to keep within the connection bounds: evicted (idle, to make room) or refused (new, when nothing could go); event streams refused (stream_refused) or ended for a newer one of their key (stream_ended).",
		}, []string{"outcome"}),
	}
	m.Reg.MustRegister(m.Requests, m.Rejected, m.Conns,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler handles "GET /metrics".
func (m *Metrics) Handler() echo.HandlerFunc {
	// echo's gzip middleware compresses every answer already: promhttp's own compression on top
	// of it sent gzip inside gzip, which no scraper reads.
	return echo.WrapHandler(promhttp.HandlerFor(m.Reg, promhttp.HandlerOpts{DisableCompression: true}))
}
