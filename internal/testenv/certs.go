package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TLSServerName is the name the server certificate of Certificates is for.
const TLSServerName = "temporal.ppwr.test"

// TLSClientName is the common name of the client certificate of
// Certificates.
const TLSClientName = "ppwr-client"

// TLSFiles are the PEM files of a throwaway CA and of a server and a
// client certificate it signed, each with its private key.
type TLSFiles struct {
	CA                    string
	ServerCert, ServerKey string
	ClientCert, ClientKey string
}

// Certificates writes a CA of its own, a server certificate for
// TLSServerName and a client certificate for TLSClientName into a
// temporary directory of the test.
func Certificates(t testing.TB) TLSFiles {
	t.Helper()
	dir := t.TempDir()
	f := TLSFiles{CA: filepath.Join(dir, "ca.pem"), ServerCert: filepath.Join(dir, "server.pem"), ServerKey: filepath.Join(dir, "server-key.pem"),
		ClientCert: filepath.Join(dir, "client.pem"), ClientKey: filepath.Join(dir, "client-key.pem")}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ppwr test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	writePEM(t, f.CA, "CERTIFICATE", caDER)
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage, certFile, keyFile string) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		require.NoError(t, err)
		cert := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, DNSNames: []string{name},
			IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			NotBefore: ca.NotBefore, NotAfter: ca.NotAfter}
		der, err := x509.CreateCertificate(rand.Reader, cert, ca, &key.PublicKey, caKey)
		require.NoError(t, err)
		writePEM(t, certFile, "CERTIFICATE", der)
		keyDER, err := x509.MarshalECPrivateKey(key)
		require.NoError(t, err)
		writePEM(t, keyFile, "EC PRIVATE KEY", keyDER)
	}
	leaf(2, TLSServerName, x509.ExtKeyUsageServerAuth, f.ServerCert, f.ServerKey)
	leaf(3, TLSClientName, x509.ExtKeyUsageClientAuth, f.ClientCert, f.ClientKey)
	return f
}

func writePEM(t testing.TB, file, typ string, der []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
}
