package operators_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/accounts"
	"ppwr/domain/operators"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// A session ends at SessionTTL, or with its token if that comes first;
// an ended session is refused, and the next sign-in sweeps it away.
func TestSessionsEnd(t *testing.T) {
	db := testenv.DB(t)
	ctx := t.Context()

	long, longSecret, err := operators.CreateToken(ctx, db, "Long", 30*24*time.Hour)
	require.NoError(t, err)
	_, sess, err := operators.SignIn(ctx, db, longSecret)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(operators.SessionTTL), sess.ExpiresAt, time.Minute, "a working day, not the token's month")
	assert.Equal(t, long.ID, *sess.TokenID)

	_, shortSecret, err := operators.CreateToken(ctx, db, "Short", time.Hour)
	require.NoError(t, err)
	_, sess, err = operators.SignIn(ctx, db, shortSecret)
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(time.Hour), sess.ExpiresAt, time.Minute, "not past the token")

	id, sess, err := operators.SignInTrusted(ctx, db, "Proxy Person")
	require.NoError(t, err)
	assert.Nil(t, sess.TokenID)
	assert.WithinDuration(t, time.Now().Add(operators.SessionTTL), sess.ExpiresAt, time.Minute)
	found, err := operators.LookupSession(ctx, db, id)
	require.NoError(t, err)
	assert.Equal(t, "Proxy Person", found.Name)
	assert.Equal(t, sess.CSRF, found.CSRF)

	hash := accounts.HashToken(id)
	require.NoError(t, db.Table("support_sessions").Where("id_hash = ?", hash).Update("expires_at", time.Now().Add(-time.Second)).Error)
	_, err = operators.LookupSession(ctx, db, id)
	assert.ErrorIs(t, err, operators.ErrNoSession)

	_, _, err = operators.SignIn(ctx, db, longSecret)
	require.NoError(t, err)
	var left int64
	require.NoError(t, db.Table("support_sessions").Where("id_hash = ?", hash).Count(&left).Error)
	assert.Zero(t, left, "a sign-in deletes the sessions that ended")
}
