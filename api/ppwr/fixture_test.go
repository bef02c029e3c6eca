package ppwr_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
	"ppwr/internal/access"
)

// desk is an organization with a second user who may review, approved
// and unapproved document versions, and another organization with an item
// and an approved version of its own, for references that must be
// refused.
type desk struct {
	*apitest.API
	tn, reviewer, other     apitest.Tenant
	approved, unapproved    string
	foreignItem, foreignDoc string
}

func newDesk(t *testing.T) *desk {
	a := apitest.New(t)
	o := &desk{API: a, tn: a.NewTenant(apitest.TenantSpec{}), other: a.NewTenant(apitest.TenantSpec{})}
	o.reviewer = a.AddUser(o.tn.Org, apitest.TenantSpec{Role: access.Member,
		Permissions: []string{string(access.EvidenceReviewPerm), string(access.CatalogView)}})
	o.approved = a.StoredVersion(o.tn.Org, documents.ReviewApproved)
	o.unapproved = a.StoredVersion(o.tn.Org, documents.ReviewUnreviewed)
	o.foreignDoc = a.StoredVersion(o.other.Org, documents.ReviewApproved)
	o.foreignItem = o.item(t, o.other, "single_use")
	return o
}

func (o *desk) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return o.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

// ok sends as the organization's owner and requires the status.
func (o *desk) ok(t *testing.T, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := o.send(t, o.tn, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

// refused sends as the owner and returns the field errors of a 422.
func (o *desk) refused(t *testing.T, method, path string, body any) map[string]any {
	t.Helper()
	res := o.send(t, o.tn, method, path, body)
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	return res.FieldErrors()
}

func (o *desk) item(t *testing.T, tn apitest.Tenant, reuseType string) string {
	t.Helper()
	res := o.send(t, tn, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "DOC-" + uuid.NewString()[:8],
		"name": "Skrzynka", "sourcingType": "purchased", "massG": "900", "mainMaterialCode": "PLASTIC_PP", "stockUnit": "piece",
		"reuseType": reuseType, "foodContactStatus": "not_food_contact"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON["id"].(string)
}
