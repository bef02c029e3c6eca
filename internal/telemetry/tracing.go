package telemetry

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/interceptor"
)

// Tracing reports whether traces are to be exported: only when the
// standard OTEL_EXPORTER_OTLP_ENDPOINT (or its traces-only variant) names
// a collector. Otherwise no exporter is made and every span is the
// global no-op's.
func Tracing() bool {
	return os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// StartTracing installs, when Tracing, the global tracer provider that
// batches spans to OTLP over HTTP (the exporter reads the standard
// OTEL_EXPORTER_OTLP_* variables: endpoint, headers, timeout), named
// service unless OTEL_SERVICE_NAME says otherwise, and the W3C trace
// context propagator. The returned stop flushes what is left.
func StartTracing(ctx context.Context, service string) (stop func(context.Context) error, err error) {
	if !Tracing() {
		return func(context.Context) error { return nil }, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(serviceResource(service))))
	return exporter.Shutdown, nil
}

// InstallTracer makes provider the global one, with the W3C trace context
// and baggage propagators; tests install one with an in-memory exporter.
func InstallTracer(provider *sdktrace.TracerProvider) {
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
}

func serviceResource(service string) *resource.Resource {
	// Default reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, which
	// win over the process's name.
	r, err := resource.Merge(resource.NewSchemaless(attribute.String("service.name", service)), resource.Default())
	if err != nil {
		return resource.Default()
	}
	return r
}

// TraceTemporal adds the SDK's OpenTelemetry interceptor to a client's
// options: the client's starts, and the workflows and activities of
// workers made from it, become spans of the trace in their context.
func TraceTemporal(o *client.Options) error {
	tracer, err := temporalotel.NewTracingInterceptor(temporalotel.TracerOptions{})
	if err != nil {
		return err
	}
	o.Interceptors = append([]interceptor.ClientInterceptor{tracer}, o.Interceptors...)
	return nil
}
