// Package apitest is the HTTP test harness: the real engine on a real,
// migrated PostgreSQL database of the test package (internal/testenv),
// requests sent through Gin, and every request and answer validated
// against the OpenAPI document the engine serves. Each area's tests use it
// beside the area.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/lib/pq"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
	"gorm.io/gorm"

	"ppwr/api"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/documents"
	"ppwr/internal/access"
	"ppwr/internal/config"
	"ppwr/internal/i18n"
	"ppwr/internal/testenv"
)

// Base is the API's base URL in tests.
const Base = "http://ppwr.test/api/v1"

// API is the real engine on the package's database. Each test makes its
// own organizations, so tests do not see each other's rows.
type API struct {
	t      testing.TB
	Server *api.Server
	Engine *gin.Engine
	DB     *gorm.DB
}

// Option changes the dependencies or the areas of an API.
type Option func(t testing.TB, d *api.Deps, areas *[]func(kit.Deps) kit.Area)

// WithRateLimits sets the general and the recommendations rate limits.
func WithRateLimits(general, recommendations int) Option {
	return func(_ testing.TB, d *api.Deps, _ *[]func(kit.Deps) kit.Area) {
		d.Config.RateLimitPerMinute, d.Config.RecommendationRateLimitPerMinute = general, recommendations
	}
}

// WithAreas adds synthetic areas to the spec's, to exercise the pipeline.
func WithAreas(extra ...func(kit.Deps) kit.Area) Option {
	return func(_ testing.TB, _ *api.Deps, areas *[]func(kit.Deps) kit.Area) { *areas = append(*areas, extra...) }
}

// WithServices connects the API to the package's Temporal and S3 servers.
func WithServices() Option {
	return func(t testing.TB, d *api.Deps, _ *[]func(kit.Deps) kit.Area) {
		d.Temporal, d.Storage = testenv.Temporal(t), testenv.Storage(t)
		d.Config = testenv.Config(t)
		d.Config.RateLimitPerMinute, d.Config.RecommendationRateLimitPerMinute = 1_000_000, 1_000_000
	}
}

// WithStorage connects the API to the package's S3 server only, for areas
// that store files in the request and start no workflow.
func WithStorage() Option {
	return func(t testing.TB, d *api.Deps, _ *[]func(kit.Deps) kit.Area) { d.Storage = testenv.Storage(t) }
}

// WithConfig changes the configuration after the services are set.
func WithConfig(change func(*config.Config)) Option {
	return func(_ testing.TB, d *api.Deps, _ *[]func(kit.Deps) kit.Area) { change(&d.Config) }
}

// New builds the API.
func New(t testing.TB, opts ...Option) *API {
	t.Helper()
	d := api.Deps{}
	d.DB = testenv.DB(t)
	d.Config = testenv.Config(t)
	// Tests that are not about rate limits must not trip them.
	d.Config.RateLimitPerMinute, d.Config.RecommendationRateLimitPerMinute = 1_000_000, 1_000_000
	areas := append([]func(kit.Deps) kit.Area(nil), api.Areas...)
	for _, opt := range opts {
		opt(t, &d, &areas)
	}
	s, err := api.NewServer(d, areas...)
	require.NoError(t, err)
	engine, err := s.Engine()
	require.NoError(t, err)
	return &API{t: t, Server: s, Engine: engine, DB: d.DB}
}

// Tenant is an organization with one user and one key.
type Tenant struct {
	Org   uuid.UUID
	User  uuid.UUID
	KeyID uuid.UUID
	Token string
}

// TenantSpec describes a tenant's user and key.
type TenantSpec struct {
	Role        access.Role
	Permissions []string
	Abilities   []string // nil: all
	Unverified  bool
	UserMFA     bool
	Inactive    bool
}

// NewTenant makes an organization with a user and a key.
func (a *API) NewTenant(spec TenantSpec) Tenant {
	a.t.Helper()
	org, err := accounts.CreateOrganization(context.Background(), a.DB, "Test "+uuid.NewString()[:8], "t-"+uuid.NewString())
	require.NoError(a.t, err)
	return a.AddUser(org.ID, spec)
}

// AddUser adds a user with a key to an existing organization.
func (a *API) AddUser(orgID uuid.UUID, spec TenantSpec) Tenant {
	a.t.Helper()
	ctx := context.Background()
	user, err := accounts.CreateUser(ctx, a.DB, uuid.NewString()+"@example.test", "Tester", !spec.Unverified, spec.UserMFA)
	require.NoError(a.t, err)
	if spec.Role == "" {
		spec.Role = access.Owner
	}
	require.NoError(a.t, accounts.UpsertMembership(ctx, a.DB, &accounts.Membership{
		OrganizationID: orgID, UserID: user.ID, Role: spec.Role, Permissions: pq.StringArray(spec.Permissions), Active: !spec.Inactive,
	}))
	abilities := spec.Abilities
	if abilities == nil {
		abilities, _ = access.ParseAbilities("all")
	}
	key, token, err := accounts.CreateAPIKey(ctx, a.DB, orgID, user.ID, "test", abilities)
	require.NoError(a.t, err)
	return Tenant{Org: orgID, User: user.ID, KeyID: key.ID, Token: token}
}

// Path prefixes a path with the tenant's organization.
func (tn Tenant) Path(suffix string) string { return "/organizations/" + tn.Org.String() + suffix }

// Response is a recorded answer with its JSON body decoded.
type Response struct {
	*httptest.ResponseRecorder
	JSON map[string]any
}

// FieldErrors is error.fields of an error answer.
func (r *Response) FieldErrors() map[string]any {
	e, _ := r.JSON["error"].(map[string]any)
	f, _ := e["fields"].(map[string]any)
	return f
}

// ErrorCode is error.code of an error answer.
func (r *Response) ErrorCode() string {
	e, _ := r.JSON["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Req is a request under construction.
type Req struct {
	Method, Path string
	Token        string
	Body         any // nil, a string sent as is, or a value sent as JSON
	Headers      map[string]string
	// Undocumented skips OpenAPI validation of requests and answers that
	// deliberately fall outside the document (unknown paths, 405, probes).
	Undocumented bool
	// OutsideAPI addresses paths outside /api/v1 (/healthz, /readyz).
	OutsideAPI bool
}

// Do sends r through the engine and validates the request and the answer
// against the OpenAPI document.
func (a *API) Do(r Req) *Response {
	a.t.Helper()
	var raw []byte
	switch b := r.Body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	default:
		var err error
		raw, err = json.Marshal(b)
		require.NoError(a.t, err)
	}
	target := Base + r.Path
	if r.OutsideAPI {
		target = strings.TrimSuffix(Base, "/api/v1") + r.Path
	}
	newRequest := func() *http.Request {
		var body io.Reader
		if r.Body != nil {
			body = bytes.NewReader(raw)
		}
		req := httptest.NewRequest(r.Method, target, body)
		if r.Body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if r.Token != "" {
			req.Header.Set("Authorization", "Bearer "+r.Token)
		}
		for k, v := range r.Headers {
			req.Header.Set(k, v)
		}
		return req
	}
	httpReq := newRequest()
	rec := httptest.NewRecorder()
	a.Engine.ServeHTTP(rec, httpReq)
	out := &Response{ResponseRecorder: rec}
	// A HEAD answer has the GET's Content-Type but no body to decode.
	if r.Method != http.MethodHead && strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		require.NoError(a.t, json.Unmarshal(rec.Body.Bytes(), &out.JSON), "body: %s", rec.Body.String())
	}
	require.NotEmpty(a.t, rec.Header().Get("X-Request-ID"), "every response carries X-Request-ID")
	if !r.Undocumented {
		a.validate(newRequest(), rec)
	}
	return out
}

// validators caches one validator per distinct document (tests with
// synthetic operations serve a larger one).
var (
	validatorsMu sync.Mutex
	validators   = map[string]validator.Validator{}
)

// Validator validates against the document the engine serves.
func (a *API) Validator() validator.Validator {
	a.t.Helper()
	raw := a.Server.OpenAPIDocument(i18n.EN)
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

// validate checks the request, when it is one a client could send by
// the document, and the answer against the document.
func (a *API) validate(httpReq *http.Request, rec *httptest.ResponseRecorder) {
	a.t.Helper()
	v := a.Validator()
	var msgs []string
	requestValid, errs := v.ValidateHttpRequest(httpReq)
	if !requestValid && rec.Code < 400 {
		msgs = append(msgs, "request: ")
		msgs = appendErrors(msgs, errs)
	}
	res := rec.Result()
	res.Request = httpReq
	if ok, errs := v.ValidateHttpResponse(httpReq, res); !ok {
		msgs = appendErrors(append(msgs, "response: "), errs)
	}
	if len(msgs) > 0 {
		a.t.Errorf("%s %s → %d does not match the OpenAPI document:\n%s\nbody: %s",
			httpReq.Method, httpReq.URL.Path, rec.Code, strings.Join(msgs, "\n"), rec.Body.String())
	}
}

func appendErrors(msgs []string, errs []*verrors.ValidationError) []string {
	for _, e := range errs {
		msgs = append(msgs, e.Message+": "+e.Reason)
		for _, se := range e.SchemaValidationErrors {
			msgs = append(msgs, "  "+se.FieldPath+" ("+se.KeywordLocation+"): "+se.Reason)
		}
	}
	return msgs
}

// IdemKey is a fresh valid Idempotency-Key.
func IdemKey() string { return "test-" + uuid.NewString() }

// Form is a multipart/form-data body of text fields and a file named
// name in field "file", with its Content-Type, as uploads send it.
func Form(t testing.TB, fields map[string]string, name string, content []byte) (body, contentType string) {
	t.Helper()
	var buf bytes.Buffer
	form := multipart.NewWriter(&buf)
	for k, v := range fields {
		require.NoError(t, form.WriteField(k, v))
	}
	part, err := form.CreateFormFile("file", name)
	require.NoError(t, err)
	_, err = part.Write(content)
	require.NoError(t, err)
	require.NoError(t, form.Close())
	return buf.String(), form.FormDataContentType()
}

// AuditEntries are the organization's audit entries of an operation, in
// order.
func (a *API) AuditEntries(orgID uuid.UUID, operation string) []domain.AuditEntry {
	a.t.Helper()
	var entries []domain.AuditEntry
	require.NoError(a.t, a.DB.Where("organization_id = ? AND operation = ?", orgID, operation).Order("id").Find(&entries).Error)
	return entries
}

// EventTypes are the types of the organization's outbox events, in order.
func (a *API) EventTypes(orgID uuid.UUID) []string {
	a.t.Helper()
	var types []string
	require.NoError(a.t, a.DB.Model(&domain.Event{}).Where("organization_id = ?", orgID).Order("id").Pluck("type", &types).Error)
	return types
}

// StoredVersion stores a processed PDF version of a new laboratory report
// in the given review status, as the document workflow and a reviewer
// would have left it, and returns the version's id: evidence for tests of
// the areas that cite documents.
func (a *API) StoredVersion(org uuid.UUID, review string) string {
	a.t.Helper()
	return a.StoredVersionOf(documents.Document{OrganizationID: org, DocumentType: "laboratory_report", Title: "Raport z badań " + review}, review)
}

// StoredVersionOf is StoredVersion of a new document described by doc
// (its organization, type, title, item, party).
func (a *API) StoredVersionOf(doc documents.Document, review string) string {
	a.t.Helper()
	doc.ID, doc.VersionCount, doc.Revision = domain.NewID(), 1, 1
	require.NoError(a.t, a.DB.Create(&doc).Error)
	org := doc.OrganizationID
	pages := 3
	v := documents.DocumentVersion{ID: domain.NewID(), OrganizationID: org, DocumentID: doc.ID, Version: 1, FileName: "raport.pdf",
		ObjectKey: "org/" + org.String() + "/documents/" + doc.ID.String(), SizeBytes: 10, SHA256: strings.Repeat("0", 64),
		ProcessingStatus: documents.ProcessingReviewRequired, PageCount: &pages, ReviewStatus: review, Revision: 1}
	require.NoError(a.t, a.DB.Create(&v).Error)
	return v.ID.String()
}

// ReadXLSX reads every sheet of a workbook, as rows of strings, with
// openpyxl (Debian's python3-openpyxl, which make test installs): a reader
// independent of the excelize that wrote it. A number cell reads as the
// float openpyxl makes of it, in plain decimal notation ("0.00001", not
// "1e-05").
func ReadXLSX(t testing.TB, workbook []byte) map[string][][]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "workbook.xlsx")
	require.NoError(t, os.WriteFile(path, workbook, 0o600))
	script := `import decimal, json, sys, openpyxl
def text(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return format(decimal.Decimal(repr(v)), "f")
    return str(v)
wb = openpyxl.load_workbook(sys.argv[1], read_only=True)
print(json.dumps({ws.title: [[text(v) for v in row] for row in ws.iter_rows(values_only=True)] for ws in wb.worksheets}))`
	out, err := exec.Command("/usr/bin/python3", "-c", script, path).Output()
	require.NoError(t, err, "openpyxl could not read the workbook")
	var sheets map[string][][]string
	require.NoError(t, json.Unmarshal(out, &sheets))
	return sheets
}

// XLSXCell is a cell as its workbook stores it: a number's digits exactly
// as written, and whether it is a number.
type XLSXCell struct {
	Text   string
	Number bool
}

// ReadXLSXCells reads a sheet's cells as stored (excelize's raw values),
// so a test can tell numbers from text and see every digit of a number,
// beyond the 15 or so a float keeps.
func ReadXLSXCells(t testing.TB, workbook []byte, sheet string) [][]XLSXCell {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(workbook), excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	defer f.Close()
	rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	require.NoError(t, err)
	out := make([][]XLSXCell, len(rows))
	for r, row := range rows {
		out[r] = make([]XLSXCell, len(row))
		for c, text := range row {
			name, err := excelize.CoordinatesToCellName(c+1, r+1)
			require.NoError(t, err)
			kind, err := f.GetCellType(sheet, name)
			require.NoError(t, err)
			// A cell without a type is a number (ECMA-376 18.18.11).
			out[r][c] = XLSXCell{Text: text, Number: text != "" && (kind == excelize.CellTypeNumber || kind == excelize.CellTypeUnset)}
		}
	}
	return out
}
