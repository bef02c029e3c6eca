package temporalclient_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"ppwr/internal/config"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// tlsFront is a TLS endpoint in front of the Temporal dev server, which
// speaks plain gRPC only: it terminates TLS with the server certificate
// of testenv.Certificates, requiring a client certificate of that CA when
// mutual says so, and passes the bytes on. It notes the client
// certificate's name and the authorization header of each call.
type tlsFront struct {
	addr string
	mu   sync.Mutex
	// clients are the common names of the client certificates shown.
	clients []string
	// authorizations are the authorization headers of the calls made.
	authorizations []string
}

func newTLSFront(t *testing.T, files testenv.TLSFiles, mutual bool) *tlsFront {
	t.Helper()
	backend := testenv.TemporalAddress(t)
	cert, err := tls.LoadX509KeyPair(files.ServerCert, files.ServerKey)
	require.NoError(t, err)
	pem, err := os.ReadFile(files.CA)
	require.NoError(t, err)
	cas := x509.NewCertPool()
	require.True(t, cas.AppendCertsFromPEM(pem))
	conf := &tls.Config{Certificates: []tls.Certificate{cert}, ClientCAs: cas, NextProtos: []string{"h2"}, MinVersion: tls.VersionTLS12}
	if mutual {
		conf.ClientAuth = tls.RequireAndVerifyClientCert
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", conf)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	f := &tlsFront{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go f.pass(c.(*tls.Conn), backend)
		}
	}()
	return f
}

// pass relays one client connection to the dev server.
func (f *tlsFront) pass(c *tls.Conn, backend string) {
	defer c.Close()
	if err := c.Handshake(); err != nil {
		return
	}
	if peers := c.ConnectionState().PeerCertificates; len(peers) > 0 {
		f.mu.Lock()
		f.clients = append(f.clients, peers[0].Subject.CommonName)
		f.mu.Unlock()
	}
	b, err := net.Dial("tcp", backend)
	if err != nil {
		return
	}
	defer b.Close()
	requests, seen := io.Pipe()
	go f.readHeaders(requests)
	go func() { _, _ = io.Copy(c, b) }()
	_, _ = io.Copy(b, io.TeeReader(c, seen))
	seen.Close()
}

// readHeaders reads the client's side of an HTTP/2 connection and notes
// the authorization header of each call; it drains what it cannot read,
// so the relay never waits on it.
func (f *tlsFront) readHeaders(r io.Reader) {
	defer func() { _, _ = io.Copy(io.Discard, r) }()
	if _, err := io.ReadFull(r, make([]byte, len(http2.ClientPreface))); err != nil {
		return
	}
	frames := http2.NewFramer(io.Discard, r)
	frames.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	frames.SetMaxReadFrameSize(1 << 24)
	for {
		frame, err := frames.ReadFrame()
		if err != nil {
			return
		}
		if h, ok := frame.(*http2.MetaHeadersFrame); ok {
			for _, field := range h.RegularFields() {
				if field.Name == "authorization" {
					f.mu.Lock()
					f.authorizations = append(f.authorizations, h.PseudoValue("path")+" "+field.Value)
					f.mu.Unlock()
				}
			}
		}
	}
}

func (f *tlsFront) seen() (clients, authorizations []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.clients...), append([]string(nil), f.authorizations...)
}

// dial is a client of the configuration the environment vars make, on
// address.
func dial(t *testing.T, address string, vars map[string]string) error {
	t.Helper()
	for _, name := range []string{"TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_PATH",
		"TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_API_KEY"} {
		t.Setenv(name, vars[name])
		if _, set := vars[name]; !set {
			os.Unsetenv(name)
		}
	}
	t.Setenv("TEMPORAL_ADDRESS", address)
	t.Setenv("TEMPORAL_NAMESPACE", "default")
	cfg, err := config.FromEnv()
	require.NoError(t, err)
	c, err := temporalclient.Dial(cfg)
	require.NoError(t, err)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = c.WorkflowService().GetSystemInfo(ctx, nil)
	return err
}

// A client certificate and the CA of the server's: the client proves
// itself and checks the server, as with a cluster that requires mTLS or a
// Temporal Cloud namespace.
func TestDialOverMutualTLS(t *testing.T) {
	files := testenv.Certificates(t)
	front := newTLSFront(t, files, true)
	require.NoError(t, dial(t, front.addr, map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": files.ClientCert,
		"TEMPORAL_TLS_CLIENT_KEY_PATH": files.ClientKey, "TEMPORAL_TLS_SERVER_CA_CERT_PATH": files.CA,
		"TEMPORAL_TLS_SERVER_NAME": testenv.TLSServerName}))
	clients, _ := front.seen()
	assert.Contains(t, clients, testenv.TLSClientName)
}

// An API key goes over TLS, as a bearer token on every call.
func TestDialWithAnAPIKey(t *testing.T) {
	files := testenv.Certificates(t)
	front := newTLSFront(t, files, false)
	require.NoError(t, dial(t, front.addr, map[string]string{"TEMPORAL_API_KEY": "key-of-the-cloud",
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": files.CA, "TEMPORAL_TLS_SERVER_NAME": testenv.TLSServerName}))
	_, authorizations := front.seen()
	assert.Contains(t, authorizations, "/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo Bearer key-of-the-cloud")
}

// The server's certificate is checked: a server name it is not for fails
// the handshake.
func TestDialRefusesAServerCertificateForAnotherName(t *testing.T) {
	files := testenv.Certificates(t)
	front := newTLSFront(t, files, false)
	err := dial(t, front.addr, map[string]string{"TEMPORAL_API_KEY": "key-of-the-cloud",
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": files.CA, "TEMPORAL_TLS_SERVER_NAME": "elsewhere.ppwr.test"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "certificate is valid for "+testenv.TLSServerName)
}

// TLS on against a plain server (the dev server speaks no TLS) fails with
// a TLS error, not a hang or a plain-text exchange.
func TestDialWithTLSToAPlainServerFailsWithATLSError(t *testing.T) {
	files := testenv.Certificates(t)
	err := dial(t, testenv.TemporalAddress(t), map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": files.ClientCert,
		"TEMPORAL_TLS_CLIENT_KEY_PATH": files.ClientKey})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tls: first record does not look like a TLS handshake")
}
