package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"ppwr/api/apitest"
	"ppwr/internal/telemetry"
)

// A traced request is a server span named by its operation id, continuing
// the caller's traceparent, and its SQL statements are its children.
func TestRequestSpanHasItsSQL(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	telemetry.InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)))
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})

	const caller = "00f067aa0ba902b7"
	const traceID = "4bf92f3577b34da6a3ce929e0e4736ce"
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey(), "traceparent": "00-" + traceID + "-" + caller + "-01"},
		Body: `{"internalCode":"TRACE-1","name":"Traced","sourcingType":"purchased","massG":"1",
			"mainMaterialCode":"PAPER","stockUnit":"piece","foodContactStatus":"unknown","reuseType":"single_use"}`})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())

	var request *tracetest.SpanStub
	all := spans.GetSpans()
	for i := range all {
		if all[i].Name == "createCatalogItem" {
			request = &all[i]
		}
	}
	require.NotNil(t, request, "a span named by the operation id")
	assert.Equal(t, traceID, request.SpanContext.TraceID().String(), "the caller's trace")
	assert.Equal(t, caller, request.Parent.SpanID().String())
	assert.Equal(t, trace.SpanKindServer, request.SpanKind)

	var insert bool
	for _, s := range all {
		if s.Parent.SpanID() == request.SpanContext.SpanID() && s.SpanKind == trace.SpanKindClient {
			assert.Equal(t, traceID, s.SpanContext.TraceID().String())
			insert = insert || strings.Contains(s.Name, "catalog_items")
		}
	}
	assert.True(t, insert, "the item's insert is a child of the request")

	// A GORM statement of the request (the read's) runs under the
	// request's bound on PostgreSQL, whose callbacks swap the statement's
	// context: its span must still end as its own, not end the request's.
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items/" + res.JSON["id"].(string)), Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	all = spans.GetSpans()
	var read *tracetest.SpanStub
	for i := range all {
		if all[i].Name == "getCatalogItem" {
			read = &all[i]
		}
	}
	require.NotNil(t, read, "the read's span is named by its operation id")
	var selects int
	for _, s := range all {
		if s.Parent.SpanID() == read.SpanContext.SpanID() && s.Name == "SELECT catalog_items" {
			selects++
			assert.Contains(t, s.Attributes, attribute.String("db.system.name", "postgresql"))
		}
	}
	assert.Equal(t, 1, selects, "the item's select is a child span of the read, ended")
}
