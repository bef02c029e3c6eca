package migrations_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/database"
	"ppwr/migrations"
)

func adminURL() string {
	if v := os.Getenv("TEST_DATABASE_URL"); v != "" {
		return v
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// freshDatabase creates an empty database and returns its URL; it is
// dropped when the test ends.
func freshDatabase(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := database.Open(ctx, adminURL())
	require.NoError(t, err, "PostgreSQL must be reachable (set TEST_DATABASE_URL)")
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "ppwr_migrations_test_" + hex.EncodeToString(b)
	require.NoError(t, admin.Exec("CREATE DATABASE "+name).Error)
	t.Cleanup(func() {
		admin.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)")
		if a, err := admin.DB(); err == nil {
			_ = a.Close()
		}
	})
	u, err := url.Parse(adminURL())
	require.NoError(t, err)
	u.Path = "/" + name
	return u.String()
}

// open returns a separate connection pool, as another replica would have.
func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := database.Open(context.Background(), dsn)
	require.NoError(t, err)
	sqlDB, err := db.DB()
	require.NoError(t, err)
	t.Cleanup(func() { _ = sqlDB.Close() })
	return sqlDB
}

// shippedVersions lists the migration files beside this test, which are the
// ones embedded in the package.
func shippedVersions(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob("*.sql")
	require.NoError(t, err)
	require.NotEmpty(t, names)
	var out []string
	for _, n := range names {
		out = append(out, strings.TrimSuffix(n, ".sql"))
	}
	sort.Strings(out)
	return out
}

func recordedVersions(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		require.NoError(t, rows.Scan(&v))
		out = append(out, v)
	}
	require.NoError(t, rows.Err())
	return out
}

func TestApplyCreatesSchemaOnce(t *testing.T) {
	ctx := context.Background()
	db := open(t, freshDatabase(t))
	want := shippedVersions(t)

	applied, err := migrations.Apply(ctx, db)
	require.NoError(t, err)
	assert.Equal(t, want, applied)

	for _, table := range []string{"organizations", "users", "memberships", "api_keys", "audit_log", "idempotency_keys", "rate_limit_buckets"} {
		var exists bool
		require.NoError(t, db.QueryRow(`SELECT to_regclass($1) IS NOT NULL`, "public."+table).Scan(&exists))
		assert.True(t, exists, "table %s", table)
	}
	assert.Equal(t, want, recordedVersions(t, db))

	again, err := migrations.Apply(ctx, db)
	require.NoError(t, err)
	assert.Empty(t, again, "nothing left to apply")
	assert.Equal(t, want, recordedVersions(t, db), "no version recorded twice")
}

// Replicas starting at once each run Apply; the advisory lock must make one
// wait for the other instead of both creating the same tables.
func TestConcurrentApplyIsSerialized(t *testing.T) {
	ctx := context.Background()
	dsn := freshDatabase(t)
	dbs := []*sql.DB{open(t, dsn), open(t, dsn)}
	want := shippedVersions(t)

	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		applied = make([][]string, len(dbs))
		errs    = make([]error, len(dbs))
	)
	for i, db := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			applied[i], errs[i] = migrations.Apply(ctx, db)
		}()
	}
	close(start)
	wg.Wait()

	for i, err := range errs {
		require.NoError(t, err, "replica %d", i)
	}
	// Exactly one replica applied everything; the other found it done.
	all := append(append([]string{}, applied[0]...), applied[1]...)
	sort.Strings(all)
	assert.Equal(t, want, all)
	assert.True(t, len(applied[0]) == 0 || len(applied[1]) == 0, "both replicas applied migrations: %v", applied)
	assert.Equal(t, want, recordedVersions(t, dbs[0]))
}
