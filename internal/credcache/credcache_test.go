package credcache

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// counting returns a loader that counts its calls.
func counting(cred *access.Credential) (func() (*access.Credential, error), *atomic.Int32) {
	var n atomic.Int32
	return func() (*access.Credential, error) { n.Add(1); return cred, nil }, &n
}

func TestServesFromMemoryOnlyWhileListening(t *testing.T) {
	c := New()
	load, calls := counting(&access.Credential{KeyID: uuid.New()})
	_, _ = c.Lookup([]byte("k"), load)
	_, _ = c.Lookup([]byte("k"), load)
	assert.Equal(t, int32(2), calls.Load(), "not listening: every lookup loads")

	c.setListening(true)
	_, _ = c.Lookup([]byte("k"), load)
	_, _ = c.Lookup([]byte("k"), load)
	assert.Equal(t, int32(3), calls.Load(), "listening: the second lookup is a hit")

	c.Invalidate()
	_, _ = c.Lookup([]byte("k"), load)
	assert.Equal(t, int32(4), calls.Load(), "an invalidation empties the cache")
}

// A lookup that read the database before an invalidation must not store
// what it read: it may be the state from before a revocation.
func TestLookupRacingAnInvalidationIsNotStored(t *testing.T) {
	c := New()
	c.setListening(true)
	stale := &access.Credential{Revoked: false}
	_, err := c.Lookup([]byte("k"), func() (*access.Credential, error) {
		c.Invalidate() // the revocation commits while this lookup reads
		return stale, nil
	})
	require.NoError(t, err)
	fresh := &access.Credential{Revoked: true}
	got, _ := c.Lookup([]byte("k"), func() (*access.Credential, error) { return fresh, nil })
	assert.Same(t, fresh, got)
}

// Against real Postgres: the triggers of migration 0004 make a revocation
// (and any other change authorization reads) reach the cache.
func TestRevocationReachesTheCache(t *testing.T) {
	db := testenv.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New()
	go c.Listen(ctx, testenv.DatabaseURL(t))
	require.Eventually(t, c.Listening, 10*time.Second, 10*time.Millisecond)

	org, err := accounts.CreateOrganization(ctx, db, "Cache", "cache-"+uuid.NewString())
	require.NoError(t, err)
	user, err := accounts.CreateUser(ctx, db, uuid.NewString()+"@example.test", "", true, false)
	require.NoError(t, err)
	key, token, err := accounts.CreateAPIKey(ctx, db, org.ID, user.ID, "", []string{"catalog:read"})
	require.NoError(t, err)
	hash := accounts.HashToken(token)
	load := func() (*access.Credential, error) { return accounts.LookupCredential(ctx, db, hash) }

	// Let the notifications of the inserts above arrive before caching.
	time.Sleep(100 * time.Millisecond)
	first, err := c.Lookup(hash, load)
	require.NoError(t, err)
	require.False(t, first.Revoked)
	again, _ := c.Lookup(hash, load)
	assert.Same(t, first, again, "served from memory")

	_, err = accounts.RevokeAPIKey(ctx, db, key.ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		cred, err := c.Lookup(hash, load)
		return err == nil && cred.Revoked
	}, 5*time.Second, 5*time.Millisecond, "the revocation is seen")

	require.NoError(t, db.Exec(`UPDATE organizations SET require_mfa = true WHERE id = ?`, org.ID).Error)
	require.Eventually(t, func() bool {
		cred, _ := c.Lookup(hash, load)
		return cred.RequireMFA
	}, 5*time.Second, 5*time.Millisecond, "so is an organization policy change")

	cancel()
	require.Eventually(t, func() bool { return !c.Listening() }, 5*time.Second, 10*time.Millisecond)
}
