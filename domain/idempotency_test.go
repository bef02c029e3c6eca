package domain_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/testenv"
)

// newAPIKey creates the organization, user and key an idempotency record
// belongs to.
func newAPIKey(t *testing.T, db *gorm.DB) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	suffix := uuid.NewString()[:8]
	org, err := accounts.CreateOrganization(ctx, db, "Idem "+suffix, "idem-"+suffix)
	require.NoError(t, err)
	user, err := accounts.CreateUser(ctx, db, "idem-"+suffix+"@example.test", "", true, false)
	require.NoError(t, err)
	key, _, err := accounts.CreateAPIKey(ctx, db, org.ID, user.ID, "", []string{"catalog:write"})
	require.NoError(t, err)
	return key.ID
}

func TestKeepIdempotencyRecordFirstAnswerWins(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)

	none, err := domain.FindIdempotencyRecord(ctx, db, keyID, "k1")
	require.NoError(t, err)
	assert.Nil(t, none)

	first := domain.NewIdempotencyRecord(keyID, "k1", "createItem", []byte("fp"), 422, map[string]string{"Content-Type": "application/json"}, []byte(`{"error":{}}`))
	stored, err := domain.KeepIdempotencyRecord(ctx, db, first)
	require.NoError(t, err)
	assert.True(t, stored)
	stored, err = domain.KeepIdempotencyRecord(ctx, db, domain.NewIdempotencyRecord(keyID, "k1", "createItem", []byte("fp"), 201, nil, []byte(`{}`)))
	require.NoError(t, err)
	assert.False(t, stored, "a key keeps its first answer")

	rec, err := domain.FindIdempotencyRecord(ctx, db, keyID, "k1")
	require.NoError(t, err)
	require.NotNil(t, rec)
	assert.Equal(t, 422, rec.ResponseStatus)
	assert.Equal(t, "application/json", rec.ResponseHeaders.Data()["Content-Type"])
	assert.True(t, rec.SameRequest("createItem", []byte("fp")))
	assert.False(t, rec.SameRequest("createItem", []byte("other body")))
	assert.True(t, rec.ExpiresAt.After(time.Now().Add(23*time.Hour)), "kept at least 24 hours")
}

// The pipeline's idempotency rests on this: a record inserted in a
// transaction blocks a concurrent insert of the same key, which fails once
// the first commits and succeeds if it rolls back.
func TestIdempotencyRecordBlocksConcurrentDuplicate(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)
	for _, commit := range []bool{true, false} {
		key := "k-" + uuid.NewString()
		first := db.Begin()
		require.NoError(t, first.Error)
		require.NoError(t, first.Create(domain.NewIdempotencyRecord(keyID, key, "createItem", []byte("fp"), 201, nil, []byte(`{}`))).Error)

		done := make(chan error, 1)
		go func() {
			done <- db.WithContext(ctx).Create(domain.NewIdempotencyRecord(keyID, key, "createItem", []byte("fp"), 201, nil, []byte(`{}`))).Error
		}()
		waitForLockWaiter(t, db)
		if commit {
			require.NoError(t, first.Commit().Error)
			assert.ErrorIs(t, <-done, gorm.ErrDuplicatedKey)
		} else {
			require.NoError(t, first.Rollback().Error)
			assert.NoError(t, <-done)
		}
	}
}

// waitForLockWaiter returns once some session of this database is blocked on
// a lock, so the test knows the concurrent insert reached the unique index
// before the first transaction ends.
func waitForLockWaiter(t *testing.T, db *gorm.DB) {
	t.Helper()
	require.Eventually(t, func() bool {
		var n int
		err := db.Raw(`SELECT count(*) FROM pg_stat_activity
WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n).Error
		return err == nil && n > 0
	}, 30*time.Second, 10*time.Millisecond, "the duplicate insert never blocked")
}

// Stored headers that are not a map of strings fail the read of the
// record, rather than replaying the answer without them.
func TestCorruptStoredHeadersAreAnError(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	keyID := newAPIKey(t, db)
	rec := domain.NewIdempotencyRecord(keyID, "k1", "createItem", []byte("fp"), 201, map[string]string{"Location": "/x"}, []byte(`{}`))
	require.NoError(t, db.Create(rec).Error)
	require.NoError(t, db.Exec(`UPDATE idempotency_keys SET response_headers = '{"Location": 1}' WHERE api_key_id = ?`, keyID).Error)

	_, err := domain.FindIdempotencyRecord(ctx, db, keyID, "k1")
	assert.Error(t, err)
}
