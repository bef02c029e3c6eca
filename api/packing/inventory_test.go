package packing_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/stock"
)

func TestInventory(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	item := cl.item("BOX", "piece", "250", true)
	path := "/catalog-items/" + item + "/inventory"

	fresh := cl.ok(http.StatusOK, http.MethodGet, path, nil)
	assert.Equal(t, map[string]any{"physical": "0", "reserved": "0", "available": "0"}, fresh["stock"], "an item that never moved")
	assert.Equal(t, item, fresh["catalog_item"])
	assert.Equal(t, "piece", fresh["stock_unit"])
	assert.Equal(t, true, fresh["stock_tracked"])
	assert.Equal(t, float64(1), fresh["revision"])
	assert.Equal(t, []any{
		map[string]any{"unit": "piece", "stock_units_per_unit": "1"},
		map[string]any{"unit": "kg", "stock_units_per_unit": "4"},
	}, fresh["units"], "a kilogram is 4 pieces of 250 g")
	first := fresh["data_version"].(string)

	cl.stock(item, "10", "0")
	cl.stock(item, "0", "3")
	cur := cl.ok(http.StatusOK, http.MethodGet, path, nil)
	assert.Equal(t, map[string]any{"physical": "10", "reserved": "3", "available": "7"}, cur["stock"])

	res := cl.send(http.MethodPatch, "/catalog-items/"+item, map[string]any{"massG": "200"}, "If-Match", `"1"`)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	cl.stock(item, "5.5", "0")
	now := cl.ok(http.StatusOK, http.MethodGet, path, nil)
	assert.Equal(t, map[string]any{"physical": "15.5", "reserved": "3", "available": "12.5"}, now["stock"], "the balance spans versions")
	assert.Equal(t, float64(2), now["revision"])
	assert.NotEqual(t, first, now["data_version"])
	assert.Equal(t, "5", now["units"].([]any)[1].(map[string]any)["stock_units_per_unit"], "the current mass converts")

	old := cl.ok(http.StatusOK, http.MethodGet, path+"?data_version="+first, nil)
	assert.Equal(t, map[string]any{"physical": "10", "reserved": "3", "available": "7"}, old["stock"], "what was recorded on that version")
	assert.Equal(t, first, old["data_version"])
	assert.Equal(t, float64(1), old["revision"])
	assert.Equal(t, "4", old["units"].([]any)[1].(map[string]any)["stock_units_per_unit"], "that version's mass converts")
	latest := cl.ok(http.StatusOK, http.MethodGet, path+"?data_version="+now["data_version"].(string), nil)
	assert.Equal(t, map[string]any{"physical": "5.5", "reserved": "0", "available": "5.5"}, latest["stock"])

	untracked := cl.item("PAPER", "kg", "1000", false)
	cl.stock(untracked, "-2", "0")
	paper := cl.ok(http.StatusOK, http.MethodGet, "/catalog-items/"+untracked+"/inventory", nil)
	assert.Equal(t, false, paper["stock_tracked"])
	assert.Equal(t, "-2", paper["stock"].(map[string]any)["physical"], "untracked stock may go below zero")
	assert.Equal(t, []any{map[string]any{"unit": "kg", "stock_units_per_unit": "1"}}, paper["units"], "a kilogram item has one unit")

	other := cl.item("OTHER", "piece", "1", true)
	otherVersion := cl.ok(http.StatusOK, http.MethodGet, "/catalog-items/"+other+"/inventory", nil)["data_version"].(string)
	assertField(t, cl.send(http.MethodGet, path+"?data_version="+otherVersion, nil), "data_version", "field.not_item_data_version")
	assertField(t, cl.send(http.MethodGet, path+"?data_version="+uuid.NewString(), nil), "data_version", "field.not_item_data_version")
	assertField(t, cl.send(http.MethodGet, path+"?data_version=v1", nil), "data_version", "field.uuid")
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodGet, "/catalog-items/"+uuid.NewString()+"/inventory", nil).Code)

	var movements int64
	require.NoError(t, a.DB.Model(&stock.StockMovement{}).Where("catalog_item_id = ?", item).Count(&movements).Error)
	assert.Equal(t, int64(3), movements, "reads write nothing")
}
