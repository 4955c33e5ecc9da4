package load

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// ErrNotLoopback is wrapped by every refusal to send load to an address
// outside the loopback ranges 127.0.0.0/8 and ::1.
var ErrNotLoopback = errors.New("not a loopback address")

// Target is a checked load target: the URL to request and the addresses
// to connect to, all of them loopback unless remote targets were allowed.
type Target struct {
	URL   *url.URL
	Addrs []netip.AddrPort // where connections go, in the resolver's order
}

// Resolver looks host names up; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// ParseURL parses a load target URL: an http:// URL with a host, an
// optional port (80 by default) and no user information or fragment.
// It does not look anything up.
func ParseURL(raw string) (*url.URL, error) {
	if raw == "" {
		return nil, errors.New("empty target URL; give one like http://127.0.0.1:8080/path")
	}
	if len(raw) > 8192 {
		return nil, fmt.Errorf("target URL is %d bytes long; the limit is 8192", len(raw))
	}
	if !strings.Contains(raw, "://") {
		return nil, fmt.Errorf("target URL %q has no scheme; write it like http://127.0.0.1:8080/path", clipS(raw))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("target URL %q: %w", clipS(raw), err)
	}
	switch u.Scheme {
	case "http":
	case "https":
		return nil, fmt.Errorf("target URL %q: https is not supported; the load generator speaks plain HTTP/1.1 (loopback targets need no TLS)", clipS(raw))
	default:
		return nil, fmt.Errorf("target URL %q: scheme %q is not http; write it like http://127.0.0.1:8080/path", clipS(raw), u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" || u.Hostname() == "" {
		return nil, fmt.Errorf("target URL %q has no host; write it like http://127.0.0.1:8080/path", clipS(raw))
	}
	if u.User != nil {
		return nil, fmt.Errorf("target URL %q carries user information; pass credentials as a header instead", clipS(raw))
	}
	if u.Fragment != "" {
		return nil, fmt.Errorf("target URL %q has a fragment, which is never sent; drop the #…", clipS(raw))
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("target URL %q: port %q is not a number between 1 and 65535", clipS(raw), p)
		}
	}
	if strings.ContainsAny(u.RequestURI(), " \r\n\x00") {
		return nil, fmt.Errorf("target URL %q: the path contains spaces or control characters", clipS(raw))
	}
	if u.Path == "" {
		u.Path = "/"
	}
	return u, nil
}

// IsLoopback reports whether a is in 127.0.0.0/8 or is ::1 (IPv4-mapped
// IPv6 forms of 127.0.0.0/8 included).
func IsLoopback(a netip.Addr) bool {
	a = a.Unmap()
	if a.Zone() != "" {
		a = a.WithZone("")
	}
	if a.Is4() {
		return a.As4()[0] == 127
	}
	return a == netip.IPv6Loopback()
}

// Resolve checks u and returns the addresses to connect to. A literal IP
// address is checked without any lookup; a host name is looked up with r
// (net.DefaultResolver when nil), which consults /etc/hosts first. Unless
// allowRemote is set, every address must be loopback: a name that
// resolves to any other address is refused as a whole, so no connection
// attempt can leave the machine. The error then wraps ErrNotLoopback.
func Resolve(ctx context.Context, u *url.URL, allowRemote bool, r Resolver) (*Target, error) {
	host := u.Hostname()
	port := 80
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("port %q is not a number between 1 and 65535", p)
		}
		port = n
	}
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if !allowRemote && !plausibleHostName(host) {
			return nil, fmt.Errorf("host %q is neither an IP address nor a host name", clipS(host))
		}
		if r == nil {
			r = net.DefaultResolver
		}
		addrs, err = r.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, fmt.Errorf("looking up %q: %w; use a literal address such as 127.0.0.1", clipS(host), err)
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("host %q has no addresses; use a literal address such as 127.0.0.1", clipS(host))
		}
	}
	t := &Target{URL: u}
	for _, a := range addrs {
		if !allowRemote && !IsLoopback(a) {
			if len(addrs) == 1 && a.String() == host {
				return nil, fmt.Errorf("refusing to send load to %s: %w (only 127.0.0.0/8 and ::1 are allowed; pass --allow-remote to load a machine you are responsible for)", a, ErrNotLoopback)
			}
			return nil, fmt.Errorf("refusing to send load to %s: it resolves to %s, %w (only 127.0.0.0/8 and ::1 are allowed; pass --allow-remote to load a machine you are responsible for)", clipS(host), a, ErrNotLoopback)
		}
		t.Addrs = append(t.Addrs, netip.AddrPortFrom(a.Unmap(), uint16(port)))
	}
	return t, nil
}

// plausibleHostName rejects strings that cannot be DNS names, so that
// garbage is refused before any lookup.
func plausibleHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_':
		default:
			return false
		}
	}
	return true
}

// loopbackControl is a net.Dialer Control function that refuses to connect
// a socket to anything but a loopback address. It runs before connect(2),
// so a refused address never sees a packet. It is a second line of defence
// behind Resolve.
func loopbackControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refusing to connect to %q: %w (cannot parse the address)", address, ErrNotLoopback)
	}
	if !IsLoopback(ap.Addr()) {
		return fmt.Errorf("refusing to connect to %s: %w", address, ErrNotLoopback)
	}
	return nil
}

func clipS(s string) string { return clip([]byte(s)) }
