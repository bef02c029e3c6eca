package telemetry_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"ppwr/domain"
	"ppwr/internal/config"
	"ppwr/internal/telemetry"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// Scrape reads addr's /metrics as Prometheus serves it.
func Scrape(t *testing.T, url string) string {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(body)
}

// Value is the sample of one series in a scrape (-1 when absent).
func Value(scrape, series string) float64 {
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\S+)$`).FindStringSubmatch(scrape)
	if m == nil {
		return -1
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// The listener serves the pool, the relay's lag and backlog, the counted
// series and the Temporal SDK's own, and they move.
func TestMetricsListenerServesEverySeries(t *testing.T) {
	db := testenv.DB(t)
	m, err := telemetry.NewMetrics()
	require.NoError(t, err)
	defer m.Close()
	require.NoError(t, m.WatchDB(db))
	require.NoError(t, m.WatchRelay(db))
	tc, err := temporalclient.Dial(config.Config{TemporalAddress: testenv.TemporalAddress(t), TemporalNamespace: "default"}, func(o *client.Options) error {
		o.MetricsHandler = m.Temporal
		return nil
	})
	require.NoError(t, err)
	defer tc.Close()

	ctx, cancel := context.WithCancel(context.Background())
	addr := freeAddr(t)
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx, addr) }()
	url := "http://" + addr + "/metrics"
	require.Eventually(t, func() bool {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
		}
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)

	before := Scrape(t, url)
	for _, series := range []string{"go_sql_open_connections{db_name=\"ppwr\"}", "ppwr_relay_lag_seconds", "ppwr_relay_pending_starts", "ppwr_outbox_backlog",
		`ppwr_webhook_attempts_total{outcome="rejected"}`, `ppwr_webhook_attempts_total{outcome="unreachable"}`} {
		assert.GreaterOrEqual(t, Value(before, series), 0.0, series)
	}

	// A start recorded a minute ago and not made: the lag is its age.
	start := domain.WorkflowStart{ID: domain.NewID(), WorkflowID: "metrics/" + domain.NewID().String(), WorkflowType: "Nothing",
		OrganizationID: "system", ResourceID: "metrics", Input: []byte("null"), CreatedAt: time.Now().Add(-time.Minute)}
	require.NoError(t, db.Create(&start).Error)
	defer db.Delete(&start)
	telemetry.ObserveRequest("getCatalogItem", http.StatusOK, 3*time.Millisecond)
	telemetry.WebhookAttempt(telemetry.WebhookSucceeded)
	telemetry.RowsImported(7)
	_, err = tc.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default"})
	require.NoError(t, err)

	after := Scrape(t, url)
	assert.GreaterOrEqual(t, Value(after, "ppwr_relay_lag_seconds"), 59.0)
	assert.Equal(t, Value(before, "ppwr_relay_pending_starts")+1, Value(after, "ppwr_relay_pending_starts"))
	moved := func(series string, by float64) {
		was := max(Value(before, series), 0)
		assert.Equal(t, was+by, Value(after, series), series)
	}
	moved(`ppwr_http_requests_total{operation="getCatalogItem",status="200"}`, 1)
	moved(`ppwr_http_request_duration_seconds_count{operation="getCatalogItem"}`, 1)
	moved(`ppwr_webhook_attempts_total{outcome="succeeded"}`, 1)
	moved(`ppwr_import_rows_applied_total`, 7)
	assert.Regexp(t, `(?m)^temporal_request_total\{.*operation="ListWorkflowExecutions".*\} [1-9]`, after, "the SDK's own series")

	cancel()
	require.NoError(t, <-served)
}
