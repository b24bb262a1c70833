package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// special lists every block of the IANA IPv4 and IPv6 special-purpose
// address registries, plus multicast. Blocks the registries mark globally
// reachable (AS112, AMT, ...) are refused too: no incident write-up is served
// from them, and refusing is the safe default.
var special = []struct {
	prefix netip.Prefix
	name   string
}{
	{mustPrefix("0.0.0.0/8"), "this network (0/8)"},
	{mustPrefix("10.0.0.0/8"), "private (RFC 1918)"},
	{mustPrefix("100.64.0.0/10"), "shared address space (CGNAT)"},
	{mustPrefix("127.0.0.0/8"), "loopback"},
	{mustPrefix("169.254.0.0/16"), "link-local"},
	{mustPrefix("172.16.0.0/12"), "private (RFC 1918)"},
	{mustPrefix("192.0.0.0/24"), "IETF protocol assignments"},
	{mustPrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{mustPrefix("192.31.196.0/24"), "AS112"},
	{mustPrefix("192.52.193.0/24"), "AMT"},
	{mustPrefix("192.88.99.0/24"), "6to4 relay anycast"},
	{mustPrefix("192.168.0.0/16"), "private (RFC 1918)"},
	{mustPrefix("192.175.48.0/24"), "AS112 direct delegation"},
	{mustPrefix("198.18.0.0/15"), "benchmarking"},
	{mustPrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{mustPrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{mustPrefix("224.0.0.0/4"), "multicast"},
	{mustPrefix("240.0.0.0/4"), "reserved (240/4)"},

	{mustPrefix("::/128"), "unspecified"},
	{mustPrefix("::1/128"), "loopback"},
	{mustPrefix("::/96"), "IPv4-compatible (deprecated)"},
	{mustPrefix("64:ff9b:1::/48"), "local-use NAT64"},
	{mustPrefix("100::/64"), "discard-only"},
	{mustPrefix("2001::/23"), "IETF protocol assignments"},
	{mustPrefix("2001:db8::/32"), "documentation"},
	{mustPrefix("2002::/16"), "6to4"},
	{mustPrefix("2620:4f:8000::/48"), "AS112 direct delegation"},
	{mustPrefix("3fff::/20"), "documentation"},
	{mustPrefix("5f00::/16"), "SRv6 SIDs"},
	{mustPrefix("fc00::/7"), "unique local (ULA)"},
	{mustPrefix("fe80::/10"), "link-local"},
	{mustPrefix("fec0::/10"), "site-local (deprecated)"},
	{mustPrefix("ff00::/8"), "multicast"},
}

var nat64 = mustPrefix("64:ff9b::/96")

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// SpecialPurpose reports whether ip is in a special-purpose block and names
// it. IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) forms are
// judged by the IPv4 address they carry.
func SpecialPurpose(ip netip.Addr) (bool, string) {
	ip = ip.WithZone("")
	if !ip.IsValid() {
		return true, "invalid address"
	}
	if ip.Is4In6() {
		ok, name := SpecialPurpose(ip.Unmap())
		if ok {
			return true, name + " (IPv4-mapped)"
		}
		return false, ""
	}
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ok, name := SpecialPurpose(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		if ok {
			return true, name + " (NAT64)"
		}
		return false, ""
	}
	for _, s := range special {
		if s.prefix.Contains(ip) {
			return true, s.name
		}
	}
	return false, ""
}

// allowRule is one --allow-addr entry: a prefix, and a port (0 = any).
type allowRule struct {
	prefix netip.Prefix
	port   uint16
}

// ParseAllowAddrs splits and validates the --allow-addr flag: comma-separated
// IPs, CIDRs or ip:port ([v6]:port for IPv6). It returns the entries in a
// normalised form that Config.AllowAddrs accepts.
func ParseAllowAddrs(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		r, err := parseAllowRule(f)
		if err != nil {
			return nil, err
		}
		out = append(out, r.String())
	}
	return out, nil
}

func (r allowRule) String() string {
	if r.port == 0 {
		if r.prefix.IsSingleIP() {
			return r.prefix.Addr().String()
		}
		return r.prefix.String()
	}
	return netip.AddrPortFrom(r.prefix.Addr(), r.port).String()
}

func parseAllowRule(s string) (allowRule, error) {
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return allowRule{}, fmt.Errorf("allow-addr %q: %w", s, err)
		}
		return allowRule{prefix: p.Masked()}, nil
	}
	if ip, err := netip.ParseAddr(s); err == nil {
		ip = ip.WithZone("").Unmap()
		return allowRule{prefix: netip.PrefixFrom(ip, ip.BitLen())}, nil
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil {
		return allowRule{}, fmt.Errorf("allow-addr %q: not an IP, CIDR or ip:port", s)
	}
	if ap.Port() == 0 {
		return allowRule{}, fmt.Errorf("allow-addr %q: port 0", s)
	}
	ip := ap.Addr().WithZone("").Unmap()
	return allowRule{prefix: netip.PrefixFrom(ip, ip.BitLen()), port: ap.Port()}, nil
}

// guard decides, for the address a socket is about to connect to, whether
// the connection may proceed.
type guard struct {
	allowPrivate bool
	rules        []allowRule
	ports        []int
}

// refusedError is what the dialer's Control hook returns; fetch maps it to
// KindRefusedAddress.
type refusedError struct {
	addr   string
	reason string
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("refused address %s: %s", e.addr, e.reason)
}

func newGuard(cfg Config) (*guard, error) {
	g := &guard{allowPrivate: cfg.AllowPrivateNetworks}
	for _, a := range cfg.AllowAddrs {
		r, err := parseAllowRule(strings.TrimSpace(a))
		if err != nil {
			return nil, err
		}
		g.rules = append(g.rules, r)
	}
	for _, p := range cfg.AllowPorts {
		if p <= 0 || p > 65535 {
			return nil, fmt.Errorf("allow-ports: %d is not a port", p)
		}
		g.ports = append(g.ports, p)
	}
	return g, nil
}

// check judges a resolved ip:port.
func (g *guard) check(ap netip.AddrPort) error {
	ip := ap.Addr().WithZone("")
	port := ap.Port()
	for _, r := range g.rules {
		if r.prefix.Contains(ip.Unmap()) && (r.port == 0 || r.port == port) {
			return nil
		}
	}
	if bad, name := SpecialPurpose(ip); bad {
		if g.allowPrivate {
			return nil
		}
		return &refusedError{addr: ap.String(), reason: name + " (use --allow-private-networks or --allow-addr to permit)"}
	}
	if port == 80 || port == 443 || slices.Contains(g.ports, int(port)) {
		return nil
	}
	return &refusedError{addr: ap.String(), reason: "port " + strconv.Itoa(int(port)) + " not allowed (use --allow-ports)"}
}

// control is the net.Dialer ControlContext hook. It runs after DNS
// resolution with the exact address the socket connects to, so a name that
// resolves differently on a second lookup (DNS rebinding) cannot slip past.
func (g *guard) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return &refusedError{addr: address, reason: "network " + network + " not allowed"}
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &refusedError{addr: address, reason: "unparsable address"}
	}
	return g.check(ap)
}

// dialer builds the guarded dialer.
func (g *guard) dialer(cfg Config) *net.Dialer {
	return &net.Dialer{
		Timeout:        cfg.ConnectTimeout,
		KeepAlive:      30 * time.Second,
		Resolver:       cfg.Resolver,
		ControlContext: g.control,
	}
}

// absoluteName dials "host.:port" as "host:port": the trailing dot of a
// fully qualified name names the same host, and not every resolver path
// (the hosts file) knows it, so "localhost." is judged by the guard as the
// loopback address it is instead of failing as an unknown name.
func absoluteName(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && len(host) > 1 && strings.HasSuffix(host, ".") {
			addr = net.JoinHostPort(strings.TrimSuffix(host, "."), port)
		}
		return dial(ctx, network, addr)
	}
}
