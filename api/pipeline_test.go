package api_test

import (
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/input"
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
	input.Errors
	Name   input.Opt[string]
	Status input.Opt[int] // answer with this status after writing
}

func (b *renameBody) Declare(f *input.Fields) {
	f.Text("name", &b.Name, input.Text{Max: 100})
	f.Int("fail", &b.Status, input.Int{Max: 599})
}

// rename is a request body of the probe.
func rename(name string, fail int, password string) map[string]any {
	return map[string]any{"name": name, "fail": fail, "password": password}
}

func (p *renameProbe) handle(c *gin.Context, body *renameBody) error {
	p.runs.Add(1)
	if p.release != nil {
		<-p.release
	}
	w := kit.Work(c)
	if err := w.Tx().Model(&accounts.Organization{}).Where("id = ?", w.Organization()).Update("name", body.Name.Value).Error; err != nil {
		return err
	}
	switch body.Status.Value {
	case 0:
	case http.StatusUnprocessableEntity:
		return kit.Invalid(kit.Field("name", "field.cursor_invalid"))
	default:
		return kit.NewProblem(body.Status.Value, kit.CodeInternal, "error.internal")
	}
	w.Touch("organization", w.Organization())
	c.JSON(http.StatusCreated, probeJSON{ID: uuid.New(), Name: body.Name.Value})
	return nil
}

type probeJSON struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

// probeArea adds the probe as two operations, with and without an
// Idempotency-Key.
func probeArea(p *renameProbe) apitest.Option {
	return apitest.WithAreas(func(kit.Deps) kit.Area {
		success := kit.Response{Status: http.StatusCreated, Schema: kit.SchemaOf(reflect.TypeFor[probeJSON](), nil)}
		return kit.Area{Operations: []kit.Operation{
			kit.Post("probeRename", kit.Org+"/probe-renames", "audit", access.CatalogWrite, access.CatalogUpdate).Handle(kit.JSON(p.handle), success),
			kit.Post("probeRenameNoKey", kit.Org+"/probe-renames-no-key", "audit", access.CatalogWrite, access.CatalogUpdate).NotIdempotent().Handle(kit.JSON(p.handle), success),
		}}
	})
}

func orgName(t *testing.T, a *apitest.API, id uuid.UUID) string {
	var org accounts.Organization
	require.NoError(t, a.DB.First(&org, "id = ?", id).Error)
	return org.Name
}

func TestIdempotencyKeyValidation(t *testing.T) {
	p := &renameProbe{}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	for name, key := range map[string]string{"missing": "", "too short": "123456789012345", "too long": string(make([]byte, 101))} {
		headers := map[string]string{}
		if key != "" {
			headers["Idempotency-Key"] = key
		}
		res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: rename("x", 0, ""), Headers: headers})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Equal(t, kit.CodeIdempotencyKeyInvalid, res.ErrorCode(), name)
		assert.Contains(t, res.JSON["error"].(map[string]any)["fields"], "Idempotency-Key", name)
	}
	// A missing key is said to be required, in either language.
	for locale, want := range map[string][2]string{
		"en": {"This operation requires an Idempotency-Key header: send a unique key of 16 to 100 characters.", "is required"},
		"pl": {"Ta operacja wymaga nagłówka Idempotency-Key: wyślij unikalny klucz o długości od 16 do 100 znaków.", "jest wymagane"},
	} {
		res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: rename("x", 0, ""),
			Headers: map[string]string{"X-Locale": locale}})
		assert.Equal(t, want[0], res.JSON["error"].(map[string]any)["message"], locale)
		assert.Equal(t, []any{want[1]}, res.FieldErrors()["Idempotency-Key"], locale)
	}
	short := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: rename("x", 0, ""),
		Headers: map[string]string{"Idempotency-Key": "short"}})
	assert.Equal(t, []any{"must be between 16 and 100 characters long"}, short.FieldErrors()["Idempotency-Key"], "a short key is not missing")
	assert.Zero(t, p.runs.Load(), "nothing executed")
	assert.NotEqual(t, "x", orgName(t, a, tn.Org))
}

func TestIdempotentReplayAndReuse(t *testing.T) {
	p := &renameProbe{}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	key := apitest.IdemKey()
	send := func(name string) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: rename(name, 0, ""), Headers: map[string]string{"Idempotency-Key": key}})
	}

	first := send("Renamed once")
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	second := send("Renamed once")
	assert.Equal(t, http.StatusCreated, second.Code)
	assert.Equal(t, first.Body.String(), second.Body.String(), "the stored body is replayed")
	assert.Equal(t, "true", second.Header().Get("Idempotent-Replayed"))
	assert.Len(t, a.AuditEntries(tn.Org, "probeRename"), 1, "the replay took no effect")

	reused := send("Something else")
	assert.Equal(t, http.StatusConflict, reused.Code)
	assert.Equal(t, kit.CodeIdempotencyKeyReused, reused.ErrorCode())
	assert.Equal(t, "Renamed once", orgName(t, a, tn.Org))

	// Keys belong to one API key: another key of the same user may reuse the string.
	other := a.AddUser(tn.Org, apitest.TenantSpec{})
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: other.Token, Body: rename("By other key", 0, ""), Headers: map[string]string{"Idempotency-Key": key}})
	assert.Equal(t, http.StatusCreated, res.Code)
}

// Duplicates that run while the first request is still inside its
// transaction take no effect: each fails on the key once the first
// commits, rolls back, and replays the first answer.
func TestConcurrentDuplicatesTakeEffectOnce(t *testing.T) {
	p := &renameProbe{release: make(chan struct{})}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	key := apitest.IdemKey()
	send := func() *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: rename("Concurrent", 0, ""), Headers: map[string]string{"Idempotency-Key": key}})
	}

	var wg sync.WaitGroup
	results := make([]*apitest.Response, 3)
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
	assert.Len(t, a.AuditEntries(tn.Org, "probeRename"), 1)
}

// A 4xx rolls back the handler's changes but is stored and replayed; a 5xx
// rolls back everything, so the same key may be retried and then succeed.
func TestFailedWritesChangeNothing(t *testing.T) {
	p := &renameProbe{}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	before := orgName(t, a, tn.Org)
	send := func(key string, body map[string]any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": key}})
	}

	key := apitest.IdemKey()
	res := send(key, rename("Half-written", http.StatusUnprocessableEntity, ""))
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, before, orgName(t, a, tn.Org), "the handler's write was rolled back")
	// A retry runs the handler again, but the stored answer wins and its changes roll back.
	replayed := send(key, rename("Half-written", http.StatusUnprocessableEntity, ""))
	assert.Equal(t, res.Body.String(), replayed.Body.String())
	assert.Equal(t, "true", replayed.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, before, orgName(t, a, tn.Org), "the replay took no effect")

	key = apitest.IdemKey()
	res = send(key, rename("Crashed", http.StatusInternalServerError, ""))
	assert.Equal(t, http.StatusInternalServerError, res.Code)
	assert.Equal(t, kit.CodeInternal, res.ErrorCode())
	assert.Equal(t, before, orgName(t, a, tn.Org))
	// A retry with the same key runs again (nothing was stored) and succeeds.
	res = send(key, rename("Crashed", 0, ""))
	assert.Equal(t, http.StatusCreated, res.Code)
	assert.Equal(t, "Crashed", orgName(t, a, tn.Org))
	assert.Len(t, a.AuditEntries(tn.Org, "probeRename"), 1, "only the successful write is audited")
}

func TestMalformedJSONIs422(t *testing.T) {
	p := &renameProbe{}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	for _, body := range []string{`{"name":`, `not json`, `{"name": "x"} trailing`} {
		res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames"), Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, body)
		assert.Equal(t, kit.CodeInvalidJSON, res.ErrorCode(), body)
	}
	// Unknown fields are ignored.
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames-no-key"), Token: tn.Token, Body: `{"name":"Extra","unknown":{"a":1}}`})
	assert.Equal(t, http.StatusCreated, res.Code)
	assert.Equal(t, int32(1), p.runs.Load())

	// A malformed body on an operation of an area not built yet is still a 422, not a 500.
	res = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token, Body: `{`, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
}

// The audit entry names the actor, operation, record and request, and its
// summary never holds secrets or the Authorization header.
func TestAuditEntryIsRedacted(t *testing.T) {
	p := &renameProbe{}
	a := apitest.New(t, probeArea(p))
	tn := a.NewTenant(apitest.TenantSpec{})
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/probe-renames-no-key"), Token: tn.Token, Body: rename("Audited", 0, "hunter2")})
	require.Equal(t, http.StatusCreated, res.Code)

	entries := a.AuditEntries(tn.Org, "probeRenameNoKey")
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, tn.User, *e.ActorUserID)
	assert.Equal(t, tn.KeyID, *e.APIKeyID)
	assert.Equal(t, "organization", e.RecordType)
	assert.Equal(t, tn.Org, *e.RecordID)
	assert.Equal(t, res.Header().Get("X-Request-ID"), e.RequestID)
	summary := string(e.Summary)
	assert.Contains(t, summary, "Audited")
	assert.NotContains(t, summary, "hunter2")
	assert.NotContains(t, summary, tn.Token)
	assert.Contains(t, summary, "[REDACTED]")
}

func TestRateLimitIsSharedAcrossReplicas(t *testing.T) {
	replica1 := apitest.New(t, apitest.WithRateLimits(3, 1_000_000))
	replica2 := apitest.New(t, apitest.WithRateLimits(3, 1_000_000))
	tn := replica1.NewTenant(apitest.TenantSpec{})
	get := func(a *apitest.API, token string) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Token: token})
	}
	assert.Equal(t, http.StatusOK, get(replica1, tn.Token).Code)
	assert.Equal(t, http.StatusOK, get(replica2, tn.Token).Code)
	assert.Equal(t, http.StatusOK, get(replica1, tn.Token).Code)

	res := get(replica2, tn.Token)
	assert.Equal(t, http.StatusTooManyRequests, res.Code, "the fourth request within a minute, on any replica")
	assert.Equal(t, kit.CodeRateLimited, res.ErrorCode())
	wait, err := strconv.Atoi(res.Header().Get("Retry-After"))
	require.NoError(t, err, "Retry-After is an integer")
	assert.True(t, wait >= 1 && wait <= 20, "one request frees up every 20 s: %d", wait)
	seconds := " seconds."
	if wait == 1 {
		seconds = " second."
	}
	assert.Equal(t, "Too many requests. Retry in "+strconv.Itoa(wait)+seconds, res.JSON["error"].(map[string]any)["message"])

	other := replica1.AddUser(tn.Org, apitest.TenantSpec{})
	assert.Equal(t, http.StatusOK, get(replica1, other.Token).Code, "limits are per user")
}

func TestRecommendationsHaveAnExtraLimit(t *testing.T) {
	a := apitest.New(t, apitest.WithRateLimits(1_000, 2))
	tn := a.NewTenant(apitest.TenantSpec{})
	recommend := func() *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/packing-recommendations"), Token: tn.Token, Body: "{}"})
	}
	// Refused bodies count too.
	assert.Equal(t, http.StatusUnprocessableEntity, recommend().Code)
	assert.Equal(t, http.StatusUnprocessableEntity, recommend().Code)
	res := recommend()
	assert.Equal(t, http.StatusTooManyRequests, res.Code)
	assert.NotEmpty(t, res.Header().Get("Retry-After"))
	assert.Equal(t, http.StatusOK, a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Token: tn.Token}).Code, "other operations are not affected")
}

func TestRequestIDAndLocale(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	id := uuid.NewString()
	res := a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Token: tn.Token, Headers: map[string]string{"X-Request-ID": id}})
	assert.Equal(t, id, res.Header().Get("X-Request-ID"), "a client UUID is echoed")
	assert.Equal(t, id, res.JSON["requestId"])

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Token: tn.Token, Headers: map[string]string{"X-Request-ID": "not a uuid"}})
	_, err := uuid.Parse(res.Header().Get("X-Request-ID"))
	assert.NoError(t, err, "anything else is replaced by a fresh UUID")

	en := a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations"})
	pl := a.Do(apitest.Req{Method: http.MethodGet, Path: "/organizations", Headers: map[string]string{"X-Locale": "pl"}})
	assert.Equal(t, en.ErrorCode(), pl.ErrorCode(), "codes do not depend on the locale")
	enMsg := en.JSON["error"].(map[string]any)["message"].(string)
	plMsg := pl.JSON["error"].(map[string]any)["message"].(string)
	assert.Contains(t, enMsg, "valid API key")
	assert.Contains(t, plMsg, "Wymagany jest ważny klucz API")
	assert.Equal(t, en.JSON["error"].(map[string]any)["requestId"], en.Header().Get("X-Request-ID"))

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/audit-log?per_page=500"), Token: tn.Token, Headers: map[string]string{"X-Locale": "pl"}})
	fields := res.JSON["error"].(map[string]any)["fields"].(map[string]any)
	assert.Equal(t, []any{"musi być liczbą całkowitą od 1 do 100"}, fields["per_page"])
}
