package movements_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/movements"
)

var (
	today    = time.Now().UTC().Format(time.DateOnly)
	tomorrow = time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
)

// fixture is a tenant with a stock-tracked box of 24.5 g counted in pieces.
type fixture struct {
	a    *apitest.API
	tn   apitest.Tenant
	item string
}

func newFixture(t *testing.T) *fixture {
	a := apitest.New(t)
	f := &fixture{a: a, tn: a.NewTenant(apitest.TenantSpec{})}
	f.item = f.createItem(t, f.tn, "BOX-1", true)["id"].(string)
	return f
}

func (f *fixture) createItem(t *testing.T, tn apitest.Tenant, code string, tracked bool, changes ...map[string]any) map[string]any {
	t.Helper()
	res := f.post(tn, "/catalog-items", with(map[string]any{
		"internalCode": code, "name": "Mailer box", "sourcingType": "purchased", "massG": "24.5",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "stockTracked": tracked,
		"foodContactStatus": "not_food_contact", "reuseType": "single_use",
	}, changes...))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

func (f *fixture) post(tn apitest.Tenant, path string, body any) *apitest.Response {
	return f.a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path(path), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (f *fixture) get(tn apitest.Tenant, path string) *apitest.Response {
	return f.a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path(path), Token: tn.Token})
}

func (f *fixture) supply(body map[string]any) *apitest.Response {
	return f.post(f.tn, "/catalog-items/"+f.item+"/supply-events", body)
}

// event is a valid supply event body of a direction: its required fields
// filled, quantity_units as given.
func event(direction, units string, extra ...map[string]any) map[string]any {
	body := map[string]any{"catalog_revision": 1, "direction": direction, "quantity_units": units, "event_on": today}
	switch direction {
	case movements.DirectionReceived, movements.DirectionSupplied:
		body["counterparty_name"], body["counterparty_country"], body["counterparty_address"] = "Kunde GmbH", "DE", "Hauptstr. 1, Berlin"
	case movements.DirectionUsed:
		body["usage_channel"], body["country"] = "retail", "PL"
	case movements.DirectionAdjustmentIn, movements.DirectionAdjustmentOut:
		body["note"] = "stocktaking"
	}
	return with(body, extra...)
}

// with changes body: a nil value removes the field.
func with(body map[string]any, changes ...map[string]any) map[string]any {
	for _, c := range changes {
		for k, v := range c {
			if v == nil {
				delete(body, k)
			} else {
				body[k] = v
			}
		}
	}
	return body
}

func (f *fixture) summary(t *testing.T, query string) map[string]any {
	t.Helper()
	res := f.get(f.tn, "/catalog-items/"+f.item+"/supply-summary"+query)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func (f *fixture) balance(t *testing.T) map[string]any {
	return f.summary(t, "")["balance"].(map[string]any)
}

// counts are the rows the item's stock writes leave behind.
func (f *fixture) counts(t *testing.T) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"supply_events", "stock_movements", "flows"} {
		var n int64
		require.NoError(t, f.a.DB.Table(table).Where("organization_id = ?", f.tn.Org).Count(&n).Error)
		out[table] = n
	}
	return out
}

// assertLedger checks the item's balance against the sum of its movements.
func (f *fixture) assertLedger(t *testing.T, physical string) {
	t.Helper()
	var sum decimal.Decimal
	require.NoError(t, f.a.DB.Raw(`SELECT coalesce(sum(physical_delta), 0) FROM stock_movements WHERE catalog_item_id = ?`, f.item).Scan(&sum).Error)
	b := f.balance(t)
	assert.True(t, sum.Equal(decimal.RequireFromString(physical)), "movements sum to %s, not %s", physical, sum)
	assert.True(t, decimal.RequireFromString(b["physical"].(string)).Equal(sum), "the balance %v equals the movements' sum %s", b["physical"], sum)
}

func dec(t *testing.T, v any) decimal.Decimal {
	t.Helper()
	s, ok := v.(string)
	require.True(t, ok, "%v is a decimal string", v)
	return decimal.RequireFromString(s)
}

func TestSupplyEventsMoveStockAndGenerateFlows(t *testing.T) {
	f := newFixture(t)

	opening := f.supply(event(movements.DirectionOpeningBalance, "10"))
	require.Equal(t, http.StatusCreated, opening.Code, opening.Body.String())
	e := opening.JSON
	assert.Equal(t, "10", e["stock_quantity"])
	assert.Equal(t, "piece", e["stock_unit"])
	assert.Equal(t, "245", e["mass_g"], "10 pieces of 24.5 g")
	assert.Nil(t, e["flow"], "an opening balance reaches no market")
	assert.Nil(t, e["quantity"])
	assert.Equal(t, "single_use", e["reusable_at_event"], "from the item's reuse type")
	assert.Equal(t, float64(1), e["catalog_revision"])
	assert.NotEmpty(t, e["data_version"])
	assert.Contains(t, opening.Header().Get("Location"), "/supply-events/"+e["id"].(string))

	received := f.supply(event(movements.DirectionReceived, "", map[string]any{"quantity_units": nil, "quantity": "0.49", "unit": "kg"}))
	require.Equal(t, http.StatusCreated, received.Code, received.Body.String())
	assert.True(t, dec(t, received.JSON["stock_quantity"]).Equal(decimal.NewFromInt(20)), "0.49 kg of 24.5 g boxes are 20 pieces")
	assert.Equal(t, "0.49", received.JSON["quantity"])
	assert.Equal(t, "kg", received.JSON["unit"])
	assert.Nil(t, received.JSON["flow"])

	supplied := f.supply(event(movements.DirectionSupplied, "5", map[string]any{"reusable_at_event": "reusable"}))
	require.Equal(t, http.StatusCreated, supplied.Code, supplied.Body.String())
	assert.Equal(t, "-5", supplied.JSON["stock_quantity"], "a supply takes stock out")
	assert.Equal(t, "DE", supplied.JSON["country"], "the market defaults to the counterparty's country")
	flowID, ok := supplied.JSON["flow"].(string)
	require.True(t, ok, "a supply generates a flow")
	flow := f.get(f.tn, "/flows/"+flowID)
	require.Equal(t, http.StatusOK, flow.Code, flow.Body.String())
	assert.Equal(t, "placed", flow.JSON["kind"])
	assert.Equal(t, "5", flow.JSON["quantity"])
	assert.Equal(t, "piece", flow.JSON["unit"])
	assert.Equal(t, "122.5", flow.JSON["mass_g"])
	assert.Equal(t, "DE", flow.JSON["country"])
	assert.Equal(t, true, flow.JSON["reusable"])
	assert.Equal(t, supplied.JSON["id"], flow.JSON["supply_event"])
	assert.Equal(t, supplied.JSON["data_version"], flow.JSON["data_version"])

	used := f.supply(event(movements.DirectionUsed, "3", map[string]any{"usage_channel": "ecommerce", "transaction_reference": "ORD-77", "country": "CZ"}))
	require.Equal(t, http.StatusCreated, used.Code, used.Body.String())
	usedFlow := f.get(f.tn, "/flows/"+used.JSON["flow"].(string))
	require.Equal(t, http.StatusOK, usedFlow.Code)
	assert.Equal(t, "used", usedFlow.JSON["kind"])
	assert.Equal(t, "CZ", usedFlow.JSON["country"])
	assert.Equal(t, false, usedFlow.JSON["reusable"])

	for _, d := range []string{movements.DirectionProduced, movements.DirectionAdjustmentIn, movements.DirectionAdjustmentOut} {
		res := f.supply(event(d, "1"))
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		assert.Nil(t, res.JSON["flow"], "%s generates no flow", d)
	}

	// 10 + 20 - 5 - 3 + 1 + 1 - 1
	s := f.summary(t, "")
	b := s["balance"].(map[string]any)
	assert.True(t, dec(t, b["physical"]).Equal(decimal.NewFromInt(23)), "physical %v", b["physical"])
	assert.Equal(t, "0", b["reserved"])
	assert.True(t, dec(t, b["available"]).Equal(decimal.NewFromInt(23)))
	assert.Equal(t, true, s["stock_tracked"])
	assert.True(t, dec(t, s["net_stock_quantity"]).Equal(decimal.NewFromInt(23)))
	byDirection := map[string]map[string]any{}
	for _, d := range s["directions"].([]any) {
		byDirection[d.(map[string]any)["direction"].(string)] = d.(map[string]any)
	}
	assert.Len(t, byDirection, len(movements.SupplyDirections), "every direction is listed")
	assert.Equal(t, float64(1), byDirection["supplied"]["count"])
	assert.Equal(t, "-5", byDirection["supplied"]["stock_quantity"])
	assert.Equal(t, "122.5", byDirection["supplied"]["mass_g"])
	f.assertLedger(t, "23")

	var flows int64
	require.NoError(t, f.a.DB.Model(&movements.Flow{}).Where("organization_id = ? AND supply_event_id IS NOT NULL", f.tn.Org).Count(&flows).Error)
	assert.Equal(t, int64(2), flows, "flows for the supply and the use only")
	events := f.a.EventTypes(f.tn.Org)
	assert.Equal(t, 7, count(events, "supply_event.created"))
	assert.Equal(t, 2, count(events, "flow.created"))
	assert.Len(t, f.a.AuditEntries(f.tn.Org, "createSupplyEvent"), 7)

	list := f.get(f.tn, "/catalog-items/"+f.item+"/supply-events?direction=supplied")
	require.Equal(t, http.StatusOK, list.Code, list.Body.String())
	require.Len(t, list.JSON["data"], 1)
	assert.Equal(t, supplied.JSON["id"], list.JSON["data"].([]any)[0].(map[string]any)["id"])
	all := f.get(f.tn, "/catalog-items/"+f.item+"/supply-events?per_page=100")
	assert.Len(t, all.JSON["data"], 7)
	assert.Len(t, f.get(f.tn, "/catalog-items/"+f.item+"/supply-events?from="+tomorrow).JSON["data"], 0)
	assert.Len(t, f.get(f.tn, "/catalog-items/"+f.item+"/supply-events?to="+today).JSON["data"], 7)
	bad := f.get(f.tn, "/catalog-items/"+f.item+"/supply-events?direction=stolen&from=2025-02-01&to=2025-01-01")
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Code)
	assert.Contains(t, bad.FieldErrors(), "direction")
	assert.Contains(t, bad.FieldErrors(), "to")
	future := f.summary(t, "?from="+tomorrow)
	assert.Equal(t, "0", future["net_stock_quantity"], "the period narrows the totals")
	assert.Equal(t, tomorrow, future["from"])
	assert.True(t, dec(t, future["balance"].(map[string]any)["physical"]).Equal(decimal.NewFromInt(23)), "but not the balance")

	read := f.get(f.tn, "/catalog-items/"+f.item+"/supply-events/"+supplied.JSON["id"].(string))
	require.Equal(t, http.StatusOK, read.Code)
	assert.Equal(t, supplied.Body.String(), read.Body.String(), "the created answer and a later read agree")
}

func count(values []string, v string) int {
	n := 0
	for _, x := range values {
		if x == v {
			n++
		}
	}
	return n
}

func TestShortageIsRefusedAndWritesNothing(t *testing.T) {
	f := newFixture(t)
	require.Equal(t, http.StatusCreated, f.supply(event(movements.DirectionOpeningBalance, "4")).Code)
	before := f.counts(t)
	for _, d := range []string{movements.DirectionSupplied, movements.DirectionUsed, movements.DirectionAdjustmentOut} {
		res := f.supply(event(d, "5"))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, "insufficient_stock", res.ErrorCode())
		assert.Contains(t, res.FieldErrors(), "quantity_units", "the shortage is named on the quantity sent")
	}
	res := f.supply(event(movements.DirectionSupplied, "", map[string]any{"quantity_units": nil, "quantity": "1", "unit": "kg"}))
	assert.Equal(t, "insufficient_stock", res.ErrorCode(), "1 kg is about 41 boxes")
	assert.Contains(t, res.FieldErrors(), "quantity")
	assert.Equal(t, before, f.counts(t), "no event, no movement, no flow")
	assert.Equal(t, "4", f.balance(t)["physical"])
	f.assertLedger(t, "4")
	assert.Equal(t, 1, count(f.a.EventTypes(f.tn.Org), "supply_event.created"))

	exact := f.supply(event(movements.DirectionSupplied, "4"))
	require.Equal(t, http.StatusCreated, exact.Code, "the whole stock may go")
	assert.Equal(t, "0", f.balance(t)["available"])

	// Stock that is not tracked records movements without refusing any.
	loose := f.createItem(t, f.tn, "TAPE-1", false)["id"].(string)
	res = f.post(f.tn, "/catalog-items/"+loose+"/supply-events", event(movements.DirectionSupplied, "3"))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	s := f.get(f.tn, "/catalog-items/"+loose+"/supply-summary")
	require.Equal(t, http.StatusOK, s.Code, s.Body.String())
	assert.Equal(t, false, s.JSON["stock_tracked"])
	assert.Equal(t, "-3", s.JSON["balance"].(map[string]any)["physical"])
}

func TestSupplyEventRules(t *testing.T) {
	f := newFixture(t)
	cases := map[string]struct {
		body   map[string]any
		fields []string
	}{
		"both quantity forms":           {event("produced", "1", map[string]any{"quantity": "1", "unit": "piece"}), []string{"quantity", "unit", "quantity_units"}},
		"unit with quantity_units":      {event("produced", "1", map[string]any{"unit": "piece"}), []string{"unit", "quantity_units"}},
		"no quantity":                   {event("produced", "1", map[string]any{"quantity_units": nil}), []string{"quantity", "quantity_units"}},
		"quantity without unit":         {event("produced", "", map[string]any{"quantity_units": nil, "quantity": "2"}), []string{"unit"}},
		"unit without quantity":         {event("produced", "", map[string]any{"quantity_units": nil, "unit": "piece"}), []string{"quantity"}},
		"unit the item cannot convert":  {event("produced", "", map[string]any{"quantity_units": nil, "quantity": "2", "unit": "m"}), []string{"unit"}},
		"pcs":                           {event("produced", "", map[string]any{"quantity_units": nil, "quantity": "2", "unit": "pcs"}), []string{"unit"}},
		"zero quantity":                 {event("produced", "0"), []string{"quantity_units"}},
		"negative quantity":             {event("produced", "-1"), []string{"quantity_units"}},
		"quantity as a JSON number":     {event("produced", "", map[string]any{"quantity_units": 2}), []string{"quantity_units"}},
		"huge quantity":                 {event("produced", "12345678901234567890"), []string{"quantity_units"}},
		"future event_on":               {event("produced", "1", map[string]any{"event_on": tomorrow}), []string{"event_on"}},
		"bad event_on":                  {event("produced", "1", map[string]any{"event_on": "23.11.2026"}), []string{"event_on"}},
		"missing event_on":              {event("produced", "1", map[string]any{"event_on": nil}), []string{"event_on"}},
		"unknown direction":             {event("stolen", "1"), []string{"direction"}},
		"missing revision":              {event("produced", "1", map[string]any{"catalog_revision": nil}), []string{"catalog_revision"}},
		"revision not a number":         {event("produced", "1", map[string]any{"catalog_revision": "one"}), []string{"catalog_revision"}},
		"received without counterparty": {event("received", "1", map[string]any{"counterparty_name": nil, "counterparty_country": nil, "counterparty_address": nil}), []string{"counterparty_name", "counterparty_country", "counterparty_address"}},
		"supplied with null counterparty": {event("supplied", "1", map[string]any{"counterparty_name": "  ", "counterparty_country": "XX", "counterparty_address": nil}),
			[]string{"counterparty_name", "counterparty_country", "counterparty_address"}},
		"used without channel or country": {event("used", "1", map[string]any{"usage_channel": nil, "country": nil}), []string{"usage_channel", "country"}},
		"ecommerce without reference":     {event("used", "1", map[string]any{"usage_channel": "ecommerce"}), []string{"transaction_reference"}},
		"unknown channel":                 {event("used", "1", map[string]any{"usage_channel": "telepathy"}), []string{"usage_channel"}},
		"adjustment in without note":      {event("adjustment_in", "1", map[string]any{"note": nil}), []string{"note"}},
		"adjustment out with blank note":  {event("adjustment_out", "1", map[string]any{"note": " "}), []string{"note"}},
		"unknown reuse state":             {event("produced", "1", map[string]any{"reusable_at_event": "forever"}), []string{"reusable_at_event"}},
		"unknown country":                 {event("produced", "1", map[string]any{"country": "Poland"}), []string{"country"}},
	}
	for name, c := range cases {
		res := f.supply(c.body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", name, res.Body.String())
		assert.Equal(t, "validation_failed", res.ErrorCode(), name)
		for _, field := range c.fields {
			assert.Contains(t, res.FieldErrors(), field, name)
		}
		assert.Len(t, res.FieldErrors(), len(c.fields), "%s: %v", name, res.FieldErrors())
	}
	res := f.supply(map[string]any{})
	for _, field := range []string{"catalog_revision", "direction", "quantity", "quantity_units", "event_on"} {
		assert.Contains(t, res.FieldErrors(), field, "every missing field is named at once")
	}
	assert.Equal(t, map[string]int64{"supply_events": 0, "stock_movements": 0, "flows": 0}, f.counts(t), "bad input writes nothing")

	pallet := f.createItem(t, f.tn, "PALLET", true, map[string]any{"massG": "25000"})["id"].(string)
	tiny := f.post(f.tn, "/catalog-items/"+pallet+"/supply-events", event("produced", "", map[string]any{"quantity_units": nil, "quantity": "0.000000001", "unit": "kg"}))
	assert.Equal(t, http.StatusUnprocessableEntity, tiny.Code, "a milligram of pallets is no pallet")
	assert.Contains(t, tiny.FieldErrors(), "quantity")
	assert.Equal(t, map[string]int64{"supply_events": 0, "stock_movements": 0, "flows": 0}, f.counts(t), "bad input writes nothing")

	// Optional fields of other directions are kept as sent.
	ok := f.supply(event("produced", "1", map[string]any{"note": "line 2", "country": "PL", "reusable_at_event": "reusable"}))
	require.Equal(t, http.StatusCreated, ok.Code, ok.Body.String())
	assert.Equal(t, "line 2", ok.JSON["note"])
	assert.Nil(t, ok.JSON["flow"], "a country does not make a production a flow")

	patch := f.a.Do(apitest.Req{Method: http.MethodPatch, Path: f.tn.Path("/catalog-items/" + f.item), Token: f.tn.Token,
		Body: map[string]any{"name": "Mailer box M"}, Headers: map[string]string{"If-Match": `"1"`}})
	require.Equal(t, http.StatusOK, patch.Code, patch.Body.String())
	stale := f.supply(event("produced", "1"))
	assert.Equal(t, http.StatusConflict, stale.Code)
	assert.Equal(t, "revision_conflict", stale.ErrorCode())
	current := f.supply(event("produced", "1", map[string]any{"catalog_revision": 2}))
	require.Equal(t, http.StatusCreated, current.Code, current.Body.String())
	assert.NotEqual(t, ok.JSON["data_version"], current.JSON["data_version"], "the event cites the revision's data version")
	assert.Equal(t, http.StatusCreated, f.supply(event("produced", "1", map[string]any{"catalog_revision": 2, "data_version": current.JSON["data_version"]})).Code,
		"a data version sent must be the current one")
	stale = f.supply(event("produced", "1", map[string]any{"catalog_revision": 2, "data_version": ok.JSON["data_version"]}))
	assert.Equal(t, "revision_conflict", stale.ErrorCode(), "an earlier data version is stale")
	unknown := f.supply(event("produced", "1", map[string]any{"catalog_revision": 2, "data_version": uuid.NewString()}))
	assert.Equal(t, http.StatusUnprocessableEntity, unknown.Code)
	assert.Contains(t, unknown.FieldErrors(), "data_version")

	archive := f.post(f.tn, "/catalog-items/"+f.item+"/archive", map[string]any{"revision": 2})
	require.Equal(t, http.StatusOK, archive.Code, archive.Body.String())
	archived := f.supply(event("produced", "1", map[string]any{"catalog_revision": 3}))
	assert.Equal(t, http.StatusUnprocessableEntity, archived.Code)
	assert.Equal(t, "item_archived", archived.ErrorCode())
}

func TestSupplyEventsOfAnotherOrganizationAreNotFound(t *testing.T) {
	f := newFixture(t)
	other := f.a.NewTenant(apitest.TenantSpec{})
	created := f.supply(event("opening_balance", "3"))
	require.Equal(t, http.StatusCreated, created.Code)
	id := created.JSON["id"].(string)
	second := f.createItem(t, f.tn, "BOX-2", true)["id"].(string)

	for _, path := range []string{
		"/catalog-items/" + f.item + "/supply-events",
		"/catalog-items/" + f.item + "/supply-events/" + id,
		"/catalog-items/" + f.item + "/supply-summary",
	} {
		assert.Equal(t, http.StatusNotFound, f.get(other, path).Code, path)
	}
	assert.Equal(t, http.StatusNotFound, f.post(other, "/catalog-items/"+f.item+"/supply-events", event("opening_balance", "1")).Code)
	assert.Equal(t, http.StatusNotFound, f.get(f.tn, "/catalog-items/"+second+"/supply-events/"+id).Code, "an event of another item")
	assert.Equal(t, http.StatusNotFound, f.get(f.tn, "/catalog-items/"+uuid.NewString()+"/supply-summary").Code)
	assert.Equal(t, "3", f.balance(t)["physical"])
}

func TestSupplyEventReplay(t *testing.T) {
	f := newFixture(t)
	key := apitest.IdemKey()
	send := func(body map[string]any) *apitest.Response {
		return f.a.Do(apitest.Req{Method: http.MethodPost, Path: f.tn.Path("/catalog-items/" + f.item + "/supply-events"), Token: f.tn.Token,
			Body: body, Headers: map[string]string{"Idempotency-Key": key}})
	}
	first := send(event("received", "7"))
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	again := send(event("received", "7"))
	assert.Equal(t, http.StatusCreated, again.Code)
	assert.Equal(t, first.Body.String(), again.Body.String(), "a replay answers the stored response")
	assert.Equal(t, http.StatusConflict, send(event("received", "8")).Code, "the same key with another body")
	assert.Equal(t, "7", f.balance(t)["physical"], "the stock moved once")
	f.assertLedger(t, "7")
}

func flowBody(item string, extra ...map[string]any) map[string]any {
	body := map[string]any{"item": item, "kind": "placed", "quantity": "12", "unit": "piece", "mass_g": "300.5", "country": "PL", "event_on": today}
	return with(body, extra...)
}

func TestDirectFlows(t *testing.T) {
	f := newFixture(t)
	other := f.a.NewTenant(apitest.TenantSpec{})
	require.Equal(t, http.StatusCreated, f.supply(event("opening_balance", "10")).Code)
	before := f.counts(t)

	res := f.post(f.tn, "/flows", flowBody(f.item, map[string]any{"note": "market sample", "reusable": true}))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	fl := res.JSON
	assert.Equal(t, "placed", fl["kind"])
	assert.Equal(t, "300.5", fl["mass_g"], "the mass sent, not the catalogue's")
	assert.Equal(t, "12", fl["quantity"])
	assert.Equal(t, true, fl["reusable"])
	assert.Nil(t, fl["supply_event"])
	assert.Equal(t, "market sample", fl["note"])
	var version string
	require.NoError(t, f.a.DB.Raw(`SELECT id FROM catalog_item_data_versions WHERE catalog_item_id = ? AND revision = 1`, f.item).Scan(&version).Error)
	assert.Equal(t, version, fl["data_version"], "the flow cites the item's current data version")

	after := f.counts(t)
	assert.Equal(t, before["supply_events"], after["supply_events"], "a direct flow creates no supply event")
	assert.Equal(t, before["stock_movements"], after["stock_movements"], "and moves no stock")
	assert.Equal(t, "10", f.balance(t)["physical"])
	f.assertLedger(t, "10")
	assert.Equal(t, "flow.created", last(f.a.EventTypes(f.tn.Org)))
	assert.Len(t, f.a.AuditEntries(f.tn.Org, "createFlow"), 1)

	read := f.get(f.tn, "/flows/"+fl["id"].(string))
	require.Equal(t, http.StatusOK, read.Code)
	assert.Equal(t, res.Body.String(), read.Body.String())
	assert.Equal(t, http.StatusNotFound, f.get(other, "/flows/"+fl["id"].(string)).Code)

	second := f.createItem(t, f.tn, "BOX-2", false)["id"].(string)
	require.Equal(t, http.StatusCreated, f.post(f.tn, "/flows", flowBody(second, map[string]any{"kind": "used", "quantity": "0.5", "unit": "kg", "mass_g": "500"})).Code)
	require.Equal(t, http.StatusCreated, f.supply(event("used", "1")).Code, "a use generates a flow too")
	list := func(query string) int {
		res := f.get(f.tn, "/flows"+query)
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		return len(res.JSON["data"].([]any))
	}
	assert.Equal(t, 3, list(""))
	assert.Equal(t, 2, list("?item="+f.item))
	assert.Equal(t, 2, list("?kind=used"))
	assert.Equal(t, 1, list("?kind=used&item="+second))
	assert.Equal(t, 3, list("?from="+today+"&to="+today))
	assert.Equal(t, 0, list("?to="+time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)))
	assert.Len(t, f.get(other, "/flows").JSON["data"], 0, "another organization sees none")
	bad := f.get(f.tn, "/flows?kind=sold&item=x")
	assert.Equal(t, http.StatusUnprocessableEntity, bad.Code)
	assert.Contains(t, bad.FieldErrors(), "kind")
	assert.Contains(t, bad.FieldErrors(), "item")
}

func last(values []string) string { return values[len(values)-1] }

func TestDirectFlowRules(t *testing.T) {
	f := newFixture(t)
	other := f.a.NewTenant(apitest.TenantSpec{})
	foreign := f.createItem(t, other, "THEIRS", true)["id"].(string)
	old := f.createItem(t, f.tn, "OLD", true)["id"].(string)
	require.Equal(t, http.StatusOK, f.post(f.tn, "/catalog-items/"+old+"/archive", map[string]any{"revision": 1}).Code)

	cases := map[string]struct {
		body   map[string]any
		fields []string
	}{
		"unknown item":           {flowBody(uuid.NewString()), []string{"item"}},
		"item of another org":    {flowBody(foreign), []string{"item"}},
		"archived item":          {flowBody(old), []string{"item"}},
		"item not a uuid":        {flowBody("box"), []string{"item"}},
		"unit it cannot convert": {flowBody(f.item, map[string]any{"unit": "m2"}), []string{"unit"}},
		"missing mass":           {flowBody(f.item, map[string]any{"mass_g": nil}), []string{"mass_g"}},
		"negative mass":          {flowBody(f.item, map[string]any{"mass_g": "-1"}), []string{"mass_g"}},
		"mass as a number":       {flowBody(f.item, map[string]any{"mass_g": 12}), []string{"mass_g"}},
		"zero quantity":          {flowBody(f.item, map[string]any{"quantity": "0"}), []string{"quantity"}},
		"unknown kind":           {flowBody(f.item, map[string]any{"kind": "sold"}), []string{"kind"}},
		"missing country":        {flowBody(f.item, map[string]any{"country": nil}), []string{"country"}},
		"future event_on":        {flowBody(f.item, map[string]any{"event_on": tomorrow}), []string{"event_on"}},
		"reusable not a bool":    {flowBody(f.item, map[string]any{"reusable": "yes"}), []string{"reusable"}},
		"null unit":              {flowBody(f.item, map[string]any{"unit": nil}), []string{"unit"}},
	}
	for name, c := range cases {
		res := f.post(f.tn, "/flows", c.body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", name, res.Body.String())
		for _, field := range c.fields {
			assert.Contains(t, res.FieldErrors(), field, name)
		}
		assert.Len(t, res.FieldErrors(), len(c.fields), "%s: %v", name, res.FieldErrors())
	}
	res := f.post(f.tn, "/flows", map[string]any{"unit": "barrel"})
	for _, field := range []string{"item", "kind", "quantity", "unit", "mass_g", "country", "event_on"} {
		assert.Contains(t, res.FieldErrors(), field, "every bad field is named at once")
	}
	zero := f.post(f.tn, "/flows", flowBody(f.item, map[string]any{"mass_g": "0"}))
	assert.Equal(t, http.StatusCreated, zero.Code, "a flow may weigh nothing")
	var n int64
	require.NoError(t, f.a.DB.Model(&movements.Flow{}).Where("organization_id = ?", f.tn.Org).Count(&n).Error)
	assert.Equal(t, int64(1), n, "only the valid flow was written")
}

// Concurrent removals take the stock one after another: exactly as many
// succeed as the stock covers, the rest are refused, and nothing goes
// negative.
func TestConcurrentRemovalsNeverOversell(t *testing.T) {
	f := newFixture(t)
	require.Equal(t, http.StatusCreated, f.supply(event(movements.DirectionOpeningBalance, "10")).Code)
	results := make([]int, 30)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := []string{movements.DirectionSupplied, movements.DirectionUsed, movements.DirectionAdjustmentOut}[i%3]
			results[i] = f.supply(event(d, "1")).Code
		}()
	}
	wg.Wait()
	byStatus := map[int]int{}
	for _, code := range results {
		byStatus[code]++
	}
	assert.Equal(t, map[int]int{http.StatusCreated: 10, http.StatusUnprocessableEntity: 20}, byStatus)
	assert.Equal(t, "0", f.balance(t)["available"])
	f.assertLedger(t, "0")
	assert.Equal(t, int64(11), f.counts(t)["supply_events"])
}
