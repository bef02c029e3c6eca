// Package telemetry is the service's metrics, traces and their wiring: the
// Prometheus series every process exposes on METRICS_ADDR, the Temporal
// SDK's metrics fed into the same registry, and the OpenTelemetry tracer
// that exports to OTLP only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
//
// The series that code elsewhere moves (requests, webhook attempts, rows
// imported) are package variables, so a handler or an activity needs no
// dependency to count; each process registers them in the one registry
// it serves (NewMetrics).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"gorm.io/gorm"
)

var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ppwr_http_requests_total",
		Help: "HTTP requests answered, by OpenAPI operation id (or route for the probes) and status.",
	}, []string{"operation", "status"})
	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ppwr_http_request_duration_seconds",
		Help:    "Time from a request's arrival to its answer, by OpenAPI operation id.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"operation"})
	webhookAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ppwr_webhook_attempts_total",
		Help: "Webhook delivery attempts, by outcome: succeeded, rejected (a non-2xx answer) or unreachable (no answer).",
	}, []string{"outcome"})
	rowsImported = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "ppwr_import_rows_applied_total",
		Help: "Import rows applied (committed with their change).",
	})
)

// Webhook attempt outcomes (the outcome label of ppwr_webhook_attempts_total).
const (
	WebhookSucceeded   = "succeeded"
	WebhookRejected    = "rejected"
	WebhookUnreachable = "unreachable"
)

// The outcomes start at zero, so the first failure moves a series that was
// already scraped and rate() sees it: a series born at 1 reads as no
// change.
func init() {
	for _, outcome := range []string{WebhookSucceeded, WebhookRejected, WebhookUnreachable} {
		webhookAttempts.WithLabelValues(outcome)
	}
}

// serverErrors are the statuses an alert on an operation's errors watches:
// a failure (500) and a backing service not answering (503).
var serverErrors = []string{strconv.Itoa(http.StatusInternalServerError), strconv.Itoa(http.StatusServiceUnavailable)}

// ExpectOperation exports operation's server-error counts from 0 as it is
// routed, so the first error of an operation moves a series already
// scraped and rate() sees it, as for the webhook outcomes.
func ExpectOperation(operation string) {
	for _, status := range serverErrors {
		httpRequests.WithLabelValues(operation, status)
	}
}

// ObserveRequest counts one answered request of operation and its latency.
func ObserveRequest(operation string, status int, elapsed time.Duration) {
	key := requestKey{operation, status}
	s, ok := requestSeriesOf.Load(key)
	if !ok {
		s, _ = requestSeriesOf.LoadOrStore(key, &requestSeries{
			count:    httpRequests.WithLabelValues(operation, strconv.Itoa(status)),
			duration: httpDuration.WithLabelValues(operation),
		})
	}
	series := s.(*requestSeries)
	series.count.Inc()
	series.duration.Observe(elapsed.Seconds())
}

// requestSeries are the request series of one operation and status, found
// in their vectors once: finding them there on every request (the labels
// hashed, the vector locked, the status formatted) cost more than the
// counting. The operations and statuses are few, so they are kept for
// good.
type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

type requestKey struct {
	operation string
	status    int
}

var requestSeriesOf sync.Map // requestKey → *requestSeries

// WebhookAttempt counts one delivery attempt with its outcome.
func WebhookAttempt(outcome string) { webhookAttempts.WithLabelValues(outcome).Inc() }

// RowsImported counts n import rows applied.
func RowsImported(n int) { rowsImported.Add(float64(n)) }

// Metrics is one process's registry and the Temporal SDK's handler into it.
type Metrics struct {
	Registry *prometheus.Registry
	// Temporal is client.Options.MetricsHandler: the SDK's own series
	// (requests, polls, task latencies, workflow failures by type) through
	// its OpenTelemetry handler, exported into Registry.
	Temporal client.MetricsHandler
	provider *sdkmetric.MeterProvider
}

// NewMetrics registers the Go runtime, the process and the service's own
// series in a fresh registry.
func NewMetrics() (*Metrics, error) {
	reg := prometheus.NewRegistry()
	for _, c := range []prometheus.Collector{
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		httpRequests, httpDuration, webhookAttempts, rowsImported,
	} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	exporter, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo(), otelprom.WithoutTargetInfo())
	if err != nil {
		return nil, err
	}
	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exporter))
	handler := temporalotel.NewMetricsHandler(temporalotel.MetricsHandlerOptions{
		Meter:                provider.Meter("temporal-sdk-go"),
		UseMonotonicCounters: true,
		// A metric the SDK cannot record is no reason to stop a worker.
		OnError: func(err error) { slog.Warn("temporal metric not recorded", "error", err) },
	})
	return &Metrics{Registry: reg, Temporal: handler, provider: provider}, nil
}

// WatchDB adds the connection pool of db (open, in use, idle, waits).
func (m *Metrics) WatchDB(db *gorm.DB) error {
	sqlDB, err := db.DB()
	if err != nil {
		return err
	}
	return m.Registry.Register(collectors.NewDBStatsCollector(sqlDB, "ppwr"))
}

// WatchRelay adds the relay's backlog, read from the database on each
// scrape so that every replica reports the same truth and a stopped relay
// shows its lag growing: the age of the oldest workflow start not made
// yet, and the outbox events not relayed yet.
func (m *Metrics) WatchRelay(db *gorm.DB) error {
	gauge := func(name, help, query string) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			var v float64
			if err := db.WithContext(ctx).Raw(query).Scan(&v).Error; err != nil {
				slog.Warn("relay gauge not read", "series", name, "error", err)
				return -1
			}
			return v
		})
	}
	for _, c := range []prometheus.Collector{
		gauge("ppwr_relay_lag_seconds", "Age of the oldest recorded workflow start not made yet (0 when none; -1 when the database did not answer).",
			`SELECT coalesce(extract(epoch FROM now() - min(created_at)), 0) FROM workflow_starts WHERE started_at IS NULL`),
		gauge("ppwr_relay_pending_starts", "Recorded workflow starts not made yet.",
			`SELECT count(*) FROM workflow_starts WHERE started_at IS NULL`),
		gauge("ppwr_outbox_backlog", "Outbox events not relayed to webhook deliveries yet.",
			`SELECT count(*) FROM events WHERE relayed_at IS NULL`),
	} {
		if err := m.Registry.Register(c); err != nil {
			return err
		}
	}
	return nil
}

// Handler serves the registry in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}

// Serve exposes /metrics on addr, a listener of its own so that the
// series never share the API's port (nor its authentication), until ctx
// ends. A port already taken fails at once rather than serving nothing.
func (m *Metrics) Serve(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: listen on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	slog.Info("metrics listening", "addr", ln.Addr().String())
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close flushes the SDK's meter provider.
func (m *Metrics) Close() { _ = m.provider.Shutdown(context.Background()) }
