package live

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// channel is the one LISTEN/NOTIFY channel every replica shares; the payload is the room ID.
// NOTIFY is scoped to a database, not a schema, so deployments that share a database (each in
// its own search_path) also share this channel: they wake each other's streams for rooms they do
// not have, which costs a re-read and nothing else since room IDs are random.
const channel = "eo_rooms"

const (
	// A room change is a few bytes to the database; if it takes longer than this the database is
	// in trouble and the request that changed the room should not wait on it any longer.
	publishTimeout = 5 * time.Second
	// Publishes are one short statement each, so a few connections absorb a burst of answers
	// without crowding max_connections, which every replica and the store's own pool share.
	publishConns = 4
	// A ping (see pingEvery) that takes this long means the connection is as good as gone.
	pingTimeout = 10 * time.Second
	// A black-holed host would otherwise keep one reconnect attempt pending for as long as the
	// kernel allows; bounding it keeps the backoff and its log lines moving.
	connectTimeout = 10 * time.Second
	// Reconnect delays: short at first because most drops are a server restart or a failover
	// that ends within seconds, and capped at a second, so that a replica hears the others again
	// within about a second of the database's return however long the outage was (with a cap of
	// 30 s, a replica stayed deaf for up to 21 s after a 30 s outage). An attempt is one connect to
	// a server that is down, cheap for both sides; the jitter keeps replicas from arriving together.
	minBackoff = 250 * time.Millisecond
	maxBackoff = time.Second
	// logEvery is how many failed attempts go by between two log lines during a long outage.
	logEvery = 30
	// Closing a connection sends one Terminate message; a dead peer must not hold Close.
	closeConnTimeout = time.Second
)

// pingEvery is how long the listener waits for a notification before it proves the connection
// alive with a ping: a connection to a vanished server can look idle forever (no FIN, no RST).
// A variable only so that a test can make quiet spells short.
var pingEvery = 30 * time.Second

// Postgres is the hub for replicas that share one Postgres database: Publish sends NOTIFY, and a
// dedicated connection per replica LISTENs and hands each room ID to that replica's own
// subscribers through an embedded [Local]. A replica therefore hears its own publishes back from
// the database, which keeps one path, and one signal per change, for every stream.
type Postgres struct {
	local *Local
	// pool sends the NOTIFYs; the listening connection cannot, since it spends its life blocked
	// in WaitForNotification and a pgx.Conn serves one caller at a time.
	pool *pgxpool.Pool
	dsn  string
	log  *slog.Logger

	stop      context.CancelFunc // ends the listen loop
	done      chan struct{}      // closed when the listen loop has returned its connection
	closeOnce sync.Once

	// pid is the backend process that holds our LISTEN, so that a log line can be matched with
	// pg_stat_activity and a test can cut exactly this connection.
	pid atomic.Uint32
	// failures counts the reconnect attempts that failed, for a test that waits out an outage.
	failures atomic.Int64
}

// NewPostgres connects to the database dsn names (a postgres:// URL or key=value string, passed
// to pgx as is, so host= socket directories and search_path work) and starts listening. It fails
// if the first connection or LISTEN fails, so that a wrong DATABASE_URL stops the server at
// start instead of silently freezing every live page. Later drops are retried in the background
// and logged on log (slog.Default() when nil). ctx bounds only this first connection.
func NewPostgres(ctx context.Context, dsn string, log *slog.Logger) (*Postgres, error) {
	if log == nil {
		log = slog.Default()
	}
	conn, err := listen(ctx, dsn)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("live: parse database URL: %w", err)
	}
	cfg.MaxConns = publishConns
	// The pool connects lazily, on the first Publish: the listener has just proved the URL.
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("live: publish pool: %w", err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	p := &Postgres{
		local: NewLocal(),
		pool:  pool,
		dsn:   dsn,
		log:   log,
		stop:  stop,
		done:  make(chan struct{}),
	}
	p.pid.Store(conn.PgConn().PID())
	go p.run(runCtx, conn)
	return p, nil
}

// listen opens the dedicated connection and subscribes it to the channel.
func listen(ctx context.Context, dsn string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("live: connect to Postgres: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+channel); err != nil {
		closeConn(conn)
		return nil, fmt.Errorf("live: LISTEN %s: %w", channel, err)
	}
	return conn, nil
}

// closeConn closes without the caller's context, which is often already canceled: a canceled
// context makes pgx drop the socket without saying goodbye, and the server would log an
// unexpected EOF for every replica that shut down cleanly.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), closeConnTimeout)
	defer cancel()
	_ = conn.Close(ctx)
}

// Publish sends NOTIFY so that every replica, this one included, wakes its subscribers of
// roomID. If the database refuses, this replica's own subscribers are still woken, since the
// change they would miss may well have been committed, and the error is returned for the caller
// to log; the room change itself should not fail for it.
func (p *Postgres) Publish(ctx context.Context, roomID string) error {
	if p.local.isClosed() {
		return ErrClosed
	}
	ctx, cancel := context.WithTimeout(ctx, publishTimeout)
	defer cancel()
	if _, err := p.pool.Exec(ctx, "SELECT pg_notify($1, $2)", channel, roomID); err != nil {
		_ = p.local.Publish(ctx, roomID)
		return fmt.Errorf("live: notify room %s: %w", roomID, err)
	}
	return nil
}

// Subscribe registers a stream for roomID on this replica; see [Local.Subscribe].
func (p *Postgres) Subscribe(roomID string) (<-chan struct{}, func()) {
	return p.local.Subscribe(roomID)
}

// Close ends every stream first, so that shutdown is not held by open pages, then stops the
// listen loop and closes both the listening connection and the publish pool. It returns once
// they are closed: at most a few seconds even against a dead server, since every step it waits
// on is bounded (an in-flight Publish by publishTimeout). Closing twice is harmless.
func (p *Postgres) Close() error {
	p.closeOnce.Do(func() {
		_ = p.local.Close()
		p.stop()
		<-p.done
		p.pool.Close()
	})
	return nil
}

// run owns the listening connection for the hub's life: it dispatches notifications until the
// connection fails, then reconnects with backoff, and after every reconnection wakes every
// local subscriber, because whatever was notified while we were away was lost and the only way
// to catch up is for each stream to re-read its room.
func (p *Postgres) run(ctx context.Context, conn *pgx.Conn) {
	defer close(p.done)
	for {
		err := p.receive(ctx, conn)
		closeConn(conn)
		if ctx.Err() != nil {
			return
		}
		p.log.Warn("live: lost the Postgres LISTEN connection; live pages on this replica miss changes until it is back",
			"pid", p.pid.Load(), "err", err)
		conn = p.reconnect(ctx)
		if conn == nil {
			return
		}
		p.pid.Store(conn.PgConn().PID())
		p.log.Info("live: listening on Postgres again; waking every live page on this replica to re-read",
			"pid", p.pid.Load())
		p.local.wakeAll()
	}
}

// receive dispatches notifications until the connection fails or ctx ends. It returns the
// reason.
func (p *Postgres) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		wctx, cancel := context.WithTimeout(ctx, pingEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		if n != nil && n.Channel == channel {
			_ = p.local.Publish(ctx, n.Payload)
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return ctx.Err()
		case pgconn.Timeout(err):
			// A quiet spell, not a failure: pgx leaves the connection usable after a timed-out
			// wait, so check it still reaches the server. Notifications that arrive during the
			// ping are buffered by pgx and returned by the next wait.
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return fmt.Errorf("ping after %s without notifications: %w", pingEvery, err)
			}
		default:
			return err
		}
	}
}

// reconnect retries until it has a listening connection or ctx ends (then it returns nil). The
// delay doubles up to maxBackoff, with jitter so that replicas cut off by the same restart do
// not all knock on the recovered server at the same instant.
func (p *Postgres) reconnect(ctx context.Context) *pgx.Conn {
	delay := minBackoff
	for attempt := 1; ; attempt++ {
		wait := delay/2 + rand.N(delay/2+1)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		conn, err := listen(ctx, p.dsn)
		if err == nil {
			return conn
		}
		if ctx.Err() != nil {
			return nil
		}
		delay = min(delay*2, maxBackoff)
		p.failures.Add(1)
		if attempt%logEvery == 1 {
			p.log.Warn("live: reconnecting to Postgres failed", "attempt", attempt, "retry_within", delay, "err", err)
		}
	}
}
