package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"
)

// LogHandler adds to every record logged with a context what that context
// knows: the trace and span ids of a traced request or run, and in an
// activity its workflow id and type, so a line is found from a trace or
// from the Temporal UI. The request line adds the request and organization
// ids itself (api's logRequest); the SDK's own logger adds the workflow id
// to workflow and activity lines.
func LogHandler(next slog.Handler) slog.Handler { return contextHandler{next} }

type contextHandler struct{ slog.Handler }

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	if activity.IsActivity(ctx) {
		info := activity.GetInfo(ctx)
		r.AddAttrs(slog.String("workflow_id", info.WorkflowExecution.ID), slog.String("activity_type", info.ActivityType.Name))
	}
	return h.Handler.Handle(ctx, r)
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{h.Handler.WithAttrs(attrs)}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{h.Handler.WithGroup(name)}
}
