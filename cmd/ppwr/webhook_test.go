package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/testenv"
)

func webhookOrg(t *testing.T) string {
	t.Helper()
	return str(t, mustAdmin(t, "org", "create", "--name", "Webhooks", "--slug", "webhooks-"+uuid.NewString()[:8]), "id")
}

// auditSummaries returns the summaries of the operator's entries for one
// operation on one record, as text.
func auditSummaries(t *testing.T, db *gorm.DB, orgID, operation, recordID string) []string {
	t.Helper()
	var out []string
	require.NoError(t, db.Raw(`SELECT summary::text FROM audit_log
WHERE organization_id = ? AND operation = ? AND record_id = ? AND actor_kind = 'operator'`,
		orgID, operation, recordID).Scan(&out).Error)
	return out
}

func requireAdminError(t *testing.T, args ...string) string {
	t.Helper()
	obj, err := admin(t, args...)
	require.Error(t, err, "%v", args)
	e, ok := obj["error"].(map[string]any)
	require.True(t, ok, "error object for %v: %v", args, obj)
	assert.Len(t, obj, 1)
	msg, _ := e["message"].(string)
	require.NotEmpty(t, msg)
	return msg
}

func TestAdminWebhookAdd(t *testing.T) {
	db := testenv.DB(t)
	t.Setenv("WEBHOOK_ALLOW_HTTP_LOOPBACK", "false")
	orgID := webhookOrg(t)

	obj := mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/ppwr", "--events", "catalog_item.created,import.failed")
	assert.Len(t, obj, 2, "only id and secret: %v", obj)
	id, secret := str(t, obj, "id"), str(t, obj, "secret")
	assert.True(t, strings.HasPrefix(secret, "whsec_"), "secret %q", secret)

	var stored webhooks.WebhookEndpoint
	require.NoError(t, db.First(&stored, "id = ?", id).Error)
	assert.Equal(t, orgID, stored.OrganizationID.String())
	assert.Equal(t, []string{"catalog_item.created", "import.failed"}, []string(stored.Events))
	assert.Equal(t, secret, stored.Secret)
	assert.Equal(t, webhooks.EndpointActive, stored.Status)

	summaries := auditSummaries(t, db, orgID, "admin.webhook.add", id)
	require.Len(t, summaries, 1)
	assert.NotContains(t, summaries[0], secret)
	assert.NotContains(t, summaries[0], strings.TrimPrefix(secret, "whsec_"))

	all := mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/all")
	var allStored webhooks.WebhookEndpoint
	require.NoError(t, db.First(&allStored, "id = ?", str(t, all, "id")).Error)
	assert.Equal(t, []string{webhooks.AllEvents}, []string(allStored.Events), "events default to all")

	loopback := []string{"webhook", "add", "--org", orgID, "--url", "http://127.0.0.1:9000/hook"}
	assert.Contains(t, requireAdminError(t, loopback...), "https")
	for _, bad := range [][]string{
		{"webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/x", "--events", "catalog_item.created,catalog_item.exploded"},
		{"webhook", "add", "--org", orgID, "--url", "not a url"},
		{"webhook", "add", "--org", uuid.NewString(), "--url", "https://hooks.example.test/x"},
	} {
		requireAdminError(t, bad...)
	}
	assert.Contains(t, requireAdminError(t, "webhook", "add", "--org", uuid.NewString(), "--url", "https://hooks.example.test/x"), "does not exist")

	t.Setenv("WEBHOOK_ALLOW_HTTP_LOOPBACK", "true")
	dev := mustAdmin(t, loopback...)
	assert.Len(t, dev, 2)
	// The setting opens loopback only, never plain http to other hosts.
	requireAdminError(t, "webhook", "add", "--org", orgID, "--url", "http://hooks.example.test/hook")
	requireAdminError(t, "webhook", "add", "--org", orgID, "--url", "http://10.0.0.5/hook")

	var n int64
	require.NoError(t, db.Model(&webhooks.WebhookEndpoint{}).Where("organization_id = ?", orgID).Count(&n).Error)
	assert.EqualValues(t, 3, n, "refused commands stored nothing")
}

func TestAdminWebhookListDisableRotate(t *testing.T) {
	db := testenv.DB(t)
	orgID := webhookOrg(t)
	add := mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/a", "--events", "import.ready")
	id, secret := str(t, add, "id"), str(t, add, "secret")
	other := mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/b")

	list := mustAdmin(t, "webhook", "list", "--org", orgID)
	endpoints, ok := list["endpoints"].([]any)
	require.True(t, ok, "%v", list)
	require.Len(t, endpoints, 2)
	first := endpoints[0].(map[string]any)
	assert.Equal(t, id, first["id"])
	assert.Equal(t, "https://hooks.example.test/a", first["url"])
	assert.Equal(t, []any{"import.ready"}, first["events"])
	assert.Equal(t, "active", first["status"])
	assert.Equal(t, false, first["rotating"])
	assert.NotEmpty(t, first["createdAt"])
	assert.Equal(t, str(t, other, "id"), endpoints[1].(map[string]any)["id"])
	assert.Empty(t, mustAdmin(t, "webhook", "list", "--org", webhookOrg(t))["endpoints"])
	requireAdminError(t, "webhook", "list", "--org", uuid.NewString())

	// Rotation: a new secret, the old one kept with an expiry --grace ahead.
	before := time.Now()
	rot := mustAdmin(t, "webhook", "rotate-secret", "--endpoint", id, "--grace", "2h")
	assert.Len(t, rot, 3, "%v", rot)
	assert.Equal(t, id, rot["id"])
	newSecret := str(t, rot, "secret")
	assert.True(t, strings.HasPrefix(newSecret, "whsec_"))
	assert.NotEqual(t, secret, newSecret)
	expires, err := time.Parse(time.RFC3339Nano, str(t, rot, "previousSecretExpiresAt"))
	require.NoError(t, err)
	assert.WithinDuration(t, before.Add(2*time.Hour), expires, time.Minute)

	var stored webhooks.WebhookEndpoint
	require.NoError(t, db.First(&stored, "id = ?", id).Error)
	assert.Equal(t, newSecret, stored.Secret)
	require.NotNil(t, stored.PreviousSecret)
	assert.Equal(t, secret, *stored.PreviousSecret)
	require.NotNil(t, stored.PreviousSecretExpiresAt)
	assert.WithinDuration(t, expires, *stored.PreviousSecretExpiresAt, time.Millisecond)
	assert.ElementsMatch(t, []string{newSecret, secret}, stored.SigningSecrets(time.Now()), "both sign during the grace")

	summaries := auditSummaries(t, db, orgID, "admin.webhook.rotate_secret", id)
	require.Len(t, summaries, 1)
	for _, s := range []string{secret, newSecret} {
		assert.NotContains(t, summaries[0], s)
		assert.NotContains(t, summaries[0], strings.TrimPrefix(s, "whsec_"))
	}

	list = mustAdmin(t, "webhook", "list", "--org", orgID)
	assert.Equal(t, true, list["endpoints"].([]any)[0].(map[string]any)["rotating"])
	listed, err := json.Marshal(list)
	require.NoError(t, err)
	for _, s := range []string{secret, newSecret} {
		assert.NotContains(t, string(listed), strings.TrimPrefix(s, "whsec_"), "list never shows a secret")
	}

	dis := mustAdmin(t, "webhook", "disable", "--endpoint", id)
	assert.Equal(t, map[string]any{"id": id, "status": "disabled"}, dis)
	var disabled, untouched webhooks.WebhookEndpoint
	require.NoError(t, db.First(&disabled, "id = ?", id).Error)
	assert.Equal(t, webhooks.EndpointDisabled, disabled.Status)
	require.NoError(t, db.First(&untouched, "id = ?", str(t, other, "id")).Error)
	assert.Equal(t, webhooks.EndpointActive, untouched.Status, "only the named endpoint")
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.webhook.disable", id))
	assert.Equal(t, dis, mustAdmin(t, "webhook", "disable", "--endpoint", id))
	assert.Equal(t, 1, operatorAudits(t, db, orgID, "admin.webhook.disable", id), "a repeated disable changes nothing")
	assert.Equal(t, "disabled", mustAdmin(t, "webhook", "list", "--org", orgID)["endpoints"].([]any)[0].(map[string]any)["status"])

	assert.Contains(t, requireAdminError(t, "webhook", "disable", "--endpoint", uuid.NewString()), "does not exist")
	requireAdminError(t, "webhook", "rotate-secret", "--endpoint", uuid.NewString())
	requireAdminError(t, "webhook", "rotate-secret", "--endpoint", id, "--grace", "-1h")
	requireAdminError(t, "webhook", "disable", "--endpoint", "nope")
}

func TestAdminWebhookDeliveries(t *testing.T) {
	db := testenv.DB(t)
	orgID := webhookOrg(t)
	endpointID := str(t, mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/d"), "id")
	otherID := str(t, mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/other"), "id")

	now := time.Now().UTC().Truncate(time.Millisecond)
	eventID, olderEventID := domain.NewID(), domain.NewID()
	deliveryID, olderID, otherDeliveryID := domain.NewID(), domain.NewID(), domain.NewID()
	exec := func(sql string, args ...any) {
		t.Helper()
		require.NoError(t, db.Exec(sql, args...).Error)
	}
	exec(`INSERT INTO events (id, organization_id, type, body, created_at) VALUES (?, ?, 'import.failed', '{}', ?), (?, ?, 'catalog_item.created', '{}', ?)`,
		eventID, orgID, now.Add(-time.Hour), olderEventID, orgID, now.Add(-2*time.Hour))
	retry := now.Add(30 * time.Second)
	exec(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id, status, attempts, last_error, next_attempt_at, created_at, completed_at) VALUES
(?, ?, ?, 'succeeded', 2, '', NULL, ?, ?),
(?, ?, ?, 'pending', 1, 'receiver answered 503', ?, ?, NULL),
(?, ?, ?, 'pending', 0, '', NULL, ?, NULL)`,
		deliveryID, eventID, endpointID, now.Add(-time.Hour), now,
		olderID, olderEventID, endpointID, retry, now.Add(-2*time.Hour),
		otherDeliveryID, eventID, otherID, now)
	// Inserted out of order: the log must come back in attempt order.
	exec(`INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms, error) VALUES
(?, ?, ?, 200, 35, ''), (?, ?, ?, NULL, 10000, 'timeout'), (?, ?, ?, 503, 12, 'receiver answered 503')`,
		domain.NewID(), deliveryID, now, domain.NewID(), deliveryID, now.Add(-30*time.Minute), domain.NewID(), olderID, now)

	obj := mustAdmin(t, "webhook", "deliveries", "--endpoint", endpointID)
	assert.Equal(t, endpointID, obj["endpointId"])
	deliveries, ok := obj["deliveries"].([]any)
	require.True(t, ok, "%v", obj)
	require.Len(t, deliveries, 2, "only this endpoint's deliveries")

	d := deliveries[0].(map[string]any)
	assert.Equal(t, deliveryID.String(), d["id"], "newest first")
	assert.Equal(t, eventID.String(), d["eventId"])
	assert.Equal(t, "import.failed", d["eventType"])
	assert.Equal(t, "succeeded", d["status"])
	assert.EqualValues(t, 2, d["attempts"])
	assert.Equal(t, "", d["lastError"])
	assert.Nil(t, d["nextAttemptAt"], "a delivery that succeeded is not tried again")
	assert.NotEmpty(t, d["createdAt"])
	assert.NotNil(t, d["completedAt"])
	log, ok := d["attemptLog"].([]any)
	require.True(t, ok, "%v", d)
	require.Len(t, log, 2)
	a0, a1 := log[0].(map[string]any), log[1].(map[string]any)
	assert.Nil(t, a0["statusCode"])
	assert.Equal(t, "timeout", a0["error"])
	assert.EqualValues(t, 10000, a0["durationMs"])
	assert.EqualValues(t, 200, a1["statusCode"])
	assert.Equal(t, "", a1["error"])
	assert.EqualValues(t, 35, a1["durationMs"])
	at0, err := time.Parse(time.RFC3339Nano, a0["attemptedAt"].(string))
	require.NoError(t, err)
	assert.True(t, at0.Equal(now.Add(-30*time.Minute)), "%v", at0)

	older := deliveries[1].(map[string]any)
	assert.Equal(t, olderID.String(), older["id"])
	assert.Equal(t, "catalog_item.created", older["eventType"])
	assert.Nil(t, older["completedAt"])
	assert.Equal(t, "receiver answered 503", older["lastError"], "a failed attempt shows its error")
	next, err := time.Parse(time.RFC3339Nano, older["nextAttemptAt"].(string))
	require.NoError(t, err)
	assert.True(t, next.Equal(retry), "and when the delivery is tried next: %v", next)
	require.Len(t, older["attemptLog"], 1)
	assert.EqualValues(t, 503, older["attemptLog"].([]any)[0].(map[string]any)["statusCode"])

	limited := mustAdmin(t, "webhook", "deliveries", "--endpoint", endpointID, "--limit", "1")
	require.Len(t, limited["deliveries"], 1)
	assert.Equal(t, deliveryID.String(), limited["deliveries"].([]any)[0].(map[string]any)["id"])

	requireAdminError(t, "webhook", "deliveries", "--endpoint", endpointID, "--limit", "0")
	assert.Contains(t, requireAdminError(t, "webhook", "deliveries", "--endpoint", uuid.NewString()), "does not exist")
}

// Without --json an operator reads one line per delivery, its attempts
// indented below it.
func TestAdminWebhookHumanOutput(t *testing.T) {
	db := testenv.DB(t)
	orgID := webhookOrg(t)
	endpointID := str(t, mustAdmin(t, "webhook", "add", "--org", orgID, "--url", "https://hooks.example.test/h"), "id")
	eventID, deliveryID := domain.NewID(), domain.NewID()
	require.NoError(t, db.Exec(`INSERT INTO events (id, organization_id, type, body) VALUES (?, ?, 'import.ready', '{}')`, eventID, orgID).Error)
	require.NoError(t, db.Exec(`INSERT INTO webhook_deliveries (id, event_id, endpoint_id) VALUES (?, ?, ?)`, deliveryID, eventID, endpointID).Error)
	require.NoError(t, db.Exec(`INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status_code, duration_ms) VALUES (?, ?, now(), 503, 12)`, domain.NewID(), deliveryID).Error)

	var out bytes.Buffer
	root := rootCommand()
	root.SetArgs([]string{"admin", "webhook", "deliveries", "--endpoint", endpointID})
	root.SetOut(&out)
	root.SetErr(io.Discard)
	require.NoError(t, root.ExecuteContext(context.Background()))
	text := out.String()
	assert.Contains(t, text, "endpointId: "+endpointID+"\n")
	assert.Contains(t, text, "deliveries: 1\n")
	assert.Contains(t, text, "  - ")
	assert.Contains(t, text, "id="+deliveryID.String())
	assert.Contains(t, text, "completedAt=-")
	assert.Contains(t, text, "    attemptLog: 1\n")
	assert.Contains(t, text, "statusCode=503")
	assert.NotContains(t, text, "map[")
}
