package api

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/storage"
	"ppwr/internal/testenv"
	"ppwr/models"
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
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	en := a.do(req{method: http.MethodGet, path: tn.orgPath("/dictionaries"), token: tn.token})
	pl := a.do(req{method: http.MethodGet, path: tn.orgPath("/dictionaries"), token: tn.token, headers: map[string]string{"X-Locale": "pl"}})
	require.Equal(t, http.StatusOK, en.Code)
	require.Equal(t, http.StatusOK, pl.Code)
	assert.NotContains(t, en.body, "data", "a detail read is the plain object")

	assert.Equal(t, "Poland", codes(en.body["countries"])["PL"]["name"])
	assert.Equal(t, "Polska", codes(pl.body["countries"])["PL"]["name"])
	assert.Equal(t, true, codes(en.body["countries"])["DE"]["eu_member"])

	materials := codes(pl.body["materials"])
	assert.Equal(t, "plastics", materials["PLASTIC_PET"]["bdo_group"])
	assert.Equal(t, "PLASTIC", materials["PLASTIC_PET"]["parent"])
	for _, group := range []string{"PLASTIC", "PAPER", "GLASS", "STEEL", "ALUMINIUM", "WOOD", "MULTIMATERIAL", "OTHER"} {
		assert.Contains(t, materials, group)
	}
	for _, list := range []string{"packaging_categories", "packaging_formats", "economic_roles", "document_types"} {
		assert.NotEmpty(t, en.body[list], list)
	}
	assert.Contains(t, codes(en.body["economic_roles"]), "fulfilment_service_provider")

	rules := codes(en.body["rule_sets"])
	require.Contains(t, rules, "recyclability_grades")
	assert.Equal(t, []any{"A", "B", "C"}, rules["recyclability_grades"]["grades"])
	assert.NotContains(t, rules, "recycled_content_plastic_2040", "draft rule sets are not published")
}

func TestAuditLogPagesAndFilters(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	other := a.newTenant(tenantSpec{})
	ctx := context.Background()
	days := []string{"2026-03-01", "2026-03-02", "2026-03-02", "2026-03-03", "2026-03-04", "2026-03-05", "2026-03-06"}
	for i, d := range days {
		at, _ := time.Parse(time.DateOnly, d)
		require.NoError(t, models.AppendAudit(ctx, a.server.DB, &models.AuditEntry{
			OrganizationID: tn.org, OccurredAt: at.Add(time.Duration(i) * time.Minute), ActorKind: models.ActorSystem, Operation: "seed",
		}))
	}
	require.NoError(t, models.AppendAudit(ctx, a.server.DB, &models.AuditEntry{OrganizationID: other.org, ActorKind: models.ActorSystem, Operation: "foreign"}))

	var seen []string
	next := tn.orgPath("/audit-log?per_page=3")
	for pages := 0; next != ""; pages++ {
		require.Less(t, pages, 5)
		res := a.do(req{method: http.MethodGet, path: next, token: tn.token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, e := range res.body["data"].([]any) {
			entry := e.(map[string]any)
			assert.Equal(t, "seed", entry["operation"], "only the key's organization")
			seen = append(seen, entry["id"].(string))
		}
		next = ""
		if link, ok := res.body["links"].(map[string]any)["next"].(string); ok {
			assert.Contains(t, link, "http://ppwr.test/api/v1/organizations/")
			next = link[len(testBase):]
		}
	}
	require.Len(t, seen, len(days), "every entry exactly once over three pages")
	for i := 1; i < len(seen); i++ {
		assert.Greater(t, seen[i-1], seen[i], "newest first, stable order")
	}

	res := a.do(req{method: http.MethodGet, path: tn.orgPath("/audit-log?from=2026-03-02&to=2026-03-03"), token: tn.token})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Len(t, res.body["data"], 3, "from and to are inclusive days")
	assert.Nil(t, res.body["links"].(map[string]any)["next"])

	for _, bad := range []string{"?per_page=0", "?per_page=101", "?per_page=x", "?cursor=garbage", "?cursor=" + encodeCursor(uuid.Nil), "?from=2026-13-01", "?from=2026-03-05&to=2026-03-01"} {
		res := a.do(req{method: http.MethodGet, path: tn.orgPath("/audit-log" + bad), token: tn.token})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, bad)
		assert.Equal(t, CodeValidationFailed, res.errorCode(), bad)
		assert.NotEmpty(t, res.body["error"].(map[string]any)["fields"], bad)
	}
}

func TestHealthAndReadiness(t *testing.T) {
	testenv.Storage(t)
	tc := testenv.Temporal(t)
	cfg := testenv.Config(t)
	s, engine, err := newServer(Deps{Config: cfg, DB: testenv.DB(t), Temporal: tc, Storage: testenv.Storage(t)}, (*Server).table)
	require.NoError(t, err)
	a := &testAPI{t: t, server: s, engine: engine}

	assert.Equal(t, http.StatusOK, a.do(req{method: http.MethodGet, path: "/healthz", outsideAPI: true, undocumented: true}).Code)
	res := a.do(req{method: http.MethodGet, path: "/readyz", outsideAPI: true, undocumented: true})
	assert.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, map[string]any{"postgres": "ok", "temporal": "ok", "s3": "ok"}, res.body["checks"])

	// An unreachable object store makes the replica not ready.
	s.Storage = storage.New(storage.Options{Endpoint: "http://127.0.0.1:1", Region: cfg.S3Region, Bucket: cfg.S3Bucket, AccessKeyID: "x", SecretAccessKey: "y"})
	res = a.do(req{method: http.MethodGet, path: "/readyz", outsideAPI: true, undocumented: true})
	assert.Equal(t, http.StatusServiceUnavailable, res.Code)
	assert.Equal(t, "unavailable", res.body["status"])
	assert.NotEqual(t, "ok", res.body["checks"].(map[string]any)["s3"])
}
