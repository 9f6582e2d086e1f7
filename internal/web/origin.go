package web

import (
	"cmp"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
)

// Origins is where the absolute links the site hands out (a room's join link and its QR code, the
// host link) take their scheme and host from. A request's Host header is the visitor's to write,
// so it is used only when it names a host the server answers for: PUBLIC_ORIGIN, when set, always
// wins; otherwise the addresses the server listens on (every address of the machine's interfaces
// for an unspecified one such as 0.0.0.0, and localhost for a loopback one) and the hosts HOSTS
// names. Any other Host gets links to the first of those, so "Host: evil.example" never puts
// evil.example on a projector or in an API answer.
type Origins struct {
	public     string // PUBLIC_ORIGIN, "" when unset
	configured string // the first host HOSTS names, as an origin, or ""
	addr       string // the configured listen address, as an origin, until a listener says more

	mu     sync.RWMutex
	hosts  map[string]bool // normalised host[:port] the server answers for
	listen string          // the first listener's address, as an origin

	// warned makes the server say once in its log that links named another host than the one a
	// reader used: behind a port mapping (Docker) that is the hint to set PUBLIC_ORIGIN or HOSTS.
	warned sync.Once
}

// WarnOnce runs warn the first time it is called: the log says once that links named another
// host than a reader used, the hint behind a port mapping (Docker) to set PUBLIC_ORIGIN or HOSTS.
func (o *Origins) WarnOnce(warn func()) { o.warned.Do(warn) }

// NewOrigins starts from the configuration (PUBLIC_ORIGIN, the listen address, HOSTS); Listening
// adds the real listen addresses once known.
func NewOrigins(public, listenAddr string, hosts []string) *Origins {
	o := &Origins{public: public, addr: "http://" + listenAddr, hosts: map[string]bool{}}
	for _, h := range hosts {
		o.hosts[h] = true
		if o.configured == "" {
			o.configured = "http://" + h
		}
	}
	return o
}

// Listening records an address the server accepts connections on (its port is known only once it
// listens: -addr :0 in tests), with localhost beside a loopback address and every address of the
// machine for an unspecified one.
func (o *Origins) Listening(addr net.Addr) {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return
	}
	ips := []netip.Addr{ap.Addr().Unmap()}
	if ap.Addr().IsUnspecified() {
		ips = interfaceAddrs()
	}
	port := strconv.Itoa(int(ap.Port()))
	o.mu.Lock()
	defer o.mu.Unlock()
	first, firstLoopback := "", false
	for _, ip := range ips {
		h := HostPort(net.JoinHostPort(ip.String(), port))
		o.hosts[h] = true
		if ip.IsLoopback() {
			o.hosts[HostPort(net.JoinHostPort("localhost", port))] = true
		}
		// Links for an unknown Host go to an address others can reach, where there is one.
		if first == "" || (firstLoopback && !ip.IsLoopback()) {
			first, firstLoopback = h, ip.IsLoopback()
		}
	}
	if o.listen == "" && first != "" {
		o.listen = "http://" + first
	}
}

// Fallback is the origin of links answering a Host the server does not answer for.
func (o *Origins) Fallback() string {
	return cmp.Or(o.configured, o.listen, o.addr)
}

// Of is the origin ("http://host:port") links on an answer to r are built on; known is false when
// r's Host was not one the server answers for, and the links fell back to another.
func (o *Origins) Of(r *http.Request) (origin string, known bool) {
	if o.public != "" {
		return o.public, true
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	h := HostPort(r.Host)
	if scheme == "https" {
		h = strings.TrimSuffix(h, ":443")
	}
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.hosts[h] {
		return scheme + "://" + h, true
	}
	return o.Fallback(), false
}

// HostPort normalises a host with an optional port as a Host header carries it: lower case, no
// trailing dot on the name, and no port when it is HTTP's default, so "Eo.Example:80" and
// "eo.example" are the same host.
func HostPort(h string) string {
	h = strings.ToLower(h)
	name, port, err := net.SplitHostPort(h)
	if err != nil {
		return strings.TrimSuffix(h, ".")
	}
	name = strings.TrimSuffix(name, ".")
	if port == "80" {
		if strings.Contains(name, ":") {
			return "[" + name + "]"
		}
		return name
	}
	return net.JoinHostPort(name, port)
}

// ValidHost reports whether h is a host, with an optional port, and nothing else: no scheme, path,
// user or space, as HOSTS entries must be.
func ValidHost(h string) bool {
	if h == "" || strings.ContainsAny(h, "/?#@ \t") {
		return false
	}
	name := h
	if n, _, err := net.SplitHostPort(h); err == nil {
		name = n
	}
	return name != ""
}

// interfaceAddrs lists the machine's own addresses, for a server listening on all of them.
func interfaceAddrs() []netip.Addr {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}
	}
	var out []netip.Addr
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && !p.Addr().IsLinkLocalUnicast() {
			out = append(out, p.Addr().Unmap())
		}
	}
	return out
}
