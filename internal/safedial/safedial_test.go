package safedial

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckRefusesInternalAddresses(t *testing.T) {
	for _, raw := range []string{
		"10.0.0.5", "172.16.3.4", "192.168.1.1", "169.254.169.254", "100.100.100.200", "0.0.0.0", "255.255.255.255",
		"127.0.0.1", "::1", "fd00:ec2::254", "fe80::1", "::", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1", "224.0.0.1",
	} {
		err := Check(netip.MustParseAddr(raw), false)
		assert.ErrorIs(t, err, ErrRefused, raw)
	}
	for _, raw := range []string{"203.0.113.10", "8.8.8.8", "2606:4700::1111"} {
		assert.NoError(t, Check(netip.MustParseAddr(raw), false), raw)
	}
	assert.NoError(t, Check(netip.MustParseAddr("127.0.0.1"), true), "development opens loopback")
	assert.NoError(t, Check(netip.MustParseAddr("::1"), true))
	assert.ErrorIs(t, Check(netip.MustParseAddr("10.0.0.5"), true), ErrRefused, "and nothing else")
	assert.ErrorIs(t, Check(netip.MustParseAddr("169.254.169.254"), true), ErrRefused)
}

func TestCheckHostResolves(t *testing.T) {
	ctx := context.Background()
	assert.ErrorIs(t, CheckHost(ctx, "localhost", false), ErrRefused, "a name resolving to loopback")
	assert.NoError(t, CheckHost(ctx, "localhost", true))
	assert.ErrorIs(t, CheckHost(ctx, "169.254.169.254", true), ErrRefused)
	assert.NoError(t, CheckHost(ctx, "203.0.113.10", false))
	assert.NoError(t, CheckHost(ctx, "hooks.example.invalid", false), "a name that does not resolve now is checked when dialled")
}

// The transport refuses the address it dials, whatever the URL named:
// this is what stops a name rebound to an internal address after it was
// registered.
func TestTransportRefusesAtDialTime(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	defer srv.Close()

	refusing := &http.Client{Transport: Transport(false)}
	_, err := refusing.Get(srv.URL)
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrRefused), "%v", err)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	_, err = refusing.Get("http://localhost:" + port)
	assert.ErrorIs(t, err, ErrRefused, "by name too")

	allowing := &http.Client{Transport: Transport(true)}
	res, err := allowing.Get(srv.URL)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNoContent, res.StatusCode)
}
