package registers_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/access"
)

// world is an organization with an item that has a component and a
// market scenario, approved and unapproved document versions, and a
// second user who may review; plus another item and another
// organization's document, for the references that must be refused.
type world struct {
	*apitest.API
	tn, reviewer                 apitest.Tenant
	item, otherItem              string
	component, otherComponent    string
	scenario, otherScenario      string
	approved, second, unapproved string
	foreign                      string
}

func newWorld(t *testing.T, foodContact string) *world {
	a := apitest.New(t)
	w := &world{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	w.reviewer = a.AddUser(w.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{string(access.EvidenceReviewPerm), string(access.CatalogView)}})
	w.item, w.component, w.scenario = w.itemWithParts(t, foodContact)
	w.otherItem, w.otherComponent, w.otherScenario = w.itemWithParts(t, "not_food_contact")
	w.approved = w.StoredVersion(w.tn.Org, documents.ReviewApproved)
	w.second = w.StoredVersion(w.tn.Org, documents.ReviewApproved)
	w.unapproved = w.StoredVersion(w.tn.Org, documents.ReviewUnreviewed)
	w.foreign = w.StoredVersion(a.NewTenant(apitest.TenantSpec{}).Org, documents.ReviewApproved)
	return w
}

func (w *world) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return w.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (w *world) get(t *testing.T, path string) *apitest.Response {
	t.Helper()
	return w.Do(apitest.Req{Method: http.MethodGet, Path: w.tn.Path(path), Token: w.tn.Token})
}

// itemWithParts creates an item with one component and a market in PL.
func (w *world) itemWithParts(t *testing.T, foodContact string) (item, component, scenario string) {
	t.Helper()
	res := w.send(t, w.tn, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "REG-" + uuid.NewString()[:8], "name": "Słoik",
		"sourcingType": "own_production", "massG": "180", "mainMaterialCode": "GLASS", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": foodContact})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	item = res.JSON["id"].(string)
	res = w.send(t, w.tn, http.MethodPost, "/catalog-items/"+item+"/components", map[string]any{"name": "Zakrętka", "role": "closure",
		"materialCode": "PLASTIC_PP", "massG": "4"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	component = res.JSON["id"].(string)
	res = w.send(t, w.tn, http.MethodPut, "/catalog-items/"+item+"/markets", map[string]any{"market_revision": w.revision(t, item), "markets": []string{"PL"}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	scenario = res.JSON["markets"].([]any)[0].(map[string]any)["id"].(string)
	return item, component, scenario
}

func (w *world) revision(t *testing.T, item string) int {
	t.Helper()
	res := w.get(t, "/catalog-items/"+item)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return int(res.JSON["revision"].(float64))
}

// acceptedProposal stores an accepted evidence value about the item.
func (w *world) acceptedProposal(t *testing.T, item, code, value, unit string) string {
	t.Helper()
	at := time.Now()
	p := documents.EvidenceProposal{ID: domain.NewID(), OrganizationID: w.tn.Org, DocumentVersionID: uuid.MustParse(w.approved),
		CatalogItemID: uuid.MustParse(item), Code: code, Value: decimal.RequireFromString(value), Unit: unit, SourcePage: 2,
		SourceText: code + " " + value + " " + unit, Origin: documents.OriginManual, Status: documents.ProposalAccepted, DecidedAt: &at,
		Revision: 2, CreatedAt: at, UpdatedAt: at}
	require.NoError(t, w.DB.WithContext(context.Background()).Create(&p).Error)
	return p.ID.String()
}

// entry is a create body: the envelope around values.
func (w *world) entry(t *testing.T, item string, values map[string]any) map[string]any {
	return map[string]any{"catalog_revision": w.revision(t, item), "method": "test_method", "values": values}
}

func (w *world) create(t *testing.T, slug string, body map[string]any) *apitest.Response {
	t.Helper()
	return w.send(t, w.tn, http.MethodPost, "/catalog-items/"+w.item+"/ppwr/"+slug, body)
}
