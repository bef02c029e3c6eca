package packing_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/packing"
)

func TestConsumePackagingSystem(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	set, box, filler := stockedSet(t, a, tn, 2, 10)
	path := "/packaging-systems/" + set.String() + "/consumptions"

	res := post(a, tn, path, setBody(t, a, tn, set, 3, "ORD-1", 0))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	u := res.JSON
	assert.Equal(t, set.String(), u["packaging_system"])
	assert.Equal(t, float64(3), u["sets_count"])
	assert.Equal(t, "ORD-1", u["order_reference"])
	assert.Nil(t, u["reservation"])
	require.Len(t, u["composition"], 2, "the frozen recipe")
	assert.Equal(t, "2", u["composition"].([]any)[0].(map[string]any)["quantity"])
	p, r := balance(t, a, box)
	assert.Equal(t, []string{"4", "0"}, []string{p, r}, "3 sets of 2 boxes left 10-6")
	p, _ = balance(t, a, filler)
	assert.Equal(t, "4", p)
	assert.Contains(t, a.EventTypes(tn.Org), "packaging_system.consumed")
	assert.Len(t, a.AuditEntries(tn.Org, "consumePackagingSystem"), 1)

	usages := get(a, tn, "/packaging-systems/"+set.String()+"/usages")
	require.Equal(t, http.StatusOK, usages.Code, usages.Body.String())
	require.Len(t, usages.JSON["data"], 1)
	assert.Equal(t, u["id"], usages.JSON["data"].([]any)[0].(map[string]any)["id"])

	t.Run("a parcel is packed once", func(t *testing.T) {
		res := post(a, tn, path, setBody(t, a, tn, set, 1, "ORD-1", 0))
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "order_reference_used", res.ErrorCode())
	})
	t.Run("a shortage consumes nothing", func(t *testing.T) {
		res := post(a, tn, path, setBody(t, a, tn, set, 3, "ORD-2", 0))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, "insufficient_stock", res.ErrorCode())
		assert.Contains(t, res.FieldErrors(), "sets_count")
		p, _ := balance(t, a, box)
		assert.Equal(t, "4", p)
		var claims int64
		require.NoError(t, a.DB.Table("parcel_claims").Where("order_reference = ?", "ORD-2").Count(&claims).Error)
		assert.Zero(t, claims, "the parcel's claim rolled back too")
	})
	t.Run("a stale configuration is a conflict", func(t *testing.T) {
		body := setBody(t, a, tn, set, 1, "ORD-3", 0)
		body["revision"] = 7
		res := post(a, tn, path, body)
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "revision_conflict", res.ErrorCode())
		body = setBody(t, a, tn, set, 1, "ORD-3", 0)
		body["configuration_hash"] = "0000000000000000000000000000000000000000000000000000000000000000"
		res = post(a, tn, path, body)
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "configuration_changed", res.ErrorCode())
	})
	t.Run("every bad field at once", func(t *testing.T) {
		res := post(a, tn, path, map[string]any{"revision": "one", "configuration_hash": "xyz", "sets_count": 10001,
			"order_reference": "", "country": "XX", "event_on": time.Now().AddDate(0, 0, 2).Format(time.DateOnly)})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		for _, f := range []string{"revision", "configuration_hash", "sets_count", "order_reference", "country", "event_on"} {
			assert.Contains(t, res.FieldErrors(), f)
		}
	})
	t.Run("another organization's set is not found", func(t *testing.T) {
		other := a.NewTenant(apitest.TenantSpec{})
		res := post(a, other, path, setBody(t, a, tn, set, 1, "ORD-4", 0))
		assert.Equal(t, http.StatusNotFound, res.Code, res.Body.String())
		assert.Equal(t, http.StatusNotFound, get(a, other, "/packaging-systems/"+set.String()+"/usages").Code)
	})
	requireLedgerBalanced(t, a, tn.Org)
}

func TestPackingConsumption(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	box, tape := newItem(t, a, tn, true), newItem(t, a, tn, true)
	addStock(t, a, tn, box, 5)
	addStock(t, a, tn, tape, 200)
	line := func(item uuid.UUID, quantity, unit string) map[string]any {
		return map[string]any{"item": item, "revision": 1, "quantity": quantity, "unit": unit, "reusable": false}
	}
	body := func(order string, lines ...map[string]any) map[string]any {
		return map[string]any{"order_reference": order, "event_on": today(), "country": "DE", "lines": lines}
	}

	res := post(a, tn, "/packing-consumptions", body("P-1", line(box, "2", "piece"), line(tape, "0.5", "kg")))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	lines := res.JSON["lines"].([]any)
	require.Len(t, lines, 2)
	assert.Equal(t, "2", lines[0].(map[string]any)["stock_quantity"])
	assert.Equal(t, "50", lines[1].(map[string]any)["stock_quantity"], "0.5 kg of a 10 g piece is 50 pieces")
	assert.Equal(t, "500", lines[1].(map[string]any)["mass_g"])
	p, _ := balance(t, a, box)
	assert.Equal(t, "3", p)
	p, _ = balance(t, a, tape)
	assert.Equal(t, "150", p)
	assert.Contains(t, a.EventTypes(tn.Org), "packing_consumption.created")

	t.Run("a shortage on the second line consumes nothing", func(t *testing.T) {
		res := post(a, tn, "/packing-consumptions", body("P-2", line(tape, "1", "piece"), line(box, "4", "piece")))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, "insufficient_stock", res.ErrorCode())
		assert.Contains(t, res.FieldErrors(), "lines.1.quantity")
		p, _ := balance(t, a, tape)
		assert.Equal(t, "150", p, "the first line's stock is untouched")
		var n int64
		require.NoError(t, a.DB.Model(&packing.PackingConsumption{}).Where("order_reference = ?", "P-2").Count(&n).Error)
		assert.Zero(t, n)
	})
	t.Run("bad lines are named", func(t *testing.T) {
		other := a.NewTenant(apitest.TenantSpec{})
		foreign := newItem(t, a, other, true)
		res := post(a, tn, "/packing-consumptions", body("P-3", line(box, "1", "m"), line(box, "1", "piece"),
			line(foreign, "1", "piece"), line(uuid.New(), "1", "piece"), map[string]any{"item": "x", "quantity": 1}))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		fields := res.FieldErrors()
		for _, f := range []string{"lines.0.unit", "lines.1.item", "lines.2.item", "lines.3.item", "lines.4.item",
			"lines.4.quantity", "lines.4.revision", "lines.4.unit", "lines.4.reusable"} {
			assert.Contains(t, fields, f)
		}
		res = post(a, tn, "/packing-consumptions", body("P-3"))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		assert.Contains(t, res.FieldErrors(), "lines")
		res = post(a, tn, "/packing-consumptions", map[string]any{"lines": "no"})
		require.Equal(t, http.StatusUnprocessableEntity, res.Code)
		assert.Contains(t, res.FieldErrors(), "lines")
		assert.Contains(t, res.FieldErrors(), "order_reference")
	})
	t.Run("a stale item revision is a conflict", func(t *testing.T) {
		l := line(box, "1", "piece")
		l["revision"] = 2
		res := post(a, tn, "/packing-consumptions", body("P-4", l))
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "revision_conflict", res.ErrorCode())
	})
	t.Run("a parcel is packed once", func(t *testing.T) {
		res := post(a, tn, "/packing-consumptions", body("P-1", line(box, "1", "piece")))
		require.Equal(t, http.StatusConflict, res.Code, res.Body.String())
		assert.Equal(t, "order_reference_used", res.ErrorCode())
	})
	requireLedgerBalanced(t, a, tn.Org)
}
