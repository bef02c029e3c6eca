package packing_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/stock"
	"ppwr/internal/work"
)

// Fixtures: items and packing sets are made through the API; stock is
// seeded through the ledger's own command, which can also hold stock
// without a reservation behind it.

// newItem creates a catalogue item through the API: a piece of massG
// grams.
func newItem(t *testing.T, a *apitest.API, tn apitest.Tenant, tracked bool) uuid.UUID {
	t.Helper()
	res := post(a, tn, "/catalog-items", map[string]any{
		"internalCode": "PK-" + uuid.NewString()[:8], "name": "Box", "sourcingType": "purchased", "massG": "10",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "stockTracked": tracked,
		"foodContactStatus": "not_food_contact", "reuseType": "single_use",
	})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return uuid.MustParse(res.JSON["id"].(string))
}

// newSet creates a packing set whose recipe takes perSet pieces of each
// item, the first being the outer packaging.
func newSet(t *testing.T, a *apitest.API, tn apitest.Tenant, perSet int64, items ...uuid.UUID) uuid.UUID {
	t.Helper()
	res := post(a, tn, "/packaging-systems", map[string]any{"name": "Parcel S"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	revision := res.JSON["revision"]
	for i, it := range items {
		res = post(a, tn, "/packaging-systems/"+id+"/items", map[string]any{"revision": revision, "item": it,
			"quantity": strconv.FormatInt(perSet, 10), "unit": "piece", "role": "container", "outer_packaging": i == 0})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		revision = res.JSON["revision"]
	}
	return uuid.MustParse(id)
}

// stockedSet is a set of two stock-tracked items, perSet of each, with
// stock pieces of each.
func stockedSet(t *testing.T, a *apitest.API, tn apitest.Tenant, perSet, stock int64) (set, box, filler uuid.UUID) {
	t.Helper()
	box, filler = newItem(t, a, tn, true), newItem(t, a, tn, true)
	addStock(t, a, tn, box, stock)
	addStock(t, a, tn, filler, stock)
	return newSet(t, a, tn, perSet, box, filler), box, filler
}

// addStock records a supply of quantity pieces of an item.
func addStock(t *testing.T, a *apitest.API, tn apitest.Tenant, itemID uuid.UUID, quantity int64) {
	t.Helper()
	seedStock(t, a, tn.Org, itemID, decimal.NewFromInt(quantity), decimal.Zero)
}

// seedStock moves an item's physical and reserved stock on its current
// data version.
func seedStock(t *testing.T, a *apitest.API, org, itemID uuid.UUID, physical, reserved decimal.Decimal) {
	t.Helper()
	w := work.New(context.Background(), a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: org})
	item, err := domain.Find[catalog.CatalogItem](context.Background(), a.DB, org, itemID)
	require.NoError(t, err)
	version, err := catalog.CurrentDataVersion(w, item)
	require.NoError(t, err)
	require.NoError(t, stock.ApplyStock(w, []stock.StockChange{{Item: item, DataVersion: version, Kind: stock.MovementSupply,
		Physical: physical, Reserved: reserved, Source: work.Record{Type: "test", ID: domain.NewID()}, Field: "quantity"}}))
	require.NoError(t, w.Commit())
}

// configuration is a set's current revision and configuration hash, as
// a client reads them.
func configuration(t *testing.T, a *apitest.API, tn apitest.Tenant, setID uuid.UUID) (int, string) {
	t.Helper()
	res := get(a, tn, "/packaging-systems/"+setID.String()+"/configuration")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return int(res.JSON["revision"].(float64)), res.JSON["configuration_hash"].(string)
}

// balance is an item's physical and reserved stock.
func balance(t *testing.T, a *apitest.API, itemID uuid.UUID) (physical, reserved string) {
	t.Helper()
	var b stock.StockBalance
	require.NoError(t, a.DB.Where("catalog_item_id = ?", itemID).Take(&b).Error)
	return b.Physical.String(), b.Reserved.String()
}

// requireLedgerBalanced checks that every balance of the organization
// equals the sums of its movements and that none is negative.
func requireLedgerBalanced(t *testing.T, a *apitest.API, org uuid.UUID) {
	t.Helper()
	var off int64
	require.NoError(t, a.DB.Raw(`SELECT count(*) FROM stock_balances b
		LEFT JOIN (SELECT catalog_item_id, sum(physical_delta) AS p, sum(reserved_delta) AS r FROM stock_movements GROUP BY 1) m USING (catalog_item_id)
		WHERE b.organization_id = ? AND (b.physical <> coalesce(m.p, 0) OR b.reserved <> coalesce(m.r, 0) OR b.physical < 0 OR b.reserved < 0
			OR b.physical < b.reserved)`, org).Scan(&off).Error)
	require.Zero(t, off, "every balance equals its movements and none is negative")
}

func post(a *apitest.API, tn apitest.Tenant, path string, body any) *apitest.Response {
	return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func get(a *apitest.API, tn apitest.Tenant, path string) *apitest.Response {
	return a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path(path), Token: tn.Token})
}

func today() string { return time.Now().UTC().Format(time.DateOnly) }

// setBody is a consumption (reservation: hours > 0) of sets of setID.
func setBody(t *testing.T, a *apitest.API, tn apitest.Tenant, setID uuid.UUID, sets int, order string, hours int) map[string]any {
	revision, hash := configuration(t, a, tn, setID)
	body := map[string]any{"revision": revision, "configuration_hash": hash, "sets_count": sets, "order_reference": order, "country": "PL"}
	if hours > 0 {
		body["expires_in_hours"] = hours
	} else {
		body["event_on"] = today()
	}
	return body
}

func mustDecimal(t *testing.T, s string) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(s)
	require.NoError(t, err)
	return d
}
