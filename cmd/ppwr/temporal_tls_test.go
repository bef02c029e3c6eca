package main

import (
	"context"
	"io"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Temporal TLS setting that cannot work stops the processes at their
// start, naming the variable, instead of failing their first call to
// Temporal (or, for serve, its readiness) later.
func TestABadTemporalCertificateStopsTheProcessesAtTheirStart(t *testing.T) {
	t.Setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", "/etc/ppwr/temporal-client.pem")
	t.Setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", "")
	os.Unsetenv("TEMPORAL_TLS_CLIENT_KEY_PATH")
	for _, command := range []string{"serve", "worker", "dev", "support"} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		root := rootCommand()
		root.SetArgs([]string{command})
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		err := root.ExecuteContext(ctx)
		cancel()
		require.Error(t, err, command)
		assert.Contains(t, err.Error(), "TEMPORAL_TLS_CLIENT_CERT_PATH is set without TEMPORAL_TLS_CLIENT_KEY_PATH", command)
	}
}
