package telemetry

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/embedded"
	"go.opentelemetry.io/otel/trace/noop"
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
// context propagator. The returned stop flushes the spans still batched
// and turns tracing off again (a no-op provider and propagator, as when
// the variable is unset), so what is traced after it is not recorded
// into a provider that no longer exports.
func StartTracing(ctx context.Context, service string) (stop func(context.Context) error, err error) {
	if !Tracing() {
		return func(context.Context) error { return nil }, nil
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("tracing: OTLP exporter: %w", err)
	}
	opts := []sdktrace.TracerProviderOption{sdktrace.WithBatcher(exporter), sdktrace.WithResource(serviceResource(service))}
	if s := defaultSampler(); s != nil {
		opts = append(opts, sdktrace.WithSampler(s))
	}
	provider := sdktrace.NewTracerProvider(opts...)
	InstallTracer(provider)
	return func(ctx context.Context) error {
		otel.SetTracerProvider(noop.NewTracerProvider())
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator())
		return provider.Shutdown(ctx)
	}, nil
}

// Recording reports whether spans started now may be recorded: a
// provider of the SDK is the global one (InstallTracer). Otherwise the
// global provider and propagator are no-ops, so a span would be a no-op
// carried in a context made for nothing, and a caller's traceparent would
// not be read.
func Recording() bool {
	_, sdk := otel.GetTracerProvider().(*sdktrace.TracerProvider)
	return sdk
}

// DefaultSampleRatio is the share of requests traced when
// OTEL_TRACES_SAMPLER does not say otherwise: tracing every request costs
// the API 8 to 22 per cent more CPU time a request (the telemetry
// benchmark), one in ten stays within the 5 per cent budget, and a caller
// whose traceparent is sampled is always traced.
const DefaultSampleRatio = 0.1

// defaultSampler is the sampler unless OTEL_TRACES_SAMPLER names one,
// which the SDK then reads itself.
func defaultSampler() sdktrace.Sampler {
	if os.Getenv("OTEL_TRACES_SAMPLER") != "" {
		return nil
	}
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(DefaultSampleRatio))
}

// InstallTracer makes provider the global one, with the W3C trace context
// and baggage propagators; tests install one with an in-memory exporter.
func InstallTracer(provider *sdktrace.TracerProvider) {
	otel.SetTracerProvider(provider)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
}

// Tracer is the tracer named name of whichever provider is global when
// each span starts. A tracer from otel.Tracer, taken when a package is
// initialised, is delegated once, to the first provider ever installed,
// and keeps recording into it after another replaces it: after
// StartTracing's stop, or into an earlier test's exporter.
func Tracer(name string) trace.Tracer { return &globalTracer{name: name} }

type globalTracer struct {
	embedded.Tracer
	name  string
	bound atomic.Pointer[boundTracer]
}

// boundTracer is the tracer of one provider, kept while that provider is
// the global one, so a span costs no lookup in the provider's tracers.
type boundTracer struct {
	provider trace.TracerProvider
	tracer   trace.Tracer
}

func (t *globalTracer) Start(ctx context.Context, name string, opts ...trace.SpanStartOption) (context.Context, trace.Span) {
	provider := otel.GetTracerProvider()
	b := t.bound.Load()
	if b == nil || b.provider != provider {
		b = &boundTracer{provider: provider, tracer: provider.Tracer(t.name)}
		t.bound.Store(b)
	}
	return b.tracer.Start(ctx, name, opts...)
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
