package profiles_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
	"ppwr/internal/access"
	"ppwr/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// desk is an organization with a second user who reviews, an approved and
// an unapproved document version and a re-use system, and another
// organization with an approved version of its own.
type desk struct {
	*apitest.API
	tn, reviewer, other  apitest.Tenant
	approved, unapproved string
	foreignDoc           string
}

func newDesk(t *testing.T) *desk {
	a := apitest.New(t)
	d := &desk{API: a, tn: a.NewTenant(apitest.TenantSpec{}), other: a.NewTenant(apitest.TenantSpec{})}
	d.reviewer = a.AddUser(d.tn.Org, apitest.TenantSpec{Role: access.Member,
		Permissions: []string{string(access.EvidenceReviewPerm), string(access.CatalogView)}})
	d.approved = a.StoredVersion(d.tn.Org, documents.ReviewApproved)
	d.unapproved = a.StoredVersion(d.tn.Org, documents.ReviewUnreviewed)
	d.foreignDoc = a.StoredVersion(d.other.Org, documents.ReviewApproved)
	item := d.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "CUP-" + uuid.NewString()[:8],
		"name": "Kubek", "sourcingType": "purchased", "massG": "40", "mainMaterialCode": "PLASTIC_PP", "stockUnit": "piece",
		"reuseType": "reusable", "foodContactStatus": "food_contact"})["id"].(string)
	d.ok(t, http.StatusCreated, http.MethodPost, "/ppwr/reuse-systems", map[string]any{"code": "KUBEK-PL", "name": "Kubek zwrotny",
		"operator": "Kubek Sp. z o.o.", "loop": "closed_loop", "return_incentive": "Kaucja 5 zł",
		"participants":         []any{map[string]any{"name": "Kawiarnia", "role": "packaging_user"}},
		"reconditioning_steps": []string{"cleaning"}, "items": []string{item}, "markets": []string{"PL"}})
	return d
}

func (d *desk) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return d.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (d *desk) ok(t *testing.T, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := d.send(t, d.tn, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

const profile = "/ppwr/compliance-profile"

// cafe is a Polish HORECA take-away profile that meets Arts 32 and 33.
func (d *desk) cafe() map[string]any {
	return map[string]any{"country": "PL", "micro_enterprise": false, "final_distributor": true,
		"sales_area": map[string]any{"value": "120", "unit": "m²"}, "horeca_takeaway": true, "byo_container_offered": true,
		"byo_policy": d.approved, "reuse_offer_takeaway": true, "takeaway_reuse_system": "KUBEK-PL",
		"reuse_reports": []any{map[string]any{"year": 2030, "submitted_on": "2031-05-30", "document": d.approved}}}
}

func TestAProfileEntryIsReviewedByAnotherUserAndANewOneSupersedesIt(t *testing.T) {
	d := newDesk(t)
	first := d.ok(t, http.StatusCreated, http.MethodPost, profile, map[string]any{"values": d.cafe()})
	id := first["id"].(string)
	assert.Equal(t, "PL", first["country"])
	assert.Equal(t, "active", first["status"])
	assert.Equal(t, "unreviewed", first["review_status"])
	values := first["values"].(map[string]any)
	assert.Equal(t, map[string]any{"value": "120", "unit": "m2"}, values["sales_area"], "stored in the canonical unit")
	assert.Nil(t, values["refill_offered"], "a value left out is unknown")
	assert.Equal(t, []any{
		map[string]any{"kind": "document_version", "id": d.approved, "field": "values.byo_policy"},
		map[string]any{"kind": "document_version", "id": d.approved, "field": "values.reuse_reports.0.document"},
	}, first["evidence"], "the documents the values cite")
	path := profile + "/" + id
	assert.Equal(t, first, d.ok(t, http.StatusOK, http.MethodGet, path, nil))
	assert.Equal(t, http.StatusNotFound, d.send(t, d.other, http.MethodGet, path, nil).Code, "another organization's entry")
	assert.Equal(t, http.StatusNotFound, d.send(t, d.other, http.MethodPost, path+"/review",
		map[string]any{"decision": "accepted", "reason": "x", "revision": 1}).Code)
	assert.Empty(t, d.send(t, d.other, http.MethodGet, profile, nil).JSON["data"], "another organization lists none of it")
	assert.Equal(t, http.StatusForbidden, d.send(t, d.reviewer, http.MethodPost, profile, map[string]any{"values": d.cafe()}).Code,
		"recording it takes catalog.update")

	decision := map[string]any{"decision": "accepted", "reason": "Regulamin i cennik sprawdzone", "revision": 1}
	res := d.send(t, d.tn, http.MethodPost, path+"/review", decision)
	assert.Equal(t, http.StatusForbidden, res.Code, "the creator cannot review")
	assert.Equal(t, "separate_reviewer_required", res.ErrorCode())
	res = d.send(t, d.reviewer, http.MethodPost, path+"/review", map[string]any{"decision": "accepted", "reason": "x", "revision": 2})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision")
	res = d.send(t, d.reviewer, http.MethodPost, path+"/review", decision)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "accepted", res.JSON["review_status"])
	assert.Equal(t, d.reviewer.User.String(), res.JSON["reviewed_by"])
	assert.EqualValues(t, 2, res.JSON["revision"])
	res = d.send(t, d.reviewer, http.MethodPost, path+"/review", map[string]any{"decision": "rejected", "reason": "x", "revision": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "entry_already_reviewed", res.ErrorCode())

	german := d.cafe()
	german["country"] = "DE"
	d.ok(t, http.StatusCreated, http.MethodPost, profile, map[string]any{"values": german})
	second := d.ok(t, http.StatusCreated, http.MethodPost, profile, map[string]any{"values": d.cafe()})
	assert.Equal(t, id, second["supersedes"], "a new entry for the country supersedes the previous one")
	old := d.ok(t, http.StatusOK, http.MethodGet, path, nil)
	assert.Equal(t, "superseded", old["status"])
	assert.Equal(t, second["id"], old["superseded_by"])
	third := d.ok(t, http.StatusCreated, http.MethodPost, profile, map[string]any{"values": d.cafe()})
	assert.Equal(t, second["id"], third["supersedes"], "even an unreviewed one")
	res = d.send(t, d.reviewer, http.MethodPost, profile+"/"+second["id"].(string)+"/review", decision)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "entry_superseded", res.ErrorCode())

	active := d.ok(t, http.StatusOK, http.MethodGet, profile+"?country=PL&status=active", nil)["data"].([]any)
	require.Len(t, active, 1, "one active entry per country")
	assert.Equal(t, third["id"], active[0].(map[string]any)["id"])
	all := d.ok(t, http.StatusOK, http.MethodGet, profile, nil)["data"].([]any)
	assert.Len(t, all, 4)
	assert.Equal(t, third["id"], all[0].(map[string]any)["id"], "newest first")
	accepted := d.ok(t, http.StatusOK, http.MethodGet, profile+"?review_status=accepted", nil)["data"].([]any)
	require.Len(t, accepted, 1)
	assert.Equal(t, id, accepted[0].(map[string]any)["id"])

	assert.Subset(t, d.EventTypes(d.tn.Org), []string{"compliance_profile_entry.created", "compliance_profile_entry.reviewed"})
	assert.Len(t, d.AuditEntries(d.tn.Org, "createComplianceProfileEntry"), 4)
	assert.Len(t, d.AuditEntries(d.tn.Org, "reviewComplianceProfileEntry"), 1)
}

func TestARetriedCreateAnswersTheSameEntry(t *testing.T) {
	d := newDesk(t)
	req := apitest.Req{Method: http.MethodPost, Path: d.tn.Path(profile), Token: d.tn.Token, Body: map[string]any{"values": d.cafe()},
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}}
	first, again := d.Do(req), d.Do(req)
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	assert.Equal(t, first.JSON["id"], again.JSON["id"])
	assert.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	assert.Len(t, d.ok(t, http.StatusOK, http.MethodGet, profile, nil)["data"], 1, "recorded once")
}

func TestAProfileEntryIsRefusedWithTheFieldsAtFault(t *testing.T) {
	d := newDesk(t)
	refused := func(values map[string]any) map[string]any {
		t.Helper()
		res := d.send(t, d.tn, http.MethodPost, profile, map[string]any{"values": values})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		return res.FieldErrors()
	}
	with := func(changes map[string]any) map[string]any {
		v := d.cafe()
		for k, c := range changes {
			v[k] = c
		}
		return v
	}
	res := d.send(t, d.tn, http.MethodPost, profile, map[string]any{})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "values")

	errs := refused(map[string]any{"country": "NO"})
	assert.Contains(t, errs, "values.country", "Norway is no Member State")
	assert.Contains(t, errs, "values.micro_enterprise", "required")

	errs = refused(with(map[string]any{"sales_area": map[string]any{"value": "120", "unit": "ft2"}, "refill_offered": "tak"}))
	assert.Contains(t, errs, "values.sales_area.unit")
	assert.Contains(t, errs, "values.refill_offered")

	errs = refused(with(map[string]any{"byo_policy": d.unapproved, "takeaway_reuse_system": "NIEZNANY",
		"reuse_reports": []any{map[string]any{"year": 2030, "submitted_on": "2031-05-30", "document": d.foreignDoc},
			map[string]any{"year": 2030, "submitted_on": "2031-06-01"}}}))
	assert.Contains(t, errs, "values.byo_policy", "an unapproved version")
	assert.Contains(t, errs, "values.reuse_reports.0.document", "another organization's version")
	assert.Contains(t, errs, "values.reuse_reports.1.year", "one report per year")
	assert.Contains(t, errs, "values.takeaway_reuse_system", "not one of the organization's re-use systems")

	errs = refused(with(map[string]any{"final_distributor": false, "refill_area": map[string]any{"value": "121", "unit": "m2"}}))
	assert.Contains(t, errs, "values.horeca_takeaway", "a HORECA take-away operator is a final distributor")
	assert.Contains(t, errs, "values.refill_area", "the refill area is part of the sales area")

	assert.Empty(t, d.ok(t, http.StatusOK, http.MethodGet, profile, nil)["data"], "nothing refused is stored")
	res = d.send(t, d.tn, http.MethodGet, profile+"?country=XX", nil)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
}
