// Package safedial keeps outbound requests that customers aim (webhook
// deliveries) away from the service's own network: private, link-local
// and cloud metadata addresses, and loopback unless development allows
// it. The check runs on the address actually dialled, after DNS, so a
// name that resolves to a public address when it is registered and to an
// internal one at delivery time (DNS rebinding) is still refused.
package safedial

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrRefused is the error of an address no outbound request may reach.
var ErrRefused = errors.New("address not allowed")

// refusedPrefixes are ranges the standard library's predicates do not
// name: shared address space (RFC 6598, where some clouds put their
// metadata service, such as 100.100.100.200), "this network" and the
// IPv4/IPv6 translation prefixes, which reach IPv4 addresses in disguise.
var refusedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"), // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
}

// Check refuses an address that is private (RFC 1918, IPv6 unique
// local, which holds AWS's fd00:ec2::254), link-local (169.254.169.254,
// the metadata service of most clouds, among them), unspecified,
// multicast, or in refusedPrefixes (the IPv4 broadcast among them); and
// loopback unless allowLoopback.
func Check(addr netip.Addr, allowLoopback bool) error {
	addr = addr.Unmap()
	if addr.IsLoopback() && allowLoopback {
		return nil
	}
	if addr.IsLoopback() || addr.IsPrivate() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsInterfaceLocalMulticast() || addr.IsMulticast() || addr.IsUnspecified() || !addr.IsValid() {
		return fmt.Errorf("%s: %w", addr, ErrRefused)
	}
	for _, p := range refusedPrefixes {
		if p.Contains(addr) {
			return fmt.Errorf("%s: %w", addr, ErrRefused)
		}
	}
	return nil
}

// CheckHost resolves host (a name or an address literal) and refuses it
// when any of its addresses is refused. A name that does not resolve now
// is not refused: it is checked again on every dial.
func CheckHost(ctx context.Context, host string, allowLoopback bool) error {
	if addr, err := netip.ParseAddr(host); err == nil {
		return Check(addr, allowLoopback)
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil
	}
	for _, a := range addrs {
		if err := Check(a, allowLoopback); err != nil {
			return fmt.Errorf("%s resolves to %w", host, err)
		}
	}
	return nil
}

// lookupTimeout bounds the resolution of CheckHost, which a request
// waits for.
const lookupTimeout = 3 * time.Second

// Control is a net.Dialer Control that refuses to connect to an address
// Check refuses. It sees the address after resolution, once per
// connection attempt, so it holds for every address a name resolves to.
func Control(allowLoopback bool) func(network, address string, c syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%s %s: %w", network, address, ErrRefused)
		}
		return Check(ap.Addr(), allowLoopback)
	}
}

// Transport is an HTTP transport whose every connection passes Control,
// one per setting of allowLoopback shared by every caller, so that
// connections are pooled rather than left idle in a transport per
// request. It uses no proxy: a proxy would dial on the request's behalf,
// past the check.
func Transport(allowLoopback bool) *http.Transport {
	if allowLoopback {
		return loopbackTransport
	}
	return strictTransport
}

var strictTransport, loopbackTransport = newTransport(false), newTransport(true)

func newTransport(allowLoopback bool) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: Control(allowLoopback)}
	return &http.Transport{
		DialContext:         dialer.DialContext,
		ForceAttemptHTTP2:   true,
		MaxIdleConns:        100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
}
