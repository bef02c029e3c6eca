package telemetry_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"ppwr/internal/telemetry"
)

// A line logged in a traced context carries its trace id; one outside
// carries none.
func TestLogsCarryTheTraceID(t *testing.T) {
	var out bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewJSONHandler(&out, nil))).With("request_id", "r-1")
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929e0e4736ce")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid}))

	log.InfoContext(ctx, "traced")
	var line map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &line))
	assert.Equal(t, tid.String(), line["trace_id"])
	assert.Equal(t, sid.String(), line["span_id"])
	assert.Equal(t, "r-1", line["request_id"])

	out.Reset()
	log.InfoContext(context.Background(), "untraced")
	line = nil
	require.NoError(t, json.Unmarshal(out.Bytes(), &line))
	assert.NotContains(t, line, "trace_id")
}
