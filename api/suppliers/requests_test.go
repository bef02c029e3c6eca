package suppliers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/suppliers"
	"ppwr/internal/work"
)

type supplierFixture struct {
	*apitest.API
	tn apitest.Tenant
}

func newSuppliers(t *testing.T) *supplierFixture {
	a := apitest.New(t)
	return &supplierFixture{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
}

func (s *supplierFixture) post(t *testing.T, tn apitest.Tenant, path string, body any) *apitest.Response {
	t.Helper()
	return s.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (s *supplierFixture) get(t *testing.T, path string) map[string]any {
	t.Helper()
	res := s.Do(apitest.Req{Method: http.MethodGet, Path: s.tn.Path(path), Token: s.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func (s *supplierFixture) created(t *testing.T, tn apitest.Tenant, path string, body any) map[string]any {
	t.Helper()
	res := s.post(t, tn, path, body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

func (s *supplierFixture) party(t *testing.T, tn apitest.Tenant, roles ...string) string {
	t.Helper()
	return s.created(t, tn, "/parties", map[string]any{"name": "Kartonex", "roles": roles, "country": "PL", "email": "oferty@kartonex.example"})["id"].(string)
}

func (s *supplierFixture) item(t *testing.T, tn apitest.Tenant) string {
	t.Helper()
	return s.created(t, tn, "/catalog-items", map[string]any{"internalCode": "SR-" + uuid.NewString()[:8], "name": "Pudełko",
		"sourcingType": "purchased", "massG": "24.5", "mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "not_food_contact"})["id"].(string)
}

func tomorrow() string { return time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly) }

func TestARequestIsADraftWithItsLines(t *testing.T) {
	s := newSuppliers(t)
	party, item := s.party(t, s.tn, "supplier"), s.item(t, s.tn)
	r := s.created(t, s.tn, "/supplier-requests", map[string]any{"party": party, "language": "pl", "due_on": tomorrow(),
		"message": "Prosimy o deklarację.", "lines": []map[string]any{
			{"item": item, "document_type": "supplier_declaration"},
			{"item": item, "measurement_codes": []string{"MASS_G", "HEIGHT_MM"}, "note": "bez pokrywki"},
		}})
	assert.Equal(t, "draft", r["status"], "creating a request sends nothing")
	assert.Equal(t, "not_sent", r["delivery_status"])
	assert.Equal(t, []any{"oferty@kartonex.example"}, r["recipients"], "the party's address by default")
	assert.EqualValues(t, 2, r["line_count"])
	assert.Contains(t, s.EventTypes(s.tn.Org), "supplier_request.created")

	lines := s.get(t, "/supplier-requests/"+r["id"].(string)+"/lines")["data"].([]any)
	require.Len(t, lines, 2)
	second := lines[1].(map[string]any)
	assert.Equal(t, []any{"MASS_G", "HEIGHT_MM"}, second["measurement_codes"])
	assert.Equal(t, "open", second["status"])
	assert.Empty(t, second["documents"])

	assert.Len(t, s.get(t, "/supplier-requests?item="+item)["data"], 1)
	assert.Len(t, s.get(t, "/supplier-requests?status=draft&party="+party)["data"], 1)
	assert.Empty(t, s.get(t, "/supplier-requests?status=sent")["data"])

	other := s.NewTenant(apitest.TenantSpec{})
	res := s.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/supplier-requests/" + r["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}

func TestARequestNamesEveryBadField(t *testing.T) {
	s := newSuppliers(t)
	party, item := s.party(t, s.tn, "supplier"), s.item(t, s.tn)
	other := s.NewTenant(apitest.TenantSpec{})
	foreignItem := s.item(t, other)
	otherItem := s.item(t, s.tn)
	comp := s.created(t, s.tn, "/catalog-items/"+otherItem+"/components", map[string]any{"name": "Wieczko", "role": "lid",
		"materialCode": "PAPER_CARDBOARD", "massG": "3"})["id"].(string)

	res := s.post(t, s.tn, "/supplier-requests", map[string]any{"party": party, "language": "de", "due_on": "2020-01-01",
		"recipients": []string{"not an address"}, "lines": []map[string]any{
			{"item": item},
			{"item": foreignItem, "document_type": "other"},
			{"item": item, "component": comp, "measurement_codes": []string{"COLOUR"}},
		}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	for _, field := range []string{"language", "due_on", "recipients", "lines.0.document_type", "lines.1.item", "lines.2.measurement_codes"} {
		assert.Contains(t, res.FieldErrors(), field, res.Body.String())
	}

	res = s.post(t, s.tn, "/supplier-requests", map[string]any{"party": party, "language": "en", "due_on": tomorrow(),
		"lines": []map[string]any{{"item": item, "component": comp, "document_type": "other"}}})
	assert.Contains(t, res.FieldErrors(), "lines.0.component", "a component of another item")

	customer := s.party(t, s.tn, "customer")
	res = s.post(t, s.tn, "/supplier-requests", map[string]any{"party": customer, "language": "en", "due_on": tomorrow(),
		"lines": []map[string]any{{"item": item, "document_type": "other"}}})
	assert.Equal(t, "party_not_supplier", res.ErrorCode())

	res = s.post(t, s.tn, "/supplier-requests", map[string]any{"party": uuid.NewString(), "language": "en", "due_on": tomorrow(),
		"lines": []map[string]any{}})
	assert.Contains(t, res.FieldErrors(), "party")
	assert.Contains(t, res.FieldErrors(), "lines")

	var count int64
	require.NoError(t, s.DB.Model(&suppliers.SupplierRequest{}).Where("organization_id = ?", s.tn.Org).Count(&count).Error)
	assert.Zero(t, count, "a refused request writes nothing")
}

func TestCancellingKeepsTheRequest(t *testing.T) {
	s := newSuppliers(t)
	party, item := s.party(t, s.tn, "supplier"), s.item(t, s.tn)
	r := s.created(t, s.tn, "/supplier-requests", map[string]any{"party": party, "language": "en", "due_on": tomorrow(),
		"recipients": []string{"a@kartonex.example", "b@kartonex.example"}, "lines": []map[string]any{{"item": item, "document_type": "other"}}})
	path := "/supplier-requests/" + r["id"].(string) + "/cancel"

	assert.Equal(t, http.StatusConflict, s.post(t, s.tn, path, map[string]any{"revision": 5}).Code)
	res := s.post(t, s.tn, path, map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "cancelled", res.JSON["status"])
	assert.NotNil(t, res.JSON["cancelled_at"])
	res = s.post(t, s.tn, path, map[string]any{"revision": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "supplier_request_closed", res.ErrorCode())
	assert.Len(t, s.get(t, "/supplier-requests/"+r["id"].(string)+"/lines")["data"], 1, "the lines stay")
	assert.Contains(t, s.EventTypes(s.tn.Org), "supplier_request.cancelled")
}

func TestIssuesOpenOnceAndReadInTheReadersLanguage(t *testing.T) {
	s := newSuppliers(t)
	item := uuid.MustParse(s.item(t, s.tn))
	subject := domain.NewID()
	unit := func() *work.Unit {
		return work.New(context.Background(), s.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: s.tn.Org})
	}
	for range 2 {
		w := unit()
		_, err := domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueSupplierLineRejected, Severity: domain.SeverityMedium,
			SubjectType: "supplier_request_line", SubjectID: subject, CatalogItemID: &item,
			MessageKey: "issue.supplier_line_rejected", MessageArgs: []any{"1", "brak podpisu"}})
		require.NoError(t, err)
		require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test"}))
	}
	list := s.get(t, "/issues?status=open&item="+item.String())["data"].([]any)
	require.Len(t, list, 1, "the same problem is open once")
	issue := list[0].(map[string]any)
	assert.Equal(t, "supplier_line_rejected", issue["kind"])
	assert.Contains(t, issue["message"], "brak podpisu")
	res := s.Do(apitest.Req{Method: http.MethodGet, Path: s.tn.Path("/issues/" + issue["id"].(string)), Token: s.tn.Token,
		Headers: map[string]string{"X-Locale": "pl"}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.NotEqual(t, issue["message"], res.JSON["message"], "the message follows X-Locale")

	w := unit()
	require.NoError(t, domain.ResolveIssues(w, domain.IssueSupplierLineRejected, subject, "issue.resolved_line_accepted"))
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test"}))
	resolved := s.get(t, "/issues/"+issue["id"].(string))
	assert.Equal(t, "resolved", resolved["status"])
	assert.NotNil(t, resolved["resolved_at"])
	assert.Empty(t, s.get(t, "/issues?status=open")["data"])
	assert.Contains(t, s.EventTypes(s.tn.Org), "compliance_issue.resolved")
}
