package api_test

import (
	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/models"

	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/storage"
	"ppwr/internal/testenv"
)

func codes(list any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, e := range list.([]any) {
		m := e.(map[string]any)
		out[m["code"].(string)] = m
	}
	return out
}

func TestDictionariesInBothLanguages(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	en := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/dictionaries"), Token: tn.Token})
	pl := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/dictionaries"), Token: tn.Token, Headers: map[string]string{"X-Locale": "pl"}})
	require.Equal(t, http.StatusOK, en.Code)
	require.Equal(t, http.StatusOK, pl.Code)
	assert.NotContains(t, en.JSON, "data", "a detail read is the plain object")

	assert.Equal(t, "Poland", codes(en.JSON["countries"])["PL"]["name"])
	assert.Equal(t, "Polska", codes(pl.JSON["countries"])["PL"]["name"])
	assert.Equal(t, true, codes(en.JSON["countries"])["DE"]["eu_member"])

	materials := codes(pl.JSON["materials"])
	assert.Equal(t, "plastics", materials["PLASTIC_PET"]["bdo_group"])
	assert.Equal(t, "PLASTIC", materials["PLASTIC_PET"]["parent"])
	for _, group := range []string{"PLASTIC", "PAPER", "GLASS", "STEEL", "ALUMINIUM", "WOOD", "MULTIMATERIAL", "OTHER"} {
		assert.Contains(t, materials, group)
	}
	for _, list := range []string{"packaging_categories", "packaging_formats", "economic_roles", "document_types"} {
		assert.NotEmpty(t, en.JSON[list], list)
	}
	assert.Contains(t, codes(en.JSON["economic_roles"]), "fulfilment_service_provider")

	rules := codes(en.JSON["rule_sets"])
	require.Contains(t, rules, "recyclability_grades")
	assert.Equal(t, []any{"A", "B", "C"}, rules["recyclability_grades"]["grades"])
	assert.NotContains(t, rules, "recycled_content_plastic_2040", "draft rule sets are not published")
}

func TestAuditLogPagesAndFilters(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	ctx := context.Background()
	days := []string{"2026-03-01", "2026-03-02", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"}
	for i, d := range days {
		at, _ := time.Parse(time.DateOnly, d)
		require.NoError(t, models.AppendAudit(ctx, a.DB, &models.AuditEntry{
			OrganizationID: tn.Org, OccurredAt: at.Add(time.Duration(i) * time.Minute), ActorKind: models.ActorSystem, Operation: "seed",
		}))
	}
	require.NoError(t, models.AppendAudit(ctx, a.DB, &models.AuditEntry{OrganizationID: other.Org, ActorKind: models.ActorSystem, Operation: "foreign"}))

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

	for _, bad := range []string{"?per_page=0", "?per_page=101", "?per_page=x", "?cursor=garbage", "?cursor=" + kit.EncodeCursor(uuid.Nil), "?from=2026-13-01", "?from=2026-03-05&to=2026-03-01"} {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/audit-log" + bad), Token: tn.Token})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, bad)
		assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode(), bad)
		assert.NotEmpty(t, res.JSON["error"].(map[string]any)["fields"], bad)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	a := apitest.New(t, apitest.WithServices())
	s, cfg := a.Server, testenv.Config(t)

	assert.Equal(t, http.StatusOK, a.Do(apitest.Req{Method: http.MethodGet, Path: "/healthz", OutsideAPI: true, Undocumented: true}).Code)
	res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	assert.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, map[string]any{"postgres": "ok", "temporal": "ok", "s3": "ok"}, res.JSON["checks"])

	// An unreachable object store makes the replica not ready.
	s.Storage = storage.New(storage.Options{Endpoint: "http://127.0.0.1:1", Region: cfg.S3Region, Bucket: cfg.S3Bucket, AccessKeyID: "x", SecretAccessKey: "y"})
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: "/readyz", OutsideAPI: true, Undocumented: true})
	assert.Equal(t, http.StatusServiceUnavailable, res.Code)
	assert.Equal(t, "unavailable", res.JSON["status"])
	assert.NotEqual(t, "ok", res.JSON["checks"].(map[string]any)["s3"])
}
