package worker_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/webhooks"
	"ppwr/internal/config"
	"ppwr/internal/telemetry"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// One trace runs from the HTTP request that records a workflow start
// (its traceparent, kept in the row) through the relay's start of it, the
// run and its activity, to the activity's SQL: a resend of a webhook
// delivery through the API, run by a worker built on a traced client.
func TestOneTraceRunsFromTheRequestToTheActivitySQL(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	telemetry.InstallTracer(sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans)))
	traced, err := temporalclient.Dial(config.Config{TemporalAddress: testenv.TemporalAddress(t), TemporalNamespace: "default"}, telemetry.TraceTemporal)
	require.NoError(t, err)
	defer traced.Close()
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	markStartedOnCleanup(t, a.DB, tn.Org)
	queue := "ppwr-trace-" + uuid.NewString()
	w := worker.New(worker.Deps{DB: a.DB, Temporal: traced, TaskQueue: queue, WebhookAllowHTTPLoopback: true})
	require.NoError(t, w.Start())
	defer w.Stop()

	receiver := newReceiver(t)
	endpoint := &webhooks.WebhookEndpoint{ID: domain.NewID(), OrganizationID: tn.Org, URL: receiver.URL,
		Events: pq.StringArray{webhooks.AllEvents}, Secret: webhooks.NewWebhookSecret(), Status: webhooks.EndpointActive}
	require.NoError(t, a.DB.Create(endpoint).Error)
	event, err := domain.NewEvent(tn.Org, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	require.NoError(t, err)
	require.NoError(t, a.DB.Create(event).Error)
	delivery := webhooks.WebhookDelivery{ID: domain.NewID(), EventID: event.ID, EndpointID: endpoint.ID,
		Status: webhooks.DeliveryFailed, CreatedAt: time.Now().UTC()}
	require.NoError(t, a.DB.Create(&delivery).Error)

	res := a.Do(apitest.Req{Method: http.MethodPost, Token: tn.Token, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()},
		Path: tn.Path("/webhook-endpoints/" + endpoint.ID.String() + "/deliveries/" + delivery.ID.String() + "/resend")})
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	var start domain.WorkflowStart
	require.NoError(t, a.DB.Take(&start, "workflow_type = ? AND resource_id = ?", webhooks.DeliveryWorkflow.Type, event.ID.String()).Error)
	relay := &worker.Relay{DB: a.DB, Temporal: traced, TaskQueue: queue}
	_, err = relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, traced.GetWorkflow(ctx, start.WorkflowID, "").Get(ctx, nil), "the resent delivery completes")
	require.Len(t, receiver.received(), 1, "the delivery was sent")

	all := spans.GetSpans()
	named := func(name string) *tracetest.SpanStub {
		for i := range all {
			if all[i].Name == name {
				return &all[i]
			}
		}
		return nil
	}
	request := named("resendWebhookDelivery")
	require.NotNil(t, request, "the request is a span")
	traceID := request.SpanContext.TraceID()
	for _, name := range []string{"StartWorkflow:" + webhooks.DeliveryWorkflow.Type, "RunWorkflow:" + webhooks.DeliveryWorkflow.Type, "RunActivity:Deliver"} {
		s := named(name)
		if assert.NotNil(t, s, "%s is a span", name) {
			assert.Equal(t, traceID, s.SpanContext.TraceID(), "%s is in the request's trace", name)
		}
	}
	activity := named("RunActivity:Deliver")
	require.NotNil(t, activity)
	var statements []string
	for _, s := range all {
		if s.Parent.SpanID() == activity.SpanContext.SpanID() && s.SpanKind == trace.SpanKindClient && s.InstrumentationScope.Name == "ppwr/sql" {
			assert.Equal(t, traceID, s.SpanContext.TraceID())
			statements = append(statements, s.Name)
		}
	}
	assert.Contains(t, statements, "SELECT webhook_deliveries", "the activity's SQL is its child, in the request's trace")
}
