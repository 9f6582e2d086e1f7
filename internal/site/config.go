package site

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"effectivelyonce/internal/web"
	"effectivelyonce/lab"
	"effectivelyonce/rooms"
	"effectivelyonce/rooms/sqlstore"
)

// Config is everything the server can be told, from flags first and then the environment.
type Config struct {
	Addr       string
	BasePath   string
	ClientIP   string // "direct", "x-forwarded-for" or "x-real-ip": where the client's address comes from
	LogFormat  string // "text" or "json"
	CacheBytes int64
	MaxRuns    int           // heavy runs at once; more wait up to QueueWait, then get 503
	QueueWait  time.Duration // how long a heavy run may wait for a slot
	RunTimeout time.Duration
	RatePerSec float64 // experiment runs per client per second (sustained)
	RateBurst  int
	// RateClients bounds the addresses the rate limiter remembers: the least recently seen is
	// forgotten first, so a flood of spoofed or rotating addresses costs a fixed amount of memory.
	RateClients int
	// RoomCreatesPerHour and RoomJoinsPerMinute bound, per client address, the study rooms
	// created and the joins (and failed join-code look-ups) tried; a class behind one address
	// joins together, hence the burst of a minute's worth.
	RoomCreatesPerHour int
	RoomJoinsPerMinute int
	// ShareCreatesPerHour bounds, per client address, the workbench's shares created: each is a
	// row kept for good, so they are limited as rooms are, by the hour.
	ShareCreatesPerHour int
	// RoomChangesPerMinute bounds the changes made with one room key (guesses, pins, a host's
	// actions), with a burst of roomChangeBurst of it: every change redraws every stream of the room.
	RoomChangesPerMinute int
	// RoomStreamsPerKey bounds the event streams (tabs) one room key holds open at once; a room
	// holds at most that many per seat, and roomsweb.HostExtraStreams more for its host.
	RoomStreamsPerKey int
	// MaxConns bounds the open connections in all, MaxConnsPerClient those from one address (an
	// IPv6 /64); idle ones are closed first when a bound is reached. MaxConns 0 means "from the
	// file limit" (maxConnsDefault).
	MaxConns          int
	MaxConnsPerClient int
	// MemLimit is the Go memory limit in bytes (from GOMEMLIMIT, else from the machine's or the
	// container's memory); the heavy runs are admitted so their estimates fit under it. 0 means
	// no limit (tests).
	MemLimit       int64
	MemLimitSource string
	// DataDir holds the study rooms' SQLite file (rooms.db) when DatabaseURL is empty; with a
	// postgres:// DatabaseURL the rooms live there instead and DataDir is unused.
	DataDir     string
	DatabaseURL string
	// PublicOrigin is the scheme and host readers use ("https://eo.example.org") when the site is
	// behind a proxy: join links and QR codes are built on it, cookies are marked Secure when it
	// is https, and cross-origin protection trusts it. Empty means "what each request says".
	PublicOrigin string
	// Hosts are further hosts (host or host:port, lower case) readers reach the site at, for the
	// links it builds: without PublicOrigin, a request's Host is used only when it is the listen
	// address or one of these (see origins).
	Hosts []string
	// Rooms holds the study rooms' limits and lifetimes; zero fields take rooms' defaults.
	Rooms rooms.Config
	// LabOff turns the live lab off (LAB=off): a public instance may not want readers forking
	// worker processes and running a broker on it. The zero value is on, as LAB's default is.
	LabOff bool
	// LabMaxJobs bounds the jobs of one lab run below lab.MaxJobs; 0 means lab.MaxJobs.
	LabMaxJobs int
	// LabNATSURL is an existing NATS server with JetStream for the lab instead of the embedded one.
	LabNATSURL string
	// LabRunsPerHour bounds the lab runs one client address starts in an hour: each forks worker
	// processes (thousands, at a crash rate of 1) and a broker. 0 (tests only) means no bound.
	LabRunsPerHour int
	// spreadPace slows every run of a spread over seeds by this much. Only tests set it, so that a
	// browser can press Cancel halfway without depending on how fast the machine is.
	spreadPace time.Duration
}

// labMaxJobs is the bound on one lab run's jobs, its default filled in.
func (c Config) labMaxJobs() int {
	if c.LabMaxJobs == 0 {
		return lab.MaxJobs
	}
	return c.LabMaxJobs
}

// RoomsDSN is where the study rooms are stored: the Postgres URL when one is set, else the SQLite
// file in the data directory.
func (c Config) RoomsDSN() string {
	if c.DatabaseURL != "" {
		return c.DatabaseURL
	}
	return filepath.Join(c.DataDir, sqlstore.FileName)
}

// LoadConfig reads the configuration from the flags in args, each defaulting to its environment
// variable (getenv), and refuses a value it cannot use with a message naming it; stderr takes the
// flags' usage.
func LoadConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	env := func(k, def string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return def
	}
	ev := &envValues{getenv: getenv}
	envInt, envFloat, envDuration := ev.int, ev.float, ev.duration
	fs := flag.NewFlagSet("site serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c Config
	fs.StringVar(&c.Addr, "addr", env("ADDR", "127.0.0.1:8080"), "listen address (env ADDR)")
	fs.StringVar(&c.BasePath, "base-path", env("BASE_PATH", ""), "serve under this path prefix, e.g. /notebook (env BASE_PATH)")
	fs.StringVar(&c.ClientIP, "client-ip", env("CLIENT_IP", "direct"), "client address source: direct, x-forwarded-for, x-real-ip (env CLIENT_IP)")
	fs.StringVar(&c.LogFormat, "log-format", env("LOG_FORMAT", "text"), "request log format: text or json (env LOG_FORMAT)")
	cacheMB := fs.Int("cache-mb", envInt("CACHE_MB", 64), "result cache size in MB (env CACHE_MB)")
	fs.IntVar(&c.MaxRuns, "max-runs", envInt("MAX_RUNS", maxRunsDefault()), "heavy experiment runs at once (env MAX_RUNS)")
	fs.DurationVar(&c.QueueWait, "queue-wait", envDuration("QUEUE_WAIT", 2*time.Second), "how long a heavy run waits for a slot before 503 (env QUEUE_WAIT)")
	fs.DurationVar(&c.RunTimeout, "run-timeout", envDuration("RUN_TIMEOUT", 10*time.Second), "deadline of one experiment run (env RUN_TIMEOUT)")
	fs.Float64Var(&c.RatePerSec, "rate", envFloat("RATE", 20), "experiment runs per client address per second (env RATE)")
	fs.IntVar(&c.RateBurst, "burst", envInt("BURST", 60), "burst of experiment runs per client address (env BURST)")
	fs.IntVar(&c.RoomCreatesPerHour, "room-creates-per-hour", envInt("ROOM_CREATES_PER_HOUR", 10), "study rooms one client address may create in an hour (env ROOM_CREATES_PER_HOUR)")
	fs.IntVar(&c.ShareCreatesPerHour, "share-creates-per-hour", envInt("SHARE_CREATES_PER_HOUR", 30), "workbench handlers one client address may share in an hour (env SHARE_CREATES_PER_HOUR)")
	fs.IntVar(&c.RoomJoinsPerMinute, "room-joins-per-minute", envInt("ROOM_JOINS_PER_MINUTE", 60), "room joins and failed join-code look-ups one client address may try in a minute (env ROOM_JOINS_PER_MINUTE)")
	fs.IntVar(&c.RoomChangesPerMinute, "room-changes-per-minute", envInt("ROOM_CHANGES_PER_MINUTE", 60), "changes (guesses included) one room key may make in a minute (env ROOM_CHANGES_PER_MINUTE)")
	fs.IntVar(&c.RoomStreamsPerKey, "room-streams-per-key", envInt("ROOM_STREAMS_PER_KEY", 4), "live event streams (tabs) one room key may hold open; a newer one ends the oldest (env ROOM_STREAMS_PER_KEY)")
	fs.IntVar(&c.RateClients, "rate-clients", envInt("RATE_CLIENTS", 100_000), "client addresses the rate limiter remembers at most (env RATE_CLIENTS)")
	fs.IntVar(&c.MaxConns, "max-conns", envInt("MAX_CONNS", 0), "open connections in all; 0 derives it from the file limit (env MAX_CONNS)")
	fs.IntVar(&c.MaxConnsPerClient, "max-conns-per-client", envInt("MAX_CONNS_PER_CLIENT", 256), "open connections from one client address (env MAX_CONNS_PER_CLIENT)")
	fs.StringVar(&c.DataDir, "data-dir", env("DATA_DIR", "./data"), "directory of the study rooms' SQLite file (env DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", env("DATABASE_URL", ""), "postgres:// URL for the study rooms instead of SQLite (env DATABASE_URL)")
	fs.StringVar(&c.PublicOrigin, "public-origin", env("PUBLIC_ORIGIN", ""), "scheme and host readers reach the site at behind a proxy, e.g. https://eo.example.org (env PUBLIC_ORIGIN)")
	hosts := fs.String("hosts", env("HOSTS", ""), "other hosts readers reach the site at (host or host:port, comma-separated); join links use a request's host only when it is one of these or the listen address (env HOSTS)")
	fs.IntVar(&c.Rooms.MaxMembers, "room-members", envInt("ROOM_MEMBERS", 100), "members one study room seats (env ROOM_MEMBERS)")
	fs.IntVar(&c.Rooms.MaxOpenRooms, "open-rooms", envInt("OPEN_ROOMS", 200), "study rooms open at once on this instance (env OPEN_ROOMS)")
	fs.IntVar(&c.Rooms.MaxPins, "room-pins", envInt("ROOM_PINS", 20), "pins one member may put on a room's board (env ROOM_PINS)")
	fs.IntVar(&c.Rooms.MaxBoard, "room-board", envInt("ROOM_BOARD", 200), "pins a room's board holds from all its members (env ROOM_BOARD)")
	fs.IntVar(&c.Rooms.MaxRounds, "room-rounds", envInt("ROOM_ROUNDS", 100), "rounds one study room may ask (env ROOM_ROUNDS)")
	fs.DurationVar(&c.Rooms.IdleClose, "room-idle-close", envDuration("ROOM_IDLE_CLOSE", 24*time.Hour), "a study room closes after this long without activity (env ROOM_IDLE_CLOSE)")
	fs.DurationVar(&c.Rooms.UnjoinedClose, "room-unjoined-close", envDuration("ROOM_UNJOINED_CLOSE", time.Hour), "a study room nobody has joined closes after this long without activity (env ROOM_UNJOINED_CLOSE)")
	fs.DurationVar(&c.Rooms.DeleteAfter, "room-delete-after", envDuration("ROOM_DELETE_AFTER", 30*24*time.Hour), "a closed study room is deleted this long after its last activity (env ROOM_DELETE_AFTER)")
	labOn := fs.String("lab", env("LAB", "on"), "the live lab at /lab: on or off (env LAB)")
	fs.IntVar(&c.LabMaxJobs, "lab-max-jobs", envInt("LAB_MAX_JOBS", lab.MaxJobs), fmt.Sprintf("jobs one lab run may ask for, at most %d (env LAB_MAX_JOBS)", lab.MaxJobs))
	fs.IntVar(&c.LabRunsPerHour, "lab-runs-per-hour", envInt("LAB_RUNS_PER_HOUR", 30), "lab runs one client address may start in an hour (env LAB_RUNS_PER_HOUR)")
	fs.StringVar(&c.LabNATSURL, "lab-nats-url", env("LAB_NATS_URL", ""), "nats:// URL of an existing NATS server with JetStream for the lab instead of the embedded one (env LAB_NATS_URL)")
	if err := fs.Parse(args); err != nil {
		return Config{}, err
	}
	if len(ev.errs) > 0 {
		return Config{}, errors.Join(ev.errs...)
	}
	if fs.NArg() > 0 {
		return Config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c.CacheBytes = int64(*cacheMB) << 20
	c.BasePath = strings.TrimSuffix(c.BasePath, "/")
	if c.BasePath != "" && !strings.HasPrefix(c.BasePath, "/") {
		return Config{}, fmt.Errorf("base path %q must start with /", c.BasePath)
	}
	switch c.ClientIP {
	case "direct", "x-forwarded-for", "x-real-ip":
	default:
		return Config{}, fmt.Errorf("client-ip %q: want direct, x-forwarded-for or x-real-ip", c.ClientIP)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return Config{}, fmt.Errorf("log-format %q: want text or json", c.LogFormat)
	}
	if c.MaxRuns < 1 || c.CacheBytes < 1<<20 || !(c.RatePerSec >= 0.001 && c.RatePerSec <= 1e6) || c.RateBurst < 1 || c.RateClients < 1 || c.RoomCreatesPerHour < 1 || c.ShareCreatesPerHour < 1 || c.RoomJoinsPerMinute < 1 || c.RoomChangesPerMinute < 1 || c.RoomStreamsPerKey < 1 || c.MaxConnsPerClient < 1 || c.MaxConns < 0 {
		return Config{}, fmt.Errorf("max-runs, cache-mb, burst, rate-clients, room-creates-per-hour, share-creates-per-hour, room-joins-per-minute, room-changes-per-minute, room-streams-per-key and max-conns-per-client must be positive, and rate a number from 0.001 to 1,000,000")
	}
	if c.DatabaseURL != "" && !strings.HasPrefix(c.DatabaseURL, "postgres://") && !strings.HasPrefix(c.DatabaseURL, "postgresql://") {
		// Said without the URL itself, which carries a password.
		return Config{}, fmt.Errorf("database-url: want a postgres:// or postgresql:// URL")
	}
	if c.Rooms.MaxMembers < 1 || c.Rooms.MaxOpenRooms < 1 || c.Rooms.MaxPins < 1 || c.Rooms.IdleClose < time.Minute || c.Rooms.DeleteAfter < c.Rooms.IdleClose ||
		c.Rooms.UnjoinedClose < time.Minute || c.Rooms.UnjoinedClose > c.Rooms.IdleClose {
		return Config{}, fmt.Errorf("room-members, open-rooms and room-pins must be positive, room-idle-close at least 1m, room-unjoined-close from 1m to room-idle-close, and room-delete-after at least room-idle-close")
	}
	if err := c.Rooms.Validate(); err != nil {
		return Config{}, fmt.Errorf("room-members: a room seats at most %d, a lecture hall with room to spare (%w)", rooms.MaxMembersLimit, err)
	}
	if c.Rooms.MaxBoard < 1 || c.Rooms.MaxRounds < 1 {
		return Config{}, fmt.Errorf("room-board and room-rounds must be positive")
	}
	if c.PublicOrigin != "" {
		u, err := url.Parse(c.PublicOrigin)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
			return Config{}, fmt.Errorf("public-origin %q: want a scheme and host only, like https://eo.example.org", c.PublicOrigin)
		}
		c.PublicOrigin = u.Scheme + "://" + u.Host
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h == "" && strings.TrimSpace(*hosts) == "" {
			continue
		}
		if !web.ValidHost(h) {
			return Config{}, fmt.Errorf("hosts %q: want host names or host:port pairs, comma-separated, like eo.example.org,10.0.0.5:8080", h)
		}
		c.Hosts = append(c.Hosts, web.HostPort(h))
	}
	switch *labOn {
	case "on":
	case "off":
		c.LabOff = true
	default:
		return Config{}, fmt.Errorf("lab %q: want on or off", *labOn)
	}
	if c.LabMaxJobs < 1 || c.LabMaxJobs > lab.MaxJobs {
		return Config{}, fmt.Errorf("lab-max-jobs %d: want 1 to %d", c.LabMaxJobs, lab.MaxJobs)
	}
	if c.LabRunsPerHour < 1 {
		return Config{}, fmt.Errorf("lab-runs-per-hour %d: want at least 1", c.LabRunsPerHour)
	}
	if c.LabNATSURL != "" {
		u, err := url.Parse(c.LabNATSURL)
		if err != nil || (u.Scheme != "nats" && u.Scheme != "tls") || u.Host == "" {
			// Said without the URL itself, which may carry a password.
			return Config{}, fmt.Errorf("lab-nats-url: want a nats:// or tls:// URL with a host")
		}
	}
	if c.DatabaseURL == "" && c.DataDir == "" {
		return Config{}, fmt.Errorf("data-dir: must not be empty")
	}
	var err error
	if c.MemLimit, c.MemLimitSource, err = memoryLimit(getenv); err != nil {
		return Config{}, err
	}
	return c, nil
}

// envValues reads typed settings from the environment. A value that does not parse is kept as an
// error naming the variable and the value, and loadConfig refuses to start with it: running on the
// default instead (MAX_RUNS=four serving with the default) would hide the mistake until it hurt.
type envValues struct {
	getenv func(string) string
	errs   []error
}

// envRead parses the variable k with parse when it is set, else answers def; want says what a
// value should look like, for the error.
func envRead[T any](e *envValues, k string, def T, parse func(string) (T, error), want string) T {
	raw := e.getenv(k)
	if raw == "" {
		return def
	}
	v, err := parse(strings.TrimSpace(raw))
	if err != nil {
		e.errs = append(e.errs, fmt.Errorf("%s=%q: want %s", k, raw, want))
		return def
	}
	return v
}

func (e *envValues) int(k string, def int) int {
	return envRead(e, k, def, strconv.Atoi, "a whole number")
}

func (e *envValues) float(k string, def float64) float64 {
	return envRead(e, k, def, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }, "a number")
}

func (e *envValues) duration(k string, def time.Duration) time.Duration {
	return envRead(e, k, def, time.ParseDuration, "a duration such as 90s, 10m or 24h")
}

// maxRunsDefault leaves one core for reading pages when there are several: heavy reruns then never
// starve page views of CPU.
func maxRunsDefault() int { return max(1, runtime.NumCPU()-1) }
