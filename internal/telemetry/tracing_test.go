package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"ppwr/internal/telemetry"
)

// A tracer taken once records into whichever provider is installed when
// its span starts, not into the first one ever installed.
func TestTracerFollowsTheInstalledProvider(t *testing.T) {
	tracer := telemetry.Tracer("ppwr/test")
	first, second := tracetest.NewInMemoryExporter(), tracetest.NewInMemoryExporter()

	telemetry.InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithSyncer(first)))
	_, span := tracer.Start(context.Background(), "first")
	span.End()
	telemetry.InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithSyncer(second)))
	_, span = tracer.Start(context.Background(), "second")
	span.End()

	require.Len(t, first.GetSpans(), 1)
	assert.Equal(t, "first", first.GetSpans()[0].Name)
	require.Len(t, second.GetSpans(), 1)
	assert.Equal(t, "second", second.GetSpans()[0].Name)
}

// StartTracing exports to OTEL_EXPORTER_OTLP_ENDPOINT; its stop sends the
// spans still batched and turns tracing off.
func TestStopFlushesAndTurnsTracingOff(t *testing.T) {
	var posts atomic.Int32
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/traces" {
			posts.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_TRACES_SAMPLER", "always_on") // the one span is kept

	stop, err := telemetry.StartTracing(context.Background(), "ppwr-test")
	require.NoError(t, err)
	tracer := telemetry.Tracer("ppwr/test")
	_, span := tracer.Start(context.Background(), "batched")
	assert.True(t, span.IsRecording())
	span.End()

	require.NoError(t, stop(context.Background()))
	assert.EqualValues(t, 1, posts.Load(), "stop sent the batch")
	_, span = tracer.Start(context.Background(), "after")
	assert.False(t, span.IsRecording(), "tracing is off after stop")
}
