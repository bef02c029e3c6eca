package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/require"

	"ppwr/internal/access"
	"ppwr/internal/config"
	"ppwr/internal/i18n"
	"ppwr/internal/testenv"
	"ppwr/models"
)

func TestMain(m *testing.M) { testenv.Main(m) }

const testBase = "http://ppwr.test/api/v1"

// testAPI is the real engine on the package's database. Each test gets
// its own organizations, so tests do not see each other's rows.
type testAPI struct {
	t      *testing.T
	server *Server
	engine *gin.Engine
}

type apiOption func(*config.Config)

func withRateLimits(general, recommendations int) apiOption {
	return func(c *config.Config) {
		c.RateLimitPerMinute, c.RecommendationRateLimitPerMinute = general, recommendations
	}
}

func newTestAPI(t *testing.T, opts ...apiOption) *testAPI {
	return newTestAPIWithTable(t, (*Server).table, opts...)
}

func newTestAPIWithTable(t *testing.T, table func(*Server) []Operation, opts ...apiOption) *testAPI {
	t.Helper()
	db := testenv.DB(t)
	cfg := testenv.Config(t)
	// Tests that are not about rate limits must not trip them.
	cfg.RateLimitPerMinute, cfg.RecommendationRateLimitPerMinute = 1_000_000, 1_000_000
	for _, o := range opts {
		o(&cfg)
	}
	s, engine, err := newServer(Deps{Config: cfg, DB: db}, table)
	require.NoError(t, err)
	return &testAPI{t: t, server: s, engine: engine}
}

// tenant is an organization with one user and one key.
type tenant struct {
	org   uuid.UUID
	user  uuid.UUID
	keyID uuid.UUID
	token string
}

type tenantSpec struct {
	role        access.Role
	permissions []string
	abilities   []string // nil: all
	unverified  bool
	userMFA     bool
	inactive    bool
}

func (a *testAPI) newTenant(spec tenantSpec) tenant {
	a.t.Helper()
	ctx := context.Background()
	db := a.server.DB
	org, err := models.CreateOrganization(ctx, db, "Test "+uuid.NewString()[:8], "t-"+uuid.NewString())
	require.NoError(a.t, err)
	return a.addUser(org.ID, spec)
}

// addUser adds a user with a key to an existing organization.
func (a *testAPI) addUser(orgID uuid.UUID, spec tenantSpec) tenant {
	a.t.Helper()
	ctx := context.Background()
	db := a.server.DB
	user, err := models.CreateUser(ctx, db, uuid.NewString()+"@example.test", "Tester", !spec.unverified, spec.userMFA)
	require.NoError(a.t, err)
	if spec.role == "" {
		spec.role = access.Owner
	}
	require.NoError(a.t, models.UpsertMembership(ctx, db, &models.Membership{
		OrganizationID: orgID, UserID: user.ID, Role: spec.role, Permissions: pq.StringArray(spec.permissions), Active: !spec.inactive,
	}))
	abilities := spec.abilities
	if abilities == nil {
		abilities, _ = access.ParseAbilities("all")
	}
	key, token, err := models.CreateAPIKey(ctx, db, orgID, user.ID, "test", abilities)
	require.NoError(a.t, err)
	return tenant{org: orgID, user: user.ID, keyID: key.ID, token: token}
}

// response is a recorded answer with its JSON body decoded.
type response struct {
	*httptest.ResponseRecorder
	body map[string]any
}

// fieldErrors is error.fields of an error answer.
func (r *response) fieldErrors() map[string]any {
	e, _ := r.body["error"].(map[string]any)
	f, _ := e["fields"].(map[string]any)
	return f
}

func (r *response) errorCode() string {
	e, _ := r.body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// req is a request under construction.
type req struct {
	method, path string
	token        string
	body         any
	headers      map[string]string
	// undocumented skips OpenAPI validation for answers that deliberately
	// fall outside the document (unknown paths, 405, probes).
	undocumented bool
	// outsideAPI addresses paths outside /api/v1 (/healthz, /readyz).
	outsideAPI bool
}

// do sends r through the engine and validates the answer against the
// OpenAPI document.
func (a *testAPI) do(r req) *response {
	a.t.Helper()
	var body io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(a.t, err)
		body = bytes.NewReader(raw)
	}
	target := testBase + r.path
	if r.outsideAPI {
		target = strings.TrimSuffix(testBase, "/api/v1") + r.path
	}
	httpReq := httptest.NewRequest(r.method, target, body)
	if body != nil {
		httpReq.Header.Set("Content-Type", "application/json")
	}
	if r.token != "" {
		httpReq.Header.Set("Authorization", "Bearer "+r.token)
	}
	for k, v := range r.headers {
		httpReq.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	a.engine.ServeHTTP(rec, httpReq)
	out := &response{ResponseRecorder: rec}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(a.t, json.Unmarshal(rec.Body.Bytes(), &out.body), "body: %s", rec.Body.String())
	}
	require.NotEmpty(a.t, rec.Header().Get("X-Request-ID"), "every response carries X-Request-ID")
	if !r.undocumented {
		a.validate(httpReq, rec)
	}
	return out
}

// validators caches one validator per distinct document (tests with
// synthetic operations serve a larger one).
var (
	validatorsMu sync.Mutex
	validators   = map[string]validator.Validator{}
)

func (a *testAPI) validator() validator.Validator {
	a.t.Helper()
	raw := a.server.OpenAPIDocument(i18n.EN)
	validatorsMu.Lock()
	defer validatorsMu.Unlock()
	if v, ok := validators[string(raw)]; ok {
		return v
	}
	doc, err := libopenapi.NewDocument(raw)
	require.NoError(a.t, err)
	v, errs := validator.NewValidator(doc)
	require.Empty(a.t, errs)
	validators[string(raw)] = v
	return v
}

// validate checks the answer against the document the server serves.
func (a *testAPI) validate(httpReq *http.Request, rec *httptest.ResponseRecorder) {
	a.t.Helper()
	docValidator := a.validator()
	res := rec.Result()
	res.Request = httpReq
	ok, errs := docValidator.ValidateHttpResponse(httpReq, res)
	if !ok {
		msgs := []string{}
		for _, e := range errs {
			msgs = append(msgs, e.Message+": "+e.Reason)
			for _, se := range e.SchemaValidationErrors {
				msgs = append(msgs, "  "+se.FieldPath+" ("+se.KeywordLocation+"): "+se.Reason)
			}
		}
		a.t.Errorf("%s %s → %d does not match the OpenAPI document:\n%s\nbody: %s",
			httpReq.Method, httpReq.URL.Path, rec.Code, strings.Join(msgs, "\n"), rec.Body.String())
	}
}

// idemKey is a fresh valid Idempotency-Key.
func idemKey() string { return "test-" + uuid.NewString() }

// orgPath prefixes a path with the tenant's organization.
func (tn tenant) orgPath(suffix string) string { return "/organizations/" + tn.org.String() + suffix }
