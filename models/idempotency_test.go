package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/testenv"
	"ppwr/models"
)

// newAPIKey creates the organization, user and key an idempotency record
// belongs to (its api_key_id is a foreign key).
func newAPIKey(t *testing.T, db *gorm.DB) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	suffix := uuid.NewString()[:8]
	org, err := models.CreateOrganization(ctx, db, "Idem "+suffix, "idem-"+suffix)
	require.NoError(t, err)
	user, err := models.CreateUser(ctx, db, "idem-"+suffix+"@example.test", "", true, false)
	require.NoError(t, err)
	key, _, err := models.CreateAPIKey(ctx, db, org.ID, user.ID, "", []string{"catalog:write"})
	require.NoError(t, err)
	return key.ID
}

func TestClaimIdempotencyKeyReplaysCommittedResponse(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)
	fp := []byte("fingerprint-1")

	err := db.Transaction(func(tx *gorm.DB) error {
		rec, err := models.ClaimIdempotencyKey(ctx, tx, keyID, "k1", "createItem", fp)
		require.NoError(t, err)
		assert.Nil(t, rec, "a fresh key belongs to the caller")
		return models.CompleteIdempotencyKey(ctx, tx, keyID, "k1", 201, map[string]any{"Location": "/items/1"}, []byte(`{"id":1}`))
	})
	require.NoError(t, err)

	var rec *models.IdempotencyRecord
	require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
		rec, err = models.ClaimIdempotencyKey(ctx, tx, keyID, "k1", "createItem", fp)
		return err
	}))
	require.NotNil(t, rec)
	assert.Equal(t, 201, rec.ResponseStatus)
	assert.JSONEq(t, `{"id":1}`, string(rec.ResponseBody))
	assert.Equal(t, "/items/1", rec.ResponseHeaders["Location"])
	assert.True(t, rec.SameRequest("createItem", fp))
	assert.False(t, rec.SameRequest("createItem", []byte("other body")))
	assert.True(t, rec.ExpiresAt.After(time.Now().Add(23*time.Hour)), "kept at least 24 hours")
}

func TestClaimIdempotencyKeyTakesOverExpiredRecord(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)

	require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
		_, err := models.ClaimIdempotencyKey(ctx, tx, keyID, "k2", "createItem", []byte("old"))
		require.NoError(t, err)
		return models.CompleteIdempotencyKey(ctx, tx, keyID, "k2", 201, nil, []byte(`{"old":true}`))
	}))
	require.NoError(t, db.Exec(`UPDATE idempotency_keys SET expires_at = now() - interval '1 minute' WHERE api_key_id = ? AND key = ?`, keyID, "k2").Error)

	var rec *models.IdempotencyRecord
	require.NoError(t, db.Transaction(func(tx *gorm.DB) error {
		var err error
		rec, err = models.ClaimIdempotencyKey(ctx, tx, keyID, "k2", "updateItem", []byte("new"))
		return err
	}))
	assert.Nil(t, rec, "an expired record must not be replayed")

	var row models.IdempotencyRecord
	require.NoError(t, db.Where("api_key_id = ? AND key = ?", keyID, "k2").First(&row).Error)
	assert.Equal(t, "updateItem", row.Operation)
	assert.Equal(t, []byte("new"), row.Fingerprint)
	assert.Zero(t, row.ResponseStatus, "the old response is gone")
	assert.Empty(t, row.ResponseBody)
	assert.True(t, row.ExpiresAt.After(time.Now()))
}

// A duplicate sent while the first request is still running must wait for
// it and then replay its response, never execute a second time.
func TestClaimIdempotencyKeyConcurrentDuplicateWaits(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)
	fp := []byte("fp")

	first := db.Begin()
	require.NoError(t, first.Error)
	defer first.Rollback()
	rec, err := models.ClaimIdempotencyKey(ctx, first, keyID, "k3", "createItem", fp)
	require.NoError(t, err)
	require.Nil(t, rec)

	var (
		wg     sync.WaitGroup
		second *models.IdempotencyRecord
		secErr error
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		secErr = db.Transaction(func(tx *gorm.DB) error {
			var err error
			second, err = models.ClaimIdempotencyKey(ctx, tx, keyID, "k3", "createItem", fp)
			return err
		})
	}()
	waitForLockWaiter(t, db)

	require.NoError(t, models.CompleteIdempotencyKey(ctx, first, keyID, "k3", 201, nil, []byte(`{"done":true}`)))
	require.NoError(t, first.Commit().Error)
	wg.Wait()

	require.NoError(t, secErr)
	require.NotNil(t, second, "the duplicate must not own the key")
	assert.Equal(t, 201, second.ResponseStatus)
	assert.JSONEq(t, `{"done":true}`, string(second.ResponseBody))
}

// If the first request rolls back, the waiting duplicate executes instead.
func TestClaimIdempotencyKeyDuplicateRunsAfterRollback(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)

	first := db.Begin()
	require.NoError(t, first.Error)
	rec, err := models.ClaimIdempotencyKey(ctx, first, keyID, "k4", "createItem", []byte("fp"))
	require.NoError(t, err)
	require.Nil(t, rec)

	done := make(chan error, 1)
	var second *models.IdempotencyRecord
	go func() {
		done <- db.Transaction(func(tx *gorm.DB) error {
			var err error
			second, err = models.ClaimIdempotencyKey(ctx, tx, keyID, "k4", "createItem", []byte("fp"))
			return err
		})
	}()
	waitForLockWaiter(t, db)
	require.NoError(t, first.Rollback().Error)

	require.NoError(t, <-done)
	assert.Nil(t, second)
}

// waitForLockWaiter returns once some session of this database is blocked on
// a lock, so the test knows the concurrent claim reached the unique index
// before the first transaction ends.
func waitForLockWaiter(t *testing.T, db *gorm.DB) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := db.Raw(`SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n).Error
		return err == nil && n > 0
	}, 30*time.Second, 10*time.Millisecond, "the duplicate claim never blocked")
}
