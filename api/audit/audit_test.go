package audit_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func TestAuditLogPagesAndFilters(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	ctx := context.Background()
	days := []string{"2026-03-01", "2026-03-02", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"}
	for i, d := range days {
		at, _ := time.Parse(time.DateOnly, d)
		require.NoError(t, domain.AppendAudit(ctx, a.DB, &domain.AuditEntry{
			OrganizationID: tn.Org, OccurredAt: at.Add(time.Duration(i) * time.Minute), ActorKind: domain.ActorSystem, Operation: "seed",
		}))
	}
	require.NoError(t, domain.AppendAudit(ctx, a.DB, &domain.AuditEntry{OrganizationID: other.Org, ActorKind: domain.ActorSystem, Operation: "foreign"}))

	var seen []string
	next := tn.Path("/audit-log?per_page=3")
	for pages := 0; next != ""; pages++ {
		require.Less(t, pages, 5)
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: next, Token: tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, e := range res.JSON["data"].([]any) {
			entry := e.(map[string]any)
			assert.Equal(t, "seed", entry["operation"], "only the key's organization")
			seen = append(seen, entry["id"].(string))
		}
		next = ""
		if link, ok := res.JSON["links"].(map[string]any)["next"].(string); ok {
			assert.Contains(t, link, "http://ppwr.test/api/v1/organizations/")
			next = link[len(apitest.Base):]
		}
	}
	require.Len(t, seen, len(days), "every entry exactly once over three pages")
	for i := 1; i < len(seen); i++ {
		assert.Greater(t, seen[i-1], seen[i], "newest first, stable order")
	}

	res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/audit-log?from=2026-03-02&to=2026-03-03"), Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Len(t, res.JSON["data"], 3, "from and to are inclusive days")
	assert.Nil(t, res.JSON["links"].(map[string]any)["next"])

	// The cursor {"a": the nil UUID} names no row.
	nilCursor := base64.RawURLEncoding.EncodeToString([]byte(`{"a":"00000000-0000-0000-0000-000000000000"}`))
	for _, bad := range []string{"?per_page=0", "?per_page=101", "?per_page=x", "?cursor=garbage", "?cursor=" + nilCursor, "?from=2026-13-01", "?from=2026-03-05&to=2026-03-01"} {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/audit-log" + bad), Token: tn.Token})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, bad)
		assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode(), bad)
		assert.NotEmpty(t, res.JSON["error"].(map[string]any)["fields"], bad)
	}
}

func TestAuditLogNamesTheOperator(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	ctx := context.Background()
	require.NoError(t, domain.AppendAudit(ctx, a.DB, &domain.AuditEntry{OrganizationID: tn.Org, ActorKind: domain.ActorOperator, ActorName: "Ewa Nowak", Operation: "admin.imports.redrive"}))
	require.NoError(t, domain.AppendAudit(ctx, a.DB, &domain.AuditEntry{OrganizationID: tn.Org, ActorKind: domain.ActorSystem, Operation: "seed"}))

	res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/audit-log"), Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	names := map[string]any{}
	for _, e := range res.JSON["data"].([]any) {
		entry := e.(map[string]any)
		actor := entry["actor"].(map[string]any)
		require.Contains(t, actor, "name", "the field is always present")
		names[entry["operation"].(string)] = actor["name"]
	}
	assert.Equal(t, map[string]any{"admin.imports.redrive": "Ewa Nowak", "seed": nil}, names)
}
