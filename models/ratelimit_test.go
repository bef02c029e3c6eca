package models_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/testenv"
	"ppwr/models"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// newToken creates an organization, a verified member and a key.
func newToken(t *testing.T, db *gorm.DB) (string, *models.APIKey) {
	t.Helper()
	ctx := context.Background()
	org, err := models.CreateOrganization(ctx, db, "Rate "+uuid.NewString()[:8], "rate-"+uuid.NewString())
	require.NoError(t, err)
	user, err := models.CreateUser(ctx, db, uuid.NewString()+"@example.test", "", true, false)
	require.NoError(t, err)
	require.NoError(t, models.UpsertMembership(ctx, db, &models.Membership{OrganizationID: org.ID, UserID: user.ID, Role: "owner", Active: true}))
	key, token, err := models.CreateAPIKey(ctx, db, org.ID, user.ID, "", []string{"catalog:read"})
	require.NoError(t, err)
	return token, key
}

func charge(t *testing.T, db *gorm.DB, token string, buckets ...models.RateBucket) *models.Credential {
	t.Helper()
	cred, err := models.LookupCredential(context.Background(), db, models.HashToken(token), "127.0.0.1", buckets)
	require.NoError(t, err)
	return cred
}

func TestLookupChargesExactlyTheBurst(t *testing.T) {
	db := testenv.DB(t)
	token, _ := newToken(t, db)
	// A low limit makes the emission interval (20 s) far longer than the
	// test, so no token can be refilled while it runs.
	general := models.RateBucket{PerMinute: 3}
	for i := range general.PerMinute {
		assert.True(t, charge(t, db, token, general).RateAllowed, "request %d of the burst", i+1)
	}
	refused := charge(t, db, token, general)
	assert.False(t, refused.RateAllowed, "request beyond the burst")
	assert.GreaterOrEqual(t, refused.RetryAfter(), 1)
	assert.LessOrEqual(t, refused.RetryAfter(), 20, "one emission interval frees the next token")

	// A refused request does not push the bucket further into the future.
	again := charge(t, db, token, general)
	assert.False(t, again.RateAllowed)
	assert.LessOrEqual(t, again.RetryAfter(), refused.RetryAfter())
}

func TestLookupChargesEveryBucketOfTheOperation(t *testing.T) {
	db := testenv.DB(t)
	token, _ := newToken(t, db)
	general := models.RateBucket{PerMinute: 100}
	extra := models.RateBucket{Suffix: ":recommendations", PerMinute: 1}

	assert.True(t, charge(t, db, token, general, extra).RateAllowed)
	assert.False(t, charge(t, db, token, general, extra).RateAllowed, "the extra bucket is exhausted")
	assert.True(t, charge(t, db, token, general).RateAllowed, "the general bucket alone still admits")

	other, _ := newToken(t, db)
	assert.True(t, charge(t, db, other, general, extra).RateAllowed, "buckets are per user")

	// Without buckets (the admin tools), nothing is charged or refused.
	assert.True(t, charge(t, db, token).RateAllowed)
}

func TestRevokedKeysAreNotCharged(t *testing.T) {
	db := testenv.DB(t)
	token, key := newToken(t, db)
	_, err := models.RevokeAPIKey(context.Background(), db, key.ID)
	require.NoError(t, err)
	cred := charge(t, db, token, models.RateBucket{PerMinute: 1})
	assert.True(t, cred.Revoked)
	var n int64
	require.NoError(t, db.Table("rate_limit_buckets").Where("bucket = ?", "user:"+key.UserID.String()).Count(&n).Error)
	assert.Zero(t, n, "a revoked key spends nobody's quota")

	_, err = models.LookupCredential(context.Background(), db, models.HashToken("ppwr_unknown"), "", nil)
	assert.ErrorIs(t, err, models.ErrUnknownToken)
}

func TestPurgeIdleRateBucketsKeepsLiveState(t *testing.T) {
	db := testenv.DB(t)
	token, key := newToken(t, db)
	charge(t, db, token, models.RateBucket{PerMinute: 1})
	require.NoError(t, db.Exec(`INSERT INTO rate_limit_buckets (bucket, tat, allowed) VALUES ('user:drained', now() - interval '1 second', true)`).Error)

	_, err := models.PurgeIdleRateBuckets(context.Background(), db)
	require.NoError(t, err)
	var buckets []string
	require.NoError(t, db.Table("rate_limit_buckets").Pluck("bucket", &buckets).Error)
	assert.Contains(t, buckets, "user:"+key.UserID.String())
	assert.NotContains(t, buckets, "user:drained")
}
