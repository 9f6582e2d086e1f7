package live

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"effectivelyonce/rooms"
)

// A room's streams never read the store themselves. Per replica and per room, one reader listens
// to the hub, takes one [rooms.Snapshot] of the room per change and hands it to every stream of
// the room, which derives its own caller's view from it in memory. A burst of changes costs one
// read in flight and at most one more (the hub keeps one pending signal, whatever the burst), and
// the cost of a change no longer grows with the number of people watching.

// ReadFunc reads one room whole; the rooms Service's Snapshot is the one the site uses.
type ReadFunc func(ctx context.Context, roomID string) (rooms.Snapshot, error)

// ReadersConfig tunes a [Readers]; a zero field takes its default.
type ReadersConfig struct {
	// Retry is how soon a reader tries again after the store was out of reach (1 s): the streams
	// keep what they show meanwhile and are right again within about this long of its return.
	Retry time.Duration
	// Refresh is how often a reader re-reads a room that nobody changed (5 min): it heals what a
	// lost notification or a replica that died without a word would leave stale (a member who
	// left through it, a room closed for idleness), for a handful of reads per room per Refresh.
	Refresh time.Duration
	// Unavailable hears of every read that failed because the store was out of reach, for a metric.
	Unavailable func()
	// Gap is the least time between the starts of two reads of a room (100 ms): a class answering
	// together makes hundreds of changes a second, and every snapshot is drawn by every stream, so
	// the changes of one gap are read, and drawn, once.
	Gap time.Duration
	// Draws is how many frames the replica's streams may draw in a second between them (5,000):
	// when the rooms read in the last second hold more streams than Gap leaves room for, every
	// room's gap widens to those streams over Draws. Fifty rooms of thirty answering at once made
	// 15,000 drawings a second at 100 ms, and two cores spent on them left the answers themselves
	// waiting for seconds; at 300 ms a change still reaches every screen well within a second.
	// Rooms nobody changes do not count: a reveal in one room of a replica of quiet rooms is read
	// at Gap.
	Draws int
	// Idle, when set, hears each time a room's reader has nothing left to do and waits (see Idle).
	// It is called on the reader's goroutine and must not block. Tests wait on it, rather than
	// sleeping, to learn that no further read is coming.
	Idle func(Idle)
}

// Idle is what a room's reader reports when nothing is pending (no change, nudge or due timer)
// and it waits for the next cause to read: what it last read, and what it has scheduled. Besides
// these it only ever wakes for a change, a nudge or the Refresh period.
type Idle struct {
	Room string
	Read uint64 // the number of the last read begun, counted from 1
	// Deadline is when the earliest running countdown of the last snapshot runs out and the reader
	// reads again (a moment after); zero when no countdown runs.
	Deadline time.Time
	// Retry is when a read that found the store out of reach is made again; zero when none failed.
	Retry time.Time
}

// Readers holds this replica's room readers: one per room that has at least one stream, started
// by the room's first subscriber and stopped with its last.
type Readers struct {
	hub  Hub
	read ReadFunc
	cfg  ReadersConfig

	mu    sync.Mutex
	rooms map[string]*reader
	paced atomic.Pointer[pace] // the last gap worked out, reused for a moment
}

// pace is a gap between reads worked out at a time.
type pace struct {
	gap time.Duration
	at  time.Time
}

// busyWindow is how recently a room must have been read for its streams to count as drawing.
const busyWindow = time.Second

// gap is the least time between the starts of two reads of a room now (see ReadersConfig.Draws).
// Working it out visits every room, so it is worked out again only once Gap has passed.
func (rs *Readers) gap() time.Duration {
	now := time.Now()
	if p := rs.paced.Load(); p != nil && now.Sub(p.at) < rs.cfg.Gap {
		return p.gap
	}
	p := &pace{gap: rs.pace(now), at: now}
	rs.paced.Store(p)
	return p.gap
}

// pace works out the gap as of now: Gap, or the streams of the rooms read within busyWindow over
// Draws when that is longer.
func (rs *Readers) pace(now time.Time) time.Duration {
	busy := 0
	rs.mu.Lock()
	for _, r := range rs.rooms {
		r.mu.Lock()
		if now.Sub(r.readAt) < busyWindow {
			busy += len(r.watches)
		}
		r.mu.Unlock()
	}
	rs.mu.Unlock()
	return max(rs.cfg.Gap, time.Duration(busy)*time.Second/time.Duration(rs.cfg.Draws))
}

// NewReaders answers the readers of this replica, woken by hub and reading rooms with read.
func NewReaders(hub Hub, read ReadFunc, cfg ReadersConfig) *Readers {
	if cfg.Retry <= 0 {
		cfg.Retry = time.Second
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = 5 * time.Minute
	}
	if cfg.Gap <= 0 {
		cfg.Gap = 100 * time.Millisecond
	}
	if cfg.Draws <= 0 {
		cfg.Draws = 5000
	}
	return &Readers{hub: hub, read: read, cfg: cfg, rooms: map[string]*reader{}}
}

// Frame is what a room's reader hands its streams: the room's latest snapshot, or the error that
// ends its streams (the room is gone). Gen is the number of the read that made it, counted from 1.
// Shared goes with a snapshot: what the streams of the room work out alike from it.
type Frame struct {
	Snapshot *rooms.Snapshot
	Err      error
	Gen      uint64
	Shared   *Shared
}

// Shared is what the streams of a room work out alike from one snapshot (the web layer keeps there
// the parts it drew, by the key of what each was drawn from), kept with the frame so that each is
// worked out once for the whole room, not once per stream, and dropped with the frame.
type Shared struct {
	m sync.Map // key to *sharedEntry
}

type sharedEntry struct {
	once sync.Once
	v    any
}

// Do answers what is kept under key, making it with make when nothing is yet. Streams that ask
// for one key at once share one call of make: the others wait for it, since making it again is
// what Shared is there to save. A nil Shared keeps nothing and calls make every time.
func (s *Shared) Do(key any, make func() any) any {
	if s == nil {
		return make()
	}
	e, ok := s.m.Load(key)
	if !ok {
		e, _ = s.m.LoadOrStore(key, &sharedEntry{})
	}
	en := e.(*sharedEntry)
	en.once.Do(func() { en.v = make() })
	return en.v
}

// reader is one room's reader: its goroutine, its streams and the latest frame it read.
type reader struct {
	id    string
	stop  chan struct{}
	nudge chan struct{} // a stream asking for a read sooner than the next change

	mu       sync.Mutex
	watches  map[*Watch]struct{}
	latest   Frame
	started  uint64    // reads begun so far
	readAt   time.Time // when the last read began
	finished bool      // the hub closed: the room's streams end
}

// Watch is one stream's subscription to its room's reader.
type Watch struct {
	// C receives a value when a newer frame is ready, at most one pending at a time, so a slow
	// stream draws only the newest; it is closed when the hub closes (the server stopping).
	C   <-chan struct{}
	ch  chan struct{}
	r   *reader
	gen uint64 // reads begun before the watch began
}

// Subscribe registers a stream of roomID, starting the room's reader if it is the first. The
// watch's channel fires at once when the reader already holds a frame. cancel ends the watch (and
// the reader with the room's last stream); it may be called more than once.
func (rs *Readers) Subscribe(roomID string) (*Watch, func()) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r := rs.rooms[roomID]
	if r == nil {
		r = &reader{id: roomID, stop: make(chan struct{}), nudge: make(chan struct{}, 1), watches: map[*Watch]struct{}{}}
		rs.rooms[roomID] = r
		// The reader subscribes to the hub before its first read, so no change can fall between.
		changes, unsubscribe := rs.hub.Subscribe(roomID)
		go rs.run(r, changes, unsubscribe)
	}
	ch := make(chan struct{}, 1)
	w := &Watch{C: ch, ch: ch, r: r}
	r.mu.Lock()
	w.gen = r.started
	if r.finished {
		close(ch)
	} else {
		r.watches[w] = struct{}{}
		if r.latest.Gen > 0 {
			ch <- struct{}{}
		}
	}
	r.mu.Unlock()
	var once sync.Once
	return w, func() { once.Do(func() { rs.unsubscribe(r, w) }) }
}

// unsubscribe removes w, and stops the room's reader when w was its last stream.
func (rs *Readers) unsubscribe(r *reader, w *Watch) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r.mu.Lock()
	_, held := r.watches[w]
	delete(r.watches, w)
	empty := len(r.watches) == 0
	r.mu.Unlock()
	if held && empty && rs.rooms[r.id] == r {
		delete(rs.rooms, r.id)
		close(r.stop)
	}
}

// Running answers how many rooms have a reader now, for a test or a figure.
func (rs *Readers) Running() int {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return len(rs.rooms)
}

// Latest answers the newest frame of the watch's room; a zero Gen means none is ready yet.
func (w *Watch) Latest() Frame {
	w.r.mu.Lock()
	defer w.r.mu.Unlock()
	return w.r.latest
}

// Fresh reports whether f was read after the watch began. A stream that identified its caller
// from the store just before subscribing trusts only such a frame to refuse that caller: an older
// one may predate their seat (a join, a new host key) by a moment.
func (w *Watch) Fresh(f Frame) bool { return f.Gen > w.gen }

// Refresh asks the room's reader for a read now, as a change would; requests coalesce.
func (w *Watch) Refresh() {
	select {
	case w.r.nudge <- struct{}{}:
	default:
	}
}

// run is a room's reader: one read at the start, then one per change, retry or refresh, until the
// room's last stream goes (stop) or the hub closes.
func (rs *Readers) run(r *reader, changes <-chan struct{}, unsubscribe func()) {
	defer unsubscribe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-r.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	var retryAt, deadlineAt time.Time // when each timer is set to fire; zero when stopped
	refresh := time.NewTicker(rs.cfg.Refresh)
	defer refresh.Stop()
	// deadline fires when the earliest countdown of the last snapshot runs out. Nothing is written
	// at zero, so no change would announce it: the reader reads the room again then, and every
	// stream draws the round locked.
	deadline := time.NewTimer(time.Hour)
	deadline.Stop()
	defer deadline.Stop()
	var last time.Time
	// pause keeps Gap between two reads, taking in every signal that arrives meanwhile (the read
	// after it covers them); false means the reader is to stop.
	pause := func() bool {
		gap := time.NewTimer(time.Until(last.Add(rs.gap())))
		defer gap.Stop()
		select {
		case <-r.stop:
			return false
		case <-gap.C:
		}
		select {
		case _, open := <-changes:
			if !open {
				rs.finish(r)
				return false
			}
		default:
		}
		return true
	}
	read := func() {
		last = time.Now()
		r.mu.Lock()
		r.started++
		r.readAt = last
		gen := r.started
		r.mu.Unlock()
		sn, err := rs.read(ctx, r.id)
		switch {
		case ctx.Err() != nil:
			return
		case errors.Is(err, rooms.ErrUnavailable):
			// The streams keep what they show; the room is read again shortly and at every signal.
			if rs.cfg.Unavailable != nil {
				rs.cfg.Unavailable()
			}
			retry.Reset(rs.cfg.Retry)
			retryAt = time.Now().Add(rs.cfg.Retry)
			return
		}
		f := Frame{Err: err, Gen: gen}
		if err == nil {
			f.Snapshot, f.Shared = &sn, &Shared{}
			deadline.Stop()
			deadlineAt = time.Time{}
			if at, ok := sn.NextDeadline(); ok {
				// Read against the snapshot's own clock (the Service's), a moment past zero so
				// that the read finds the time up.
				wait := at.Sub(sn.At) + deadlineMargin
				deadline.Reset(wait)
				deadlineAt = time.Now().Add(wait)
			}
		}
		r.mu.Lock()
		r.latest = f
		for w := range r.watches {
			notify(w.ch)
		}
		r.mu.Unlock()
	}
	// idle tells the Idle hook that nothing is pending, what was read last and what is scheduled.
	idle := func() {
		if rs.cfg.Idle == nil {
			return
		}
		r.mu.Lock()
		gen := r.started
		r.mu.Unlock()
		rs.cfg.Idle(Idle{Room: r.id, Read: gen, Deadline: deadlineAt, Retry: retryAt})
	}
	// next takes the next cause to read: a change, a nudge, a retry, the refresh or a countdown's
	// zero. It looks first at what is already pending; only when nothing is does it report the
	// reader idle (so a report means no read is due) and wait. false means the reader is to stop.
	// (The two selects are alike but for default: a select picks among ready cases at random, so
	// "nothing is pending" can only be learnt from a default.)
	next := func() bool {
		select {
		case <-r.stop:
			return false
		case _, open := <-changes:
			if !open {
				rs.finish(r)
				return false
			}
		case <-r.nudge:
		case <-retry.C:
			retryAt = time.Time{}
		case <-refresh.C:
		case <-deadline.C:
			deadlineAt = time.Time{}
		default:
			idle()
			select {
			case <-r.stop:
				return false
			case _, open := <-changes:
				if !open {
					rs.finish(r)
					return false
				}
			case <-r.nudge:
			case <-retry.C:
				retryAt = time.Time{}
			case <-refresh.C:
			case <-deadline.C:
				deadlineAt = time.Time{}
			}
		}
		return true
	}
	read()
	for next() && pause() {
		read()
	}
}

// deadlineMargin is how long after a countdown's zero its reader reads the room again: enough
// that the read's clock is past the deadline, too little for a person to notice.
const deadlineMargin = 20 * time.Millisecond

// finish ends every stream of a room whose hub closed, and forgets its reader, so that a stream
// starting during shutdown ends at once.
func (rs *Readers) finish(r *reader) {
	rs.mu.Lock()
	if rs.rooms[r.id] == r {
		delete(rs.rooms, r.id)
	}
	rs.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.finished = true
	for w := range r.watches {
		close(w.ch)
		delete(r.watches, w)
	}
}
