package webhooks_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/webhooks"
	"ppwr/internal/access"
	"ppwr/internal/config"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func get(t *testing.T, a *apitest.API, tn apitest.Tenant, suffix string) *apitest.Response {
	t.Helper()
	return a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path(suffix), Token: tn.Token})
}

func write(t *testing.T, a *apitest.API, tn apitest.Tenant, method, suffix string, body any) *apitest.Response {
	t.Helper()
	return a.Do(apitest.Req{Method: method, Path: tn.Path(suffix), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

// emit stores an event of the organization as a change would.
func emit(t *testing.T, a *apitest.API, org uuid.UUID, p domain.Payload) *domain.Event {
	t.Helper()
	e, err := domain.NewEvent(org, p)
	require.NoError(t, err)
	require.NoError(t, a.DB.Create(e).Error)
	return e
}

// ids reads every page of a list from suffix, following links.next.
func ids(t *testing.T, a *apitest.API, tn apitest.Tenant, suffix string) []string {
	t.Helper()
	var out []string
	next := tn.Path(suffix)
	for pages := 0; next != ""; pages++ {
		require.Less(t, pages, 10)
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: next, Token: tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, row := range res.JSON["data"].([]any) {
			out = append(out, row.(map[string]any)["id"].(string))
		}
		next = ""
		if link, ok := res.JSON["links"].(map[string]any)["next"].(string); ok {
			next = strings.TrimPrefix(link, apitest.Base)
		}
	}
	return out
}

// The feed answers the organization's events newest first, each the
// exact body its deliveries POST, filtered by type, resource and time,
// page by page; another organization's event is not found.
func TestEventsFeed(t *testing.T) {
	a := apitest.New(t)
	tn, other := a.NewTenant(apitest.TenantSpec{}), a.NewTenant(apitest.TenantSpec{})
	item, otherItem := uuid.New(), uuid.New()
	first := emit(t, a, tn.Org, catalog.CatalogItemCreated{CatalogItemID: item, Revision: 1})
	time.Sleep(2 * time.Millisecond)
	second := emit(t, a, tn.Org, catalog.CatalogItemUpdated{CatalogItemID: item, Revision: 2})
	third := emit(t, a, tn.Org, catalog.CatalogItemUpdated{CatalogItemID: otherItem, Revision: 2})
	foreign := emit(t, a, other.Org, catalog.CatalogItemUpdated{CatalogItemID: item, Revision: 2})

	all := ids(t, a, tn, "/events?per_page=2")
	assert.Equal(t, []string{third.ID.String(), second.ID.String(), first.ID.String()}, all, "newest first over two pages, the organization's only")

	res := get(t, a, tn, "/events/"+second.ID.String())
	require.Equal(t, http.StatusOK, res.Code)
	assert.JSONEq(t, second.Body, res.Body.String())
	assert.Equal(t, second.Body, strings.TrimSpace(res.Body.String()), "byte for byte the delivered body")

	assert.Equal(t, []string{third.ID.String(), second.ID.String()}, ids(t, a, tn, "/events?type=catalog_item.updated"))
	assert.Equal(t, []string{second.ID.String(), first.ID.String()}, ids(t, a, tn, "/events?resource="+item.String()))
	after := url.QueryEscape(first.CreatedAt.Format(time.RFC3339Nano))
	assert.Equal(t, []string{third.ID.String(), second.ID.String()}, ids(t, a, tn, "/events?created_after="+after))
	assert.Equal(t, []string{second.ID.String()}, ids(t, a, tn, "/events?type=catalog_item.updated&resource="+item.String()+"&created_after="+after))

	// A cursor belongs to its filters.
	res = get(t, a, tn, "/events?per_page=1&type=catalog_item.updated")
	next := res.JSON["links"].(map[string]any)["next"].(string)
	cursor, err := url.Parse(next)
	require.NoError(t, err)
	res = get(t, a, tn, "/events?cursor="+cursor.Query().Get("cursor"))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)

	for _, bad := range []string{"?type=catalog_item.exploded", "?resource=nope", "?created_after=yesterday", "?created_after=2026-11-21"} {
		res := get(t, a, tn, "/events"+bad)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, bad)
		assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode(), bad)
	}
	assert.Equal(t, http.StatusNotFound, get(t, a, tn, "/events/"+foreign.ID.String()).Code, "another organization's event")

	// Reads need the ability and the permission.
	noAbility := a.AddUser(tn.Org, apitest.TenantSpec{Abilities: []string{string(access.CatalogRead)}})
	assert.Equal(t, kit.CodeMissingAbility, get(t, a, noAbility, "/events").ErrorCode())
	member := a.AddUser(tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{string(access.CatalogView)}})
	assert.Equal(t, kit.CodeMissingPermission, get(t, a, member, "/events").ErrorCode())
	granted := a.AddUser(tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{string(access.WebhooksManagePerm)},
		Abilities: []string{string(access.EventsRead)}})
	assert.Equal(t, http.StatusOK, get(t, a, granted, "/events").Code)
	assert.Equal(t, kit.CodeMissingAbility, get(t, a, granted, "/webhook-endpoints").ErrorCode(), "reading events does not manage endpoints")
}

// An integration manages its endpoint from creation to deletion: the
// secret shows once, changes are audited and idempotent, and another
// organization's endpoint is not found.
func TestEndpointLifecycle(t *testing.T) {
	a := apitest.New(t)
	tn, other := a.NewTenant(apitest.TenantSpec{}), a.NewTenant(apitest.TenantSpec{})

	key := apitest.IdemKey()
	create := func() *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/webhook-endpoints"), Token: tn.Token,
			Headers: map[string]string{"Idempotency-Key": key},
			Body:    map[string]any{"url": "https://203.0.113.10/ppwr", "events": []string{"import.completed", "catalog_item.updated"}}})
	}
	res := create()
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	secret := res.JSON["secret"].(string)
	assert.True(t, strings.HasPrefix(secret, "whsec_"))
	assert.Equal(t, apitest.Base+tn.Path("/webhook-endpoints/"+id), res.Header().Get("Location"))
	assert.Equal(t, "active", res.JSON["status"])
	replay := create()
	assert.Equal(t, "true", replay.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, id, replay.JSON["id"], "a retried create makes no second endpoint")

	res = get(t, a, tn, "/webhook-endpoints/"+id)
	require.Equal(t, http.StatusOK, res.Code)
	assert.NotContains(t, res.Body.String(), secret, "the secret is shown once")
	assert.Nil(t, res.JSON["previous_secret_expires_at"])
	assert.Equal(t, []string{id}, ids(t, a, tn, "/webhook-endpoints"))

	res = write(t, a, tn, http.MethodPatch, "/webhook-endpoints/"+id, map[string]any{"url": "https://203.0.113.11/v2", "events": []string{"*", "import.failed"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "https://203.0.113.11/v2", res.JSON["url"])
	assert.Equal(t, []any{"*"}, res.JSON["events"], "every type holds the others")

	res = write(t, a, tn, http.MethodPost, "/webhook-endpoints/"+id+"/rotate-secret", map[string]any{"grace_seconds": 3600})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	rotated := res.JSON["secret"].(string)
	assert.NotEqual(t, secret, rotated)
	assert.NotNil(t, res.JSON["previous_secret_expires_at"])
	var stored webhooks.WebhookEndpoint
	require.NoError(t, a.DB.First(&stored, "id = ?", id).Error)
	assert.Equal(t, []string{rotated, secret}, stored.SigningSecrets(time.Now()), "the previous secret signs during the grace")

	res = write(t, a, tn, http.MethodPost, "/webhook-endpoints/"+id+"/disable", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "disabled", res.JSON["status"])

	// Another organization's key finds nothing of it.
	for _, probe := range []apitest.Req{
		{Method: http.MethodGet, Path: other.Path("/webhook-endpoints/" + id)},
		{Method: http.MethodGet, Path: other.Path("/webhook-endpoints/" + id + "/deliveries")},
		{Method: http.MethodPatch, Path: other.Path("/webhook-endpoints/" + id), Body: map[string]any{"events": []string{"*"}}},
		{Method: http.MethodDelete, Path: other.Path("/webhook-endpoints/" + id)},
	} {
		probe.Token = other.Token
		probe.Headers = map[string]string{"Idempotency-Key": apitest.IdemKey()}
		assert.Equal(t, http.StatusNotFound, a.Do(probe).Code, "%s %s", probe.Method, probe.Path)
	}

	res = write(t, a, tn, http.MethodDelete, "/webhook-endpoints/"+id, nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, true, res.JSON["deleted"])
	assert.Equal(t, http.StatusNotFound, get(t, a, tn, "/webhook-endpoints/"+id).Code)
	assert.Empty(t, ids(t, a, tn, "/webhook-endpoints"))

	for _, op := range []string{"createWebhookEndpoint", "updateWebhookEndpoint", "rotateWebhookEndpointSecret", "disableWebhookEndpoint", "deleteWebhookEndpoint"} {
		entries := a.AuditEntries(tn.Org, op)
		require.Len(t, entries, 1, op)
		assert.Equal(t, domain.ActorAPIKey, entries[0].ActorKind, op)
		assert.Equal(t, "webhook_endpoint", entries[0].RecordType, op)
		assert.NotContains(t, string(entries[0].Summary), "whsec_", op)
	}

	// Writes need webhooks:manage and webhooks.manage.
	reader := a.AddUser(tn.Org, apitest.TenantSpec{Abilities: []string{string(access.EventsRead)}})
	assert.Equal(t, kit.CodeMissingAbility, write(t, a, reader, http.MethodPost, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/"}).ErrorCode())
	member := a.AddUser(tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{string(access.CatalogUpdate)}})
	assert.Equal(t, kit.CodeMissingPermission, write(t, a, member, http.MethodPost, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/"}).ErrorCode())
}

// An endpoint URL is https, and reaches no internal address, even by
// name; development opens loopback only.
func TestEndpointURLGuard(t *testing.T) {
	// Production: loopback closed, whatever the environment the tests run
	// in (the local stack opens it for development).
	a := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.WebhookAllowHTTPLoopback = false }))
	tn := a.NewTenant(apitest.TenantSpec{})
	refused := map[string]string{
		"http://203.0.113.10/hook":                  "must use https",
		"https://10.0.0.5/hook":                     "must not resolve to a private",
		"https://169.254.169.254/latest/meta-data/": "must not resolve to a private",
		"https://[fd00:ec2::254]/":                  "must not resolve to a private",
		"https://localhost:8443/hook":               "must not resolve to a private",
		"https://127.0.0.1/hook":                    "must not resolve to a private",
		"not a url":                                 "must be an absolute URL",
	}
	for raw, message := range refused {
		res := write(t, a, tn, http.MethodPost, "/webhook-endpoints", map[string]any{"url": raw})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, raw)
		assert.Contains(t, fmt.Sprint(res.FieldErrors()["url"]), message, raw)
	}
	res := write(t, a, tn, http.MethodPost, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/", "events": []string{"catalog_item.exploded"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, fmt.Sprint(res.FieldErrors()["events"]), "catalog_item.exploded")
	assert.Empty(t, ids(t, a, tn, "/webhook-endpoints"), "nothing refused is stored")

	created := write(t, a, tn, http.MethodPost, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/"})
	require.Equal(t, http.StatusCreated, created.Code)
	res = write(t, a, tn, http.MethodPatch, "/webhook-endpoints/"+created.JSON["id"].(string), map[string]any{"url": "https://192.168.0.10/"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "an update is checked as a create is")

	dev := apitest.New(t, apitest.WithConfig(func(c *config.Config) { c.WebhookAllowHTTPLoopback = true }))
	devTenant := dev.NewTenant(apitest.TenantSpec{})
	for _, raw := range []string{"http://localhost:9000/hook", "http://127.0.0.1:9000/hook", "https://localhost/hook"} {
		res := write(t, dev, devTenant, http.MethodPost, "/webhook-endpoints", map[string]any{"url": raw})
		assert.Equal(t, http.StatusCreated, res.Code, "%s: %s", raw, res.Body.String())
	}
	for _, raw := range []string{"http://10.0.0.5/hook", "https://169.254.169.254/"} {
		res := write(t, dev, devTenant, http.MethodPost, "/webhook-endpoints", map[string]any{"url": raw})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "development opens loopback only: %s", raw)
	}
}

// An endpoint's deliveries show their attempts, and a resend records a
// run of its own that the relay starts after commit.
func TestDeliveriesAndResend(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	res := write(t, a, tn, http.MethodPost, "/webhook-endpoints", map[string]any{"url": "https://203.0.113.10/"})
	require.Equal(t, http.StatusCreated, res.Code)
	endpoint := uuid.MustParse(res.JSON["id"].(string))

	event := emit(t, a, tn.Org, catalog.CatalogItemUpdated{CatalogItemID: uuid.New(), Revision: 2})
	done := time.Now().UTC().Truncate(time.Microsecond)
	delivery := webhooks.WebhookDelivery{ID: domain.NewID(), EventID: event.ID, EndpointID: endpoint, Status: webhooks.DeliverySucceeded,
		Attempts: 2, LastError: "", CreatedAt: done, CompletedAt: &done}
	require.NoError(t, a.DB.Create(&delivery).Error)
	status500, status204 := 500, 204
	for i, code := range []*int{&status500, &status204} {
		require.NoError(t, a.DB.Create(&webhooks.WebhookAttempt{ID: domain.NewID(), DeliveryID: delivery.ID,
			AttemptedAt: done.Add(time.Duration(i-1) * time.Minute), StatusCode: code, DurationMs: 12}).Error)
	}

	path := "/webhook-endpoints/" + endpoint.String() + "/deliveries"
	res = get(t, a, tn, path)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	require.Len(t, res.JSON["data"], 1)
	row := res.JSON["data"].([]any)[0].(map[string]any)
	assert.Equal(t, "catalog_item.updated", row["event_type"])
	assert.Equal(t, "succeeded", row["status"])
	assert.EqualValues(t, 2, row["attempts"])
	assert.EqualValues(t, 204, row["last_status"])
	assert.Len(t, row["attempt_log"], 2)

	res = write(t, a, tn, http.MethodPost, path+"/"+delivery.ID.String()+"/resend", nil)
	require.Equal(t, http.StatusAccepted, res.Code, res.Body.String())
	assert.Equal(t, "pending", res.JSON["status"])
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), res.Header().Get("Retry-After"), "a 202 says when to read the delivery again")
	var starts []domain.WorkflowStart
	require.NoError(t, a.DB.Where("workflow_type = ? AND resource_id = ?", webhooks.DeliveryWorkflow.Type, event.ID.String()).Find(&starts).Error)
	require.Len(t, starts, 1, "the resend is recorded for the relay")
	assert.True(t, strings.HasPrefix(starts[0].WorkflowID, "webhook/"+event.ID.String()+"/"+endpoint.String()+"/resend/"), starts[0].WorkflowID)
	var in webhooks.DeliveryInput
	require.NoError(t, json.Unmarshal(starts[0].Input, &in))
	assert.Equal(t, delivery.ID, in.DeliveryID)
	assert.Equal(t, tn.Org, in.OrganizationID)
	assert.Equal(t, a.Server.Config.WebhookRetryFor, in.RetryFor)

	second := write(t, a, tn, http.MethodPost, path+"/"+delivery.ID.String()+"/resend", nil)
	require.Equal(t, http.StatusAccepted, second.Code)
	var n int64
	require.NoError(t, a.DB.Model(&domain.WorkflowStart{}).Where("resource_id = ?", event.ID.String()).Count(&n).Error)
	assert.EqualValues(t, 2, n, "each resend is a run of its own")
	assert.Len(t, a.AuditEntries(tn.Org, "resendWebhookDelivery"), 2)

	assert.Equal(t, http.StatusNotFound, write(t, a, tn, http.MethodPost, path+"/"+uuid.NewString()+"/resend", nil).Code)
	require.Equal(t, http.StatusOK, write(t, a, tn, http.MethodPost, "/webhook-endpoints/"+endpoint.String()+"/disable", nil).Code)
	res = write(t, a, tn, http.MethodPost, path+"/"+delivery.ID.String()+"/resend", nil)
	assert.Equal(t, http.StatusConflict, res.Code)
	assert.Equal(t, "webhook_endpoint_disabled", res.ErrorCode())
}
