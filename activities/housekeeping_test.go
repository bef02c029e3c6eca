package activities_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/documents"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestPurgeExpiredDeletesOnlyExpiredState(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)

	org, err := accounts.CreateOrganization(ctx, db, "Purge Test", "purge-"+uuid.NewString()[:8])
	require.NoError(t, err)
	user, err := accounts.CreateUser(ctx, db, "purge-"+uuid.NewString()[:8]+"@example.test", "", true, false)
	require.NoError(t, err)
	key, _, err := accounts.CreateAPIKey(ctx, db, org.ID, user.ID, "purge", []string{"catalog:read"})
	require.NoError(t, err)

	insertKey := func(name, expiresIn string) {
		require.NoError(t, db.Exec(`
INSERT INTO idempotency_keys (api_key_id, key, operation, fingerprint, response_status, response_body, expires_at)
VALUES (?, ?, 'op', '\x00', 201, '', now() + ?::interval)`, key.ID, name, expiresIn).Error)
	}
	insertKey("expired", "-1 hour")
	insertKey("live", "23 hours")

	insertBucket := func(name, tatIn string) {
		require.NoError(t, db.Exec(`INSERT INTO rate_limit_buckets (bucket, tat, granted) VALUES (?, now() + ?::interval, 1)`, name, tatIn).Error)
	}
	// A bucket whose theoretical arrival time has passed holds no state a
	// missing row would not; one still in the future is throttling someone.
	insertBucket("drained-"+key.ID.String(), "-5 seconds")
	insertBucket("busy-"+key.ID.String(), "30 seconds")

	insertStart := func(workflowID string, startedAgo string) {
		start, err := domain.NewWorkflowStart(workflowID, "Test", org.ID.String(), org.ID.String(), nil)
		require.NoError(t, err)
		require.NoError(t, db.Create(start).Error)
		if startedAgo != "" {
			require.NoError(t, db.Exec(`UPDATE workflow_starts SET started_at = now() - ?::interval WHERE id = ?`, startedAgo, start.ID).Error)
		}
	}
	insertStart("started-long-ago/"+key.ID.String(), "8 days")
	insertStart("started-lately/"+key.ID.String(), "1 day")
	insertStart("never-started/"+key.ID.String(), "")

	// GET /events serves events for at least 30 days: housekeeping keeps
	// one older than that.
	event, err := domain.NewEvent(org.ID, documents.DocumentVersionCreated{ID: org.ID, Status: "stored"})
	require.NoError(t, err)
	require.NoError(t, db.Create(event).Error)
	require.NoError(t, db.Exec(`UPDATE events SET created_at = now() - interval '31 days' WHERE id = ?`, event.ID).Error)

	h := &activities.Housekeeping{DB: db}
	res, err := h.PurgeExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.IdempotencyKeys)
	assert.Equal(t, int64(1), res.RateBuckets)
	assert.Equal(t, int64(1), res.WorkflowStarts)

	var keys []string
	require.NoError(t, db.Raw(`SELECT key FROM idempotency_keys WHERE api_key_id = ? ORDER BY key`, key.ID).Scan(&keys).Error)
	assert.Equal(t, []string{"live"}, keys)
	var buckets []string
	require.NoError(t, db.Raw(`SELECT bucket FROM rate_limit_buckets WHERE bucket LIKE ? ORDER BY bucket`, "%"+key.ID.String()).Scan(&buckets).Error)
	assert.Equal(t, []string{"busy-" + key.ID.String()}, buckets)
	var starts []string
	require.NoError(t, db.Raw(`SELECT workflow_id FROM workflow_starts WHERE workflow_id LIKE ? ORDER BY workflow_id`, "%"+key.ID.String()).Scan(&starts).Error)
	assert.Equal(t, []string{"never-started/" + key.ID.String(), "started-lately/" + key.ID.String()}, starts)
	var events int64
	require.NoError(t, db.Model(&domain.Event{}).Where("id = ?", event.ID).Count(&events).Error)
	assert.EqualValues(t, 1, events, "events are kept at least 30 days")

	// Temporal may retry the activity after it already purged: a second run
	// must succeed and find nothing more to delete.
	res, err = h.PurgeExpired(ctx)
	require.NoError(t, err)
	assert.Equal(t, activities.PurgeResult{}, res)
}

func TestExpiredDocumentsOpenOneIssuePerLink(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	org, err := accounts.CreateOrganization(ctx, db, "Expiry Test", "expiry-"+uuid.NewString()[:8])
	require.NoError(t, err)
	item := domain.NewID()
	require.NoError(t, db.Exec(`INSERT INTO catalog_items (id, organization_id, internal_code, name, sourcing_type, mass_g,
		main_material_code, stock_unit, food_contact_status, reuse_type, status, revision)
		VALUES (?, ?, 'EXP', 'Expiring', 'purchased', 1, 'PAPER', 'piece', 'unknown', 'single_use', 'active', 1)`, item, org.ID).Error)
	link := func(validUntil string, review string) uuid.UUID {
		doc, version, link := domain.NewID(), domain.NewID(), domain.NewID()
		require.NoError(t, db.Exec(`INSERT INTO documents (id, organization_id, document_type, title, catalog_item_id, valid_until, version_count)
			VALUES (?, ?, 'supplier_declaration', 'Deklaracja', ?, ?::date, 1)`, doc, org.ID, item, validUntil).Error)
		require.NoError(t, db.Exec(`INSERT INTO document_versions (id, organization_id, document_id, version, file_name, object_key,
			size_bytes, sha256, processing_status, review_status) VALUES (?, ?, ?, 1, 'd.txt', 'k', 1, 'x', 'review_required', ?)`,
			version, org.ID, doc, review).Error)
		require.NoError(t, db.Exec(`INSERT INTO traceability_links (id, organization_id, catalog_item_id, document_version_id, document_id,
			link_type, catalog_revision) VALUES (?, ?, ?, ?, ?, 'supplier_declaration', 1)`, link, org.ID, item, version, doc).Error)
		return link
	}
	expired := link("2026-01-01", documents.ReviewApproved)
	link("2999-01-01", documents.ReviewApproved)
	link("2026-01-01", documents.ReviewRevoked)

	h := &activities.Housekeeping{DB: db}
	opened, err := h.OpenExpiryIssues(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, opened, 1)
	var issues []domain.ComplianceIssue
	require.NoError(t, db.Where("organization_id = ? AND kind = ?", org.ID, domain.IssueDocumentExpired).Find(&issues).Error)
	require.Len(t, issues, 1, "only the approved link whose document expired")
	assert.Equal(t, expired, issues[0].SubjectID)
	assert.Equal(t, item, *issues[0].CatalogItemID)

	_, err = h.OpenExpiryIssues(ctx)
	require.NoError(t, err)
	var count int64
	require.NoError(t, db.Model(&domain.ComplianceIssue{}).Where("organization_id = ?", org.ID).Count(&count).Error)
	assert.EqualValues(t, 1, count, "a link's issue is opened once")
}
