package worker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"ppwr/domain"
	"ppwr/internal/config"
	"ppwr/internal/telemetry"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// The relay starts a recorded workflow in the trace of the request that
// recorded it (its traceparent, kept in the row), not in a trace of its own.
func TestRelayStartContinuesTheRecordingTrace(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	telemetry.InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)))
	f := newStartsFixture(t)
	traced, err := temporalclient.Dial(config.Config{TemporalAddress: testenv.TemporalAddress(t), TemporalNamespace: "default"}, telemetry.TraceTemporal)
	require.NoError(t, err)
	defer traced.Close()

	s := f.record(t, newInput())
	const traceID = "4bf92f3577b34da6a3ce929e0e4736ce"
	require.NoError(t, f.db.Model(&domain.WorkflowStart{}).Where("id = ?", s.ID).
		Update("trace_parent", "00-"+traceID+"-00f067aa0ba902b7-01").Error)
	relay := &worker.Relay{DB: f.db, Temporal: traced, TaskQueue: f.queue}
	_, err = relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	f.wait(t, s.WorkflowID)

	var start *tracetest.SpanStub
	for _, span := range spans.GetSpans() {
		if span.Name == "StartWorkflow:"+durableStartType {
			start = &span
		}
	}
	require.NotNil(t, start, "the start is a span")
	assert.Equal(t, traceID, start.SpanContext.TraceID().String(), "in the recording request's trace")
}
