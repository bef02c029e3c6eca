package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/access"
	"ppwr/models"
)

// renameProbe is a synthetic write used to exercise the write pipeline: it
// renames the organization (a real row change that must commit or roll
// back with the request) and counts its executions.
type renameProbe struct {
	runs atomic.Int32
	// release, when set, holds the handler until closed, so a test can send
	// a duplicate while the first request is still inside its transaction.
	release chan struct{}
}

type renameBody struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Fail     int    `json:"fail"` // answer with this status after writing
}

func (p *renameProbe) handle(s *Server) HandlerFunc {
	return func(c *gin.Context) error {
		p.runs.Add(1)
		if p.release != nil {
			<-p.release
		}
		var body renameBody
		if err := json.Unmarshal(requestBody(c), &body); err != nil {
			return err
		}
		orgID := credentialOf(c).OrganizationID
		if err := s.tx(c).Model(&models.Organization{}).Where("id = ?", orgID).Update("name", body.Name).Error; err != nil {
			return err
		}
		switch body.Fail {
		case 0:
		case http.StatusUnprocessableEntity:
			return Invalid(Field("name", "field.cursor_invalid"))
		default:
			return newProblem(body.Fail, CodeInternal, "error.internal")
		}
		setAuditRecord(c, "organization", orgID)
		c.JSON(http.StatusCreated, gin.H{"id": uuid.NewString(), "name": body.Name})
		return nil
	}
}

func probeTable(p *renameProbe) func(*Server) []Operation {
	return func(s *Server) []Operation {
		success := Response{Status: http.StatusCreated, Schema: object(map[string]Schema{"id": uuidSchema(), "name": str()})}
		return append(s.table(),
			post("probeRename", org+"/probe-renames", tagAudit, access.CatalogWrite, access.CatalogUpdate).handle(p.handle(s), success),
			post("probeRenameNoKey", org+"/probe-renames-no-key", tagAudit, access.CatalogWrite, access.CatalogUpdate).notIdempotent().handle(p.handle(s), success),
		)
	}
}

func orgName(t *testing.T, a *testAPI, id uuid.UUID) string {
	var org models.Organization
	require.NoError(t, a.server.DB.First(&org, "id = ?", id).Error)
	return org.Name
}

func auditEntries(t *testing.T, a *testAPI, orgID uuid.UUID, operation string) []models.AuditEntry {
	var entries []models.AuditEntry
	require.NoError(t, a.server.DB.Where("organization_id = ? AND operation = ?", orgID, operation).Order("id").Find(&entries).Error)
	return entries
}

func TestIdempotencyKeyValidation(t *testing.T) {
	p := &renameProbe{}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	for name, key := range map[string]string{"missing": "", "too short": "123456789012345", "too long": string(make([]byte, 101))} {
		headers := map[string]string{}
		if key != "" {
			headers["Idempotency-Key"] = key
		}
		res := a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: tn.token, body: renameBody{Name: "x"}, headers: headers})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Equal(t, CodeIdempotencyKeyInvalid, res.errorCode(), name)
		assert.Contains(t, res.body["error"].(map[string]any)["fields"], "Idempotency-Key", name)
	}
	assert.Zero(t, p.runs.Load(), "nothing executed")
	assert.NotEqual(t, "x", orgName(t, a, tn.org))
}

func TestIdempotentReplayAndReuse(t *testing.T) {
	p := &renameProbe{}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	key := idemKey()
	send := func(name string) *response {
		return a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: tn.token, body: renameBody{Name: name}, headers: map[string]string{"Idempotency-Key": key}})
	}

	first := send("Renamed once")
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	second := send("Renamed once")
	assert.Equal(t, http.StatusCreated, second.Code)
	assert.Equal(t, first.Body.String(), second.Body.String(), "the stored body is replayed")
	assert.Equal(t, "true", second.Header().Get("Idempotent-Replayed"))
	assert.Len(t, auditEntries(t, a, tn.org, "probeRename"), 1, "the replay took no effect")

	reused := send("Something else")
	assert.Equal(t, http.StatusConflict, reused.Code)
	assert.Equal(t, CodeIdempotencyKeyReused, reused.errorCode())
	assert.Equal(t, "Renamed once", orgName(t, a, tn.org))

	// Keys belong to one API key: another key of the same user may reuse the string.
	other := a.addUser(tn.org, tenantSpec{})
	res := a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: other.token, body: renameBody{Name: "By other key"}, headers: map[string]string{"Idempotency-Key": key}})
	assert.Equal(t, http.StatusCreated, res.Code)
}

// Duplicates that run while the first request is still inside its
// transaction take no effect: each fails on the key once the first
// commits, rolls back, and replays the first answer.
func TestConcurrentDuplicatesTakeEffectOnce(t *testing.T) {
	p := &renameProbe{release: make(chan struct{})}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	key := idemKey()
	send := func() *response {
		return a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: tn.token, body: renameBody{Name: "Concurrent"}, headers: map[string]string{"Idempotency-Key": key}})
	}

	var wg sync.WaitGroup
	results := make([]*response, 3)
	for i := range results {
		wg.Add(1)
		go func() { defer wg.Done(); results[i] = send() }()
	}
	require.Eventually(t, func() bool { return p.runs.Load() == int32(len(results)) }, 5*time.Second, 10*time.Millisecond,
		"all three are inside the handler at once")
	close(p.release)
	wg.Wait()

	replays := 0
	for _, r := range results {
		assert.Equal(t, http.StatusCreated, r.Code)
		assert.Equal(t, results[0].Body.String(), r.Body.String())
		if r.Header().Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	assert.Equal(t, len(results)-1, replays)
	assert.Len(t, auditEntries(t, a, tn.org, "probeRename"), 1)
}

// A 4xx rolls back the handler's changes but is stored and replayed; a 5xx
// rolls back everything, so the same key may be retried and then succeed.
func TestFailedWritesChangeNothing(t *testing.T) {
	p := &renameProbe{}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	before := orgName(t, a, tn.org)
	send := func(key string, body renameBody) *response {
		return a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: tn.token, body: body, headers: map[string]string{"Idempotency-Key": key}})
	}

	key := idemKey()
	res := send(key, renameBody{Name: "Half-written", Fail: http.StatusUnprocessableEntity})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, before, orgName(t, a, tn.org), "the handler's write was rolled back")
	// A retry runs the handler again, but the stored answer wins and its changes roll back.
	replayed := send(key, renameBody{Name: "Half-written", Fail: http.StatusUnprocessableEntity})
	assert.Equal(t, res.Body.String(), replayed.Body.String())
	assert.Equal(t, "true", replayed.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, before, orgName(t, a, tn.org), "the replay took no effect")

	key = idemKey()
	res = send(key, renameBody{Name: "Crashed", Fail: http.StatusInternalServerError})
	assert.Equal(t, http.StatusInternalServerError, res.Code)
	assert.Equal(t, CodeInternal, res.errorCode())
	assert.Equal(t, before, orgName(t, a, tn.org))
	// A retry with the same key runs again (nothing was stored) and succeeds.
	res = send(key, renameBody{Name: "Crashed"})
	assert.Equal(t, http.StatusCreated, res.Code)
	assert.Equal(t, "Crashed", orgName(t, a, tn.org))
	assert.Len(t, auditEntries(t, a, tn.org, "probeRename"), 1, "only the successful write is audited")
}

func TestMalformedJSONIs422(t *testing.T) {
	p := &renameProbe{}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	for _, body := range []string{`{"name":`, `not json`, `{"name": "x"} trailing`} {
		res := a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames"), token: tn.token, body: body, headers: map[string]string{"Idempotency-Key": idemKey()}})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, body)
		assert.Equal(t, CodeInvalidJSON, res.errorCode(), body)
	}
	// Unknown fields are ignored.
	res := a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames-no-key"), token: tn.token, body: `{"name":"Extra","unknown":{"a":1}}`})
	assert.Equal(t, http.StatusCreated, res.Code)
	assert.Equal(t, int32(1), p.runs.Load())

	// A malformed body on an operation of an area not built yet is still a 422, not a 500.
	res = a.do(req{method: http.MethodPost, path: tn.orgPath("/catalog-items"), token: tn.token, body: `{`, headers: map[string]string{"Idempotency-Key": idemKey()}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
}

// The audit entry names the actor, operation, record and request, and its
// summary never holds secrets or the Authorization header.
func TestAuditEntryIsRedacted(t *testing.T) {
	p := &renameProbe{}
	a := newTestAPIWithTable(t, probeTable(p))
	tn := a.newTenant(tenantSpec{})
	res := a.do(req{method: http.MethodPost, path: tn.orgPath("/probe-renames-no-key"), token: tn.token, body: renameBody{Name: "Audited", Password: "hunter2"}})
	require.Equal(t, http.StatusCreated, res.Code)

	entries := auditEntries(t, a, tn.org, "probeRenameNoKey")
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, tn.user, *e.ActorUserID)
	assert.Equal(t, tn.keyID, *e.APIKeyID)
	assert.Equal(t, "organization", e.RecordType)
	assert.Equal(t, tn.org, *e.RecordID)
	assert.Equal(t, res.Header().Get("X-Request-ID"), e.RequestID)
	summary := string(e.Summary)
	assert.Contains(t, summary, "Audited")
	assert.NotContains(t, summary, "hunter2")
	assert.NotContains(t, summary, tn.token)
	assert.Contains(t, summary, redacted)
}

func TestRateLimitIsSharedAcrossReplicas(t *testing.T) {
	replica1 := newTestAPI(t, withRateLimits(3, 1_000_000))
	replica2 := newTestAPI(t, withRateLimits(3, 1_000_000))
	tn := replica1.newTenant(tenantSpec{})
	get := func(a *testAPI, token string) *response {
		return a.do(req{method: http.MethodGet, path: "/organizations", token: token})
	}
	assert.Equal(t, http.StatusOK, get(replica1, tn.token).Code)
	assert.Equal(t, http.StatusOK, get(replica2, tn.token).Code)
	assert.Equal(t, http.StatusOK, get(replica1, tn.token).Code)

	res := get(replica2, tn.token)
	assert.Equal(t, http.StatusTooManyRequests, res.Code, "the fourth request within a minute, on any replica")
	assert.Equal(t, CodeRateLimited, res.errorCode())
	wait, err := strconv.Atoi(res.Header().Get("Retry-After"))
	require.NoError(t, err, "Retry-After is an integer")
	assert.True(t, wait >= 1 && wait <= 20, "one request frees up every 20 s: %d", wait)

	other := replica1.addUser(tn.org, tenantSpec{})
	assert.Equal(t, http.StatusOK, get(replica1, other.token).Code, "limits are per user")
}

func TestRecommendationsHaveAnExtraLimit(t *testing.T) {
	a := newTestAPI(t, withRateLimits(1_000, 2))
	tn := a.newTenant(tenantSpec{})
	recommend := func() *response {
		return a.do(req{method: http.MethodPost, path: tn.orgPath("/packing-recommendations"), token: tn.token, body: "{}"})
	}
	assert.Equal(t, http.StatusNotImplemented, recommend().Code)
	assert.Equal(t, http.StatusNotImplemented, recommend().Code)
	res := recommend()
	assert.Equal(t, http.StatusTooManyRequests, res.Code)
	assert.NotEmpty(t, res.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusOK, a.do(req{method: http.MethodGet, path: "/organizations", token: tn.token}).Code, "other operations are not affected")
}

func TestRequestIDAndLocale(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	id := uuid.NewString()
	res := a.do(req{method: http.MethodGet, path: "/organizations", token: tn.token, headers: map[string]string{"X-Request-ID": id}})
	assert.Equal(t, id, res.Header().Get("X-Request-ID"), "a client UUID is echoed")
	assert.Equal(t, id, res.body["requestId"])

	res = a.do(req{method: http.MethodGet, path: "/organizations", token: tn.token, headers: map[string]string{"X-Request-ID": "not a uuid"}})
	_, err := uuid.Parse(res.Header().Get("X-Request-ID"))
	assert.NoError(t, err, "anything else is replaced by a fresh UUID")

	en := a.do(req{method: http.MethodGet, path: "/organizations"})
	pl := a.do(req{method: http.MethodGet, path: "/organizations", headers: map[string]string{"X-Locale": "pl"}})
	assert.Equal(t, en.errorCode(), pl.errorCode(), "codes do not depend on the locale")
	enMsg := en.body["error"].(map[string]any)["message"].(string)
	plMsg := pl.body["error"].(map[string]any)["message"].(string)
	assert.Contains(t, enMsg, "valid API key")
	assert.Contains(t, plMsg, "Wymagany jest ważny klucz API")
	assert.Equal(t, en.body["error"].(map[string]any)["requestId"], en.Header().Get("X-Request-ID"))

	res = a.do(req{method: http.MethodGet, path: tn.orgPath("/audit-log?per_page=500"), token: tn.token, headers: map[string]string{"X-Locale": "pl"}})
	fields := res.body["error"].(map[string]any)["fields"].(map[string]any)
	assert.Equal(t, []any{"musi być liczbą całkowitą od 1 do 100"}, fields["per_page"])
}
