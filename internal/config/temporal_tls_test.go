package config_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/config"
	"ppwr/internal/testenv"
)

// setTemporalTLS sets the Temporal TLS variables of vars and unsets the
// others.
func setTemporalTLS(t *testing.T, vars map[string]string) {
	t.Helper()
	for _, name := range []string{"TEMPORAL_TLS_CLIENT_CERT_PATH", "TEMPORAL_TLS_CLIENT_KEY_PATH", "TEMPORAL_TLS_SERVER_CA_CERT_PATH", "TEMPORAL_TLS_SERVER_NAME",
		"TEMPORAL_API_KEY"} {
		t.Setenv(name, vars[name])
		if _, set := vars[name]; !set {
			os.Unsetenv(name)
		}
	}
}

func TestTemporalIsPlainUntilACertificateOrAnAPIKeyIsSet(t *testing.T) {
	setTemporalTLS(t, nil)
	c, err := config.FromEnv()
	require.NoError(t, err)
	assert.Nil(t, c.TemporalTLS, "the local dev server speaks plain gRPC")
	assert.Empty(t, c.TemporalAPIKey)
}

func TestAClientCertificateTurnsTemporalTLSOn(t *testing.T) {
	files := testenv.Certificates(t)
	setTemporalTLS(t, map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": files.ClientCert, "TEMPORAL_TLS_CLIENT_KEY_PATH": files.ClientKey,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH": files.CA, "TEMPORAL_TLS_SERVER_NAME": testenv.TLSServerName})
	c, err := config.FromEnv()
	require.NoError(t, err)
	require.NotNil(t, c.TemporalTLS)
	require.Len(t, c.TemporalTLS.Certificates, 1)
	want, err := tls.LoadX509KeyPair(files.ClientCert, files.ClientKey)
	require.NoError(t, err)
	assert.Equal(t, want.Certificate, c.TemporalTLS.Certificates[0].Certificate)
	assert.NotNil(t, c.TemporalTLS.RootCAs, "the server is checked against the CA given")
	assert.Equal(t, testenv.TLSServerName, c.TemporalTLS.ServerName)
	assert.Equal(t, uint16(tls.VersionTLS12), c.TemporalTLS.MinVersion)
	assert.Empty(t, c.TemporalAPIKey)
}

// A cluster of your own may use TLS without client certificates: its CA
// alone turns TLS on, as in Temporal's own environment configuration.
func TestAServerCATurnsTemporalTLSOn(t *testing.T) {
	files := testenv.Certificates(t)
	setTemporalTLS(t, map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": files.CA})
	c, err := config.FromEnv()
	require.NoError(t, err)
	require.NotNil(t, c.TemporalTLS)
	assert.Empty(t, c.TemporalTLS.Certificates)
	assert.NotNil(t, c.TemporalTLS.RootCAs)
}

func TestAnAPIKeyTurnsTemporalTLSOn(t *testing.T) {
	setTemporalTLS(t, map[string]string{"TEMPORAL_API_KEY": "key-of-the-cloud"})
	c, err := config.FromEnv()
	require.NoError(t, err)
	require.NotNil(t, c.TemporalTLS, "Temporal Cloud takes API keys over TLS only")
	assert.Empty(t, c.TemporalTLS.Certificates)
	assert.Nil(t, c.TemporalTLS.RootCAs, "the system's roots check Temporal Cloud's certificate")
	assert.Empty(t, c.TemporalTLS.ServerName, "the address's host is the name checked")
	assert.Equal(t, "key-of-the-cloud", c.TemporalAPIKey)
}

// A configuration that cannot connect stops the process as it starts,
// naming the variable at fault.
func TestBadTemporalTLSConfigurationFailsAtStart(t *testing.T) {
	files := testenv.Certificates(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	missing := filepath.Join(t.TempDir(), "missing.pem")
	for name, tc := range map[string]struct {
		vars map[string]string
		want []string
	}{
		"certificate without key": {map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": files.ClientCert},
			[]string{"TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH"}},
		"key without certificate": {map[string]string{"TEMPORAL_TLS_CLIENT_KEY_PATH": files.ClientKey},
			[]string{"TEMPORAL_TLS_CLIENT_KEY_PATH is set without TEMPORAL_TLS_CLIENT_CERT_PATH"}},
		"unreadable certificate": {map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": missing, "TEMPORAL_TLS_CLIENT_KEY_PATH": files.ClientKey},
			[]string{"TEMPORAL_TLS_CLIENT_CERT_PATH", missing, "no such file"}},
		"key of another certificate": {map[string]string{"TEMPORAL_TLS_CLIENT_CERT_PATH": files.ClientCert, "TEMPORAL_TLS_CLIENT_KEY_PATH": files.ServerKey},
			[]string{"TEMPORAL_TLS_CLIENT_KEY_PATH", "does not match"}},
		"unreadable CA": {map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": missing},
			[]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH", missing}},
		"CA that is no certificate": {map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": notPEM},
			[]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH", "holds no PEM certificate"}},
	} {
		t.Run(name, func(t *testing.T) {
			setTemporalTLS(t, tc.vars)
			_, err := config.FromEnv()
			require.Error(t, err)
			for _, part := range tc.want {
				assert.Contains(t, err.Error(), part)
			}
		})
	}
}
