// Package roomsweb serves the study rooms over HTTP: the JSON API a host scripts a session with,
// the rooms' pages and their actions, the event stream that keeps every tab of a room live, and
// the room bar the notebook's pages show. Who may do what is rooms.Service's; this package reads
// requests, keeps a browser's keys in cookies, measures a round's truth through the run admission,
// and turns the rooms' refusals into statuses.
package roomsweb

import (
	"context"
	"log/slog"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"effectivelyonce/content"
	"effectivelyonce/experiments"
	"effectivelyonce/internal/runs"
	"effectivelyonce/internal/web"
	"effectivelyonce/pages"
	"effectivelyonce/present"
	"effectivelyonce/rooms"
)

// Deps is what the rooms' handlers need, and nothing else.
type Deps struct {
	// Rooms is the rooms' domain: who may do what, over its store.
	Rooms *rooms.Service
	// Hub wakes the rooms' event streams (rooms/live: in-process, or Postgres LISTEN/NOTIFY).
	Hub Hub
	// Admit charges the runs the rooms make for a reader (a round's truth, a pin's headline, the
	// numbers a host lists) to their client, and makes them on its Runner.
	Admit *runs.Admission
	// Book is the notebook's prose: the five questions' titles and the pages paths name.
	Book *content.Book
	// Site is the chrome of every page (see the site's server.site).
	Site func(current string) pages.Site
	// Origins are the hosts the absolute links the rooms hand out may name.
	Origins *web.Origins
	// Log hears what the rooms cannot tell a reader (an announcement lost, a sweep failed).
	Log *slog.Logger
	// Metrics is the shared registry: the rooms count refusals in Rejected and register their
	// own series (parts drawn, failed re-reads, open streams, store reads) on Reg.
	Metrics *web.Metrics
	// Creates and Joins limit room creations and joins (and join-code look-ups) per client
	// address; Changes the changes made with one room key, guesses included. Stop closes them.
	Creates, Joins *web.RateLimiter[netip.Addr]
	Changes        *web.RateLimiter[rooms.Hash]
	// ChangesPerMinute is Changes' rate, for the message a refusal shows.
	ChangesPerMinute int
	// StreamsPerKey is how many event streams one key may hold open (a few tabs).
	StreamsPerKey int
	// Conns answers the listener's connection limiter, which bounds the event streams; it may
	// answer nil (a server without a listener, a test through ServeHTTP), and then nothing is
	// bounded. A func, since the limiter is made after the handlers, with the listener.
	Conns func() *web.ConnLimiter
	// Base is the base path the site is served under ("" at the root).
	Base string
	// HTTPS says the public origin is https, so cookies are Secure behind a proxy too.
	HTTPS bool
	// Heartbeat is how often an idle stream beats; zero is Heartbeat.
	Heartbeat time.Duration
	// Checks are the workbench's check and its answer, for handler rounds (see handlerround.go).
	Checks HandlerChecks
	// Lab is the live lab as a room uses it (lab.go); its zero value is a site without a lab.
	Lab LabParts
}

// Handlers serve the study rooms; New makes them.
type Handlers struct {
	rooms            *rooms.Service
	hub              Hub
	admit            *runs.Admission
	book             *content.Book
	site             func(current string) pages.Site
	origins          *web.Origins
	log              *slog.Logger
	rejected         *prometheus.CounterVec
	creates, joins   *web.RateLimiter[netip.Addr]
	changes          *web.RateLimiter[rooms.Hash]
	changesPerMinute int
	streamsPerKey    int
	conns            func() *web.ConnLimiter
	base             string
	cookies          web.Cookies
	checks           HandlerChecks

	// stopping closes at shutdown, ending every stream, since a stream is never idle and the
	// HTTP server's graceful shutdown would otherwise wait for it.
	stopping  chan struct{}
	stopOnce  atomic.Bool
	heartbeat time.Duration
	streams   atomic.Int64 // open room streams, for /metrics
	roomsLive roomLive     // the rooms' readers and presence (see stream.go)
	// parts counts the room parts the event streams draw, by part: how much a room's changes
	// cost in rendering, and that a part whose inputs did not change is not drawn again.
	parts *prometheus.CounterVec
	// rereads counts the times a room stream could not re-read its room (the database out of
	// reach) and kept the stream open to try again.
	rereads prometheus.Counter

	// asked are the five questions as a host picks them; headlines and qrs are worked out once
	// for each pinned permalink and each join link.
	asked []pages.Asked
	// titles are notebook paths in words, as rooms show them (see paths.go).
	titles    *web.Memo[string]
	headlines *headlines
	qrs       *web.Memo[pages.QR]
	forgets   *web.Memo[forgetEntry] // by a handler round's parameters (noneSurvive)
	lab       LabParts
}

// New makes the rooms' handlers and registers their series on d.Metrics.Reg.
func New(d Deps) *Handlers {
	h := &Handlers{rooms: d.Rooms, hub: d.Hub, admit: d.Admit, book: d.Book, site: d.Site, origins: d.Origins, log: d.Log,
		rejected: d.Metrics.Rejected, creates: d.Creates, joins: d.Joins, changes: d.Changes,
		changesPerMinute: d.ChangesPerMinute, streamsPerKey: d.StreamsPerKey, conns: d.Conns, base: d.Base,
		cookies: web.Cookies{Base: d.Base, HTTPS: d.HTTPS}, stopping: make(chan struct{}), heartbeat: d.Heartbeat, checks: d.Checks,
		titles: web.NewMemo[string](1000), headlines: newHeadlines(), qrs: web.NewMemo[pages.QR](256), forgets: web.NewMemo[forgetEntry](256), lab: d.Lab,
		parts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "site_room_part_renders_total", Help: "Live parts of study rooms drawn for event streams, by part.",
		}, []string{"part"}),
		rereads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "site_room_stream_rereads_failed_total", Help: "Times a room's event stream could not re-read the room (its database out of reach) and stayed open to try again.",
		}),
	}
	if h.heartbeat == 0 {
		h.heartbeat = Heartbeat
	}
	if page, ok := d.Book.Page("predictions"); ok {
		for i, sec := range page.Sections {
			if i < len(present.QuestionSpecs) {
				h.asked = append(h.asked, pages.Asked{ID: present.QuestionSpecs[i].ID, Title: sec.Title})
			}
		}
	}
	// site_room_store_reads_total: the reads the rooms' Service has made of its store (its
	// counting decorator keeps the figure). With one reader per watched room it grows with the
	// rooms' changes, not with the number of people watching them.
	d.Metrics.Reg.MustRegister(h.rereads, h.parts, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "site_room_streams", Help: "Study room event streams open now.",
	}, func() float64 { return float64(h.streams.Load()) }), prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "site_room_store_reads_total", Help: "Reads the study rooms made of their store (rooms, members, rounds, guesses, pins).",
	}, func() float64 { return float64(d.Rooms.StoreReads()) }))
	return h
}

// sweepEvery is how often idle rooms are closed and old closed rooms deleted.
const sweepEvery = 10 * time.Minute

// Sweep closes and deletes rooms on a timer until ctx ends; reads close an idle room on the spot
// in between, so the timer only bounds how long a forgotten room takes up a slot and space.
func (h *Handlers) Sweep(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		closed, deleted, err := h.rooms.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			h.log.Warn("room sweep", "err", err)
		case closed+deleted > 0:
			h.log.Info("room sweep", "closed", closed, "deleted", deleted)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Stop ends every room stream (which graceful shutdown would otherwise wait for), the presence
// writer and the pins' headline tasks (waiting for those), and closes the rooms' rate limiters.
// It may be called more than once.
func (h *Handlers) Stop() {
	if h.stopOnce.Swap(true) {
		return
	}
	h.creates.Close()
	h.joins.Close()
	h.changes.Close()
	close(h.stopping)
	h.headlines.stop()
}

// Streams is how many room event streams are open now. A test hook (and the /metrics gauge's
// figure): tests wait on it instead of sleeping.
func (h *Handlers) Streams() int64 { return h.streams.Load() }

// Rooms is the rooms' Service the handlers serve. A test hook: benchmarks read its store reads.
func (h *Handlers) Rooms() *rooms.Service { return h.rooms }

// HeadlinesKnown is how many pins' headlines have been worked out so far. A test hook: a
// benchmark waits on it for the background runs to finish.
func (h *Handlers) HeadlinesKnown() int { return h.headlines.known.Len() }

// askedTitle is one of the five questions in the predictions page's words, for the export; its id
// when the page does not word it.
func (h *Handlers) askedTitle(id string) string {
	for _, a := range h.asked {
		if a.ID == id {
			return a.Title
		}
	}
	return id
}

// admitRun charges one run of e on p to the client of ctx (see runs.Admission).
func (h *Handlers) admitRun(ctx context.Context, e *experiments.Experiment, p any) error {
	return h.admit.Run(web.ClientOf(ctx), e, p)
}

// SetHeartbeat makes idle streams beat every d. A test hook, for tests that watch presence fade
// without waiting 20 s; it must be called before the first stream opens.
func (h *Handlers) SetHeartbeat(d time.Duration) { h.heartbeat = d }
