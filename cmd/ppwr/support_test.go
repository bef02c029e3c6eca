package main

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/accounts"
	"ppwr/domain/operators"
	"ppwr/internal/config"
	"ppwr/internal/testenv"
)

func TestAdminSupportTokens(t *testing.T) {
	db := testenv.DB(t)
	name := "Ada " + uuid.NewString()[:8]
	before := time.Now()
	created := mustAdmin(t, "support-token", "create", "--name", name, "--ttl", "2h")
	assert.ElementsMatch(t, []string{"id", "name", "token", "expiresAt"}, slices.Collect(maps.Keys(created)))
	id, token := str(t, created, "id"), str(t, created, "token")
	assert.Equal(t, name, created["name"])
	assert.True(t, accounts.WellFormedToken(token), token)
	expires, err := time.Parse(time.RFC3339Nano, str(t, created, "expiresAt"))
	require.NoError(t, err)
	assert.WithinDuration(t, before.Add(2*time.Hour), expires, time.Minute)

	var stored operators.Token
	require.NoError(t, db.First(&stored, "id = ?", id).Error)
	assert.Equal(t, accounts.HashToken(token), stored.TokenHash, "only the hash is stored")
	assert.NotContains(t, string(stored.TokenHash), token)

	defaulted := mustAdmin(t, "support-token", "create", "--name", name+" 2")
	expires, err = time.Parse(time.RFC3339Nano, str(t, defaulted, "expiresAt"))
	require.NoError(t, err)
	assert.WithinDuration(t, time.Now().Add(operators.DefaultTokenTTL), expires, time.Minute, "30 days unless --ttl says otherwise")

	listed := mustAdmin(t, "support-token", "list")
	all := ids(t, listed, "tokens")
	require.GreaterOrEqual(t, len(all), 2)
	assert.Equal(t, []string{id, str(t, defaulted, "id")}, all[len(all)-2:], "oldest first")
	first := listed["tokens"].([]any)[len(all)-2].(map[string]any)
	assert.ElementsMatch(t, []string{"id", "name", "tokenPrefix", "createdAt", "expiresAt", "revokedAt"}, slices.Collect(maps.Keys(first)))
	assert.True(t, strings.HasPrefix(token, str(t, first, "tokenPrefix")))
	assert.Nil(t, first["revokedAt"])
	raw, err := json.Marshal(listed)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), strings.TrimPrefix(token, "ppwr_"), "a list never shows a token")

	revoked := mustAdmin(t, "support-token", "revoke", "--id", id)
	assert.Equal(t, id, revoked["id"])
	revokedAt := str(t, revoked, "revokedAt")
	again := mustAdmin(t, "support-token", "revoke", "--id", id)
	assert.Equal(t, revokedAt, again["revokedAt"], "revoking twice keeps the first time")
	_, _, err = operators.SignIn(t.Context(), db, token)
	assert.ErrorIs(t, err, operators.ErrSignInRefused)

	assert.Contains(t, requireAdminError(t, "support-token", "revoke", "--id", uuid.NewString()), "does not exist")
	assert.Contains(t, requireAdminError(t, "support-token", "revoke", "--id", "nope"), "must be a UUID")
	assert.Contains(t, requireAdminError(t, "support-token", "create", "--name", "  "), "name")
	assert.Contains(t, requireAdminError(t, "support-token", "create", "--name", name, "--ttl=-1h"), "positive")
	requireAdminError(t, "support-token", "create")
}

// `ppwr support` serves the console on SUPPORT_ADDR, where a token from
// `ppwr admin support-token create` signs in.
func TestSupportCommandServesTheConsole(t *testing.T) {
	addr := "127.0.0.1:" + testenv.FreePort()
	t.Setenv("SUPPORT_ADDR", addr)
	t.Setenv("METRICS_ADDR", config.MetricsOff)
	secret := str(t, mustAdmin(t, "support-token", "create", "--name", "Smoke"), "token")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		root := rootCommand()
		root.SetArgs([]string{"support"})
		root.SetOut(io.Discard)
		done <- root.ExecuteContext(ctx)
	}()
	base := "http://" + addr
	require.Eventually(t, func() bool {
		res, err := http.Get(base + "/signin")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond)

	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.PostForm(base+"/signin", url.Values{"token": {secret}})
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Len(t, res.Cookies(), 1)
	assert.False(t, res.Cookies()[0].Secure, "the default address is loopback")

	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err, "Ctrl-C is a normal end")
	case <-time.After(20 * time.Second):
		t.Fatal("ppwr support did not stop")
	}
}
