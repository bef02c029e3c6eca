package packing_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/packing"
	"ppwr/internal/i18n"
)

// client sends one tenant's requests.
type client struct {
	t  *testing.T
	a  *apitest.API
	tn apitest.Tenant
}

func newClient(t *testing.T, a *apitest.API) *client {
	return &client{t: t, a: a, tn: a.NewTenant(apitest.TenantSpec{})}
}

func (cl *client) send(method, path string, body any, headers ...string) *apitest.Response {
	cl.t.Helper()
	h := map[string]string{}
	if method != http.MethodGet {
		h["Idempotency-Key"] = apitest.IdemKey()
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return cl.a.Do(apitest.Req{Method: method, Path: cl.tn.Path(path), Token: cl.tn.Token, Body: body, Headers: h})
}

// ok sends a request that must answer status, and returns its body.
func (cl *client) ok(status int, method, path string, body any) map[string]any {
	cl.t.Helper()
	res := cl.send(method, path, body)
	require.Equal(cl.t, status, res.Code, "%s %s: %s", method, path, res.Body.String())
	return res.JSON
}

// item creates a catalogue item of the stock unit and mass per unit.
func (cl *client) item(code, unit, massG string, tracked bool) string {
	cl.t.Helper()
	return cl.ok(http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{
		"internalCode": code, "name": code, "sourcingType": "purchased", "massG": massG, "mainMaterialCode": "PAPER",
		"stockUnit": unit, "stockTracked": tracked, "foodContactStatus": "not_food_contact", "reuseType": "single_use",
	})["id"].(string)
}

// system creates a set and returns its id.
func (cl *client) system(name string) string {
	cl.t.Helper()
	return cl.ok(http.StatusCreated, http.MethodPost, "/packaging-systems", map[string]any{"name": name})["id"].(string)
}

func (cl *client) revision(system string) int {
	cl.t.Helper()
	return int(cl.ok(http.StatusOK, http.MethodGet, "/packaging-systems/"+system, nil)["revision"].(float64))
}

// line adds a line at the set's current revision and returns its id.
func (cl *client) line(system string, body map[string]any) string {
	cl.t.Helper()
	body["revision"] = cl.revision(system)
	return cl.ok(http.StatusCreated, http.MethodPost, "/packaging-systems/"+system+"/items", body)["line"].(string)
}

// stock moves an item's physical and reserved stock.
func (cl *client) stock(item string, physical, reserved string) {
	cl.t.Helper()
	seedStock(cl.t, cl.a, cl.tn.Org, uuid.MustParse(item), decimal.RequireFromString(physical), decimal.RequireFromString(reserved))
}

// assertField checks that a 422 names field with the message of key.
func assertField(t *testing.T, res *apitest.Response, field, key string, args ...any) {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	msgs, _ := res.FieldErrors()[field].([]any)
	assert.Contains(t, msgs, i18n.T(i18n.EN, key, args...), "field %s: %s", field, res.Body.String())
}

func count(t *testing.T, a *apitest.API, table string, org uuid.UUID) int64 {
	var n int64
	require.NoError(t, a.DB.Table(table).Where("organization_id = ?", org).Count(&n).Error)
	return n
}

func TestPackagingSystemLifecycle(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	res := cl.send(http.MethodPost, "/packaging-systems", map[string]any{"name": " Parcel S ", "code": "PS", "description": "Small parcel"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	sys := res.JSON
	id := sys["id"].(string)
	assert.Equal(t, "Parcel S", sys["name"])
	assert.Equal(t, "PS", sys["code"])
	assert.Equal(t, "Small parcel", sys["description"])
	assert.Equal(t, "active", sys["status"])
	assert.Equal(t, float64(1), sys["revision"])
	assert.Equal(t, float64(0), sys["lines_count"])
	assert.Nil(t, sys["archived_at"])
	assert.True(t, strings.HasSuffix(res.Header().Get("Location"), "/packaging-systems/"+id))
	read := cl.ok(http.StatusOK, http.MethodGet, "/packaging-systems/"+id, nil)
	assert.Equal(t, sys, read, "the created answer and a later read agree")

	bare := cl.ok(http.StatusCreated, http.MethodPost, "/packaging-systems", map[string]any{"name": "Bare", "code": " "})
	assert.Nil(t, bare["code"], "a blank code is none")
	assert.Nil(t, bare["description"])

	updated := cl.ok(http.StatusOK, http.MethodPut, "/packaging-systems/"+id, map[string]any{"revision": 1, "name": "Parcel small"})
	assert.Equal(t, "Parcel small", updated["name"])
	assert.Equal(t, "PS", updated["code"], "omitted fields are kept")
	assert.Equal(t, "Small parcel", updated["description"])
	assert.Equal(t, float64(2), updated["revision"])
	res = cl.send(http.MethodPut, "/packaging-systems/"+id, map[string]any{"revision": 1, "name": "Late"})
	assert.Equal(t, http.StatusConflict, res.Code)
	assert.Equal(t, "revision_conflict", res.ErrorCode())
	cleared := cl.ok(http.StatusOK, http.MethodPut, "/packaging-systems/"+id, map[string]any{"revision": 2, "code": nil, "description": ""})
	assert.Nil(t, cleared["code"])
	assert.Nil(t, cleared["description"])
	assert.Equal(t, "Parcel small", cleared["name"])

	res = cl.send(http.MethodPost, "/packaging-systems/"+id+"/archive", map[string]any{"revision": 1})
	assert.Equal(t, http.StatusConflict, res.Code, "a sent revision must be current")
	archived := cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+id+"/archive", nil)
	assert.Equal(t, "archived", archived["status"])
	assert.NotNil(t, archived["archived_at"])
	assert.Equal(t, float64(4), archived["revision"])
	again := cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+id+"/archive", nil)
	assert.Equal(t, float64(4), again["revision"], "archiving an archived set changes nothing")

	res = cl.send(http.MethodPut, "/packaging-systems/"+id, map[string]any{"revision": 4, "name": "No"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "packaging_system_archived", res.ErrorCode())

	list := func(query string) []any {
		return cl.ok(http.StatusOK, http.MethodGet, "/packaging-systems"+query, nil)["data"].([]any)
	}
	assert.Len(t, list(""), 2)
	assert.Len(t, list("?archived=true"), 1)
	assert.Equal(t, bare["id"], list("?archived=false")[0].(map[string]any)["id"])
	res = cl.send(http.MethodGet, "/packaging-systems?archived=maybe", nil)
	assertField(t, res, "archived", "field.boolean")

	assertField(t, cl.send(http.MethodPost, "/packaging-systems/"+id+"/restore", map[string]any{}), "revision", "field.required")
	assert.Equal(t, http.StatusConflict, cl.send(http.MethodPost, "/packaging-systems/"+id+"/restore", map[string]any{"revision": 3}).Code)
	restored := cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+id+"/restore", map[string]any{"revision": 4})
	assert.Equal(t, "active", restored["status"])
	assert.Nil(t, restored["archived_at"])
	assert.Equal(t, float64(5), restored["revision"])

	assert.Equal(t, []string{"packaging_system.created", "packaging_system.created", "packaging_system.updated", "packaging_system.updated",
		"packaging_system.archived", "packaging_system.restored"}, a.EventTypes(cl.tn.Org))
	assert.Len(t, a.AuditEntries(cl.tn.Org, "createPackagingSystem"), 2)
	assert.Len(t, a.AuditEntries(cl.tn.Org, "updatePackagingSystem"), 2)
	assert.Len(t, a.AuditEntries(cl.tn.Org, "restorePackagingSystem"), 1)
}

func TestPackagingSystemCreateIsIdempotent(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	key := apitest.IdemKey()
	send := func(name string) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: cl.tn.Path("/packaging-systems"), Token: cl.tn.Token,
			Body: map[string]any{"name": name}, Headers: map[string]string{"Idempotency-Key": key}})
	}
	first, replay := send("Once"), send("Once")
	require.Equal(t, http.StatusCreated, replay.Code)
	assert.Equal(t, first.Body.String(), replay.Body.String())
	assert.Equal(t, "true", replay.Header().Get("Idempotent-Replayed"))
	assert.Equal(t, http.StatusConflict, send("Other").Code, "the same key with another body")
	assert.Equal(t, int64(1), count(t, a, "packaging_systems", cl.tn.Org))
}

func TestPackagingSystemValidation(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	taken := cl.ok(http.StatusCreated, http.MethodPost, "/packaging-systems", map[string]any{"name": "A", "code": "TAKEN"})["id"].(string)
	free := cl.system("B")
	long := strings.Repeat("x", packing.PackagingSystemCodeMax+1)
	cases := map[string]struct {
		body  map[string]any
		field string
		key   string
		args  []any
	}{
		"no name":          {map[string]any{}, "name", "field.required", nil},
		"blank name":       {map[string]any{"name": "  "}, "name", "field.required", nil},
		"null name":        {map[string]any{"name": nil}, "name", "field.required", nil},
		"name a number":    {map[string]any{"name": 7}, "name", "field.string", nil},
		"code taken":       {map[string]any{"name": "C", "code": "TAKEN"}, "code", "field.taken", nil},
		"code too long":    {map[string]any{"name": "C", "code": long}, "code", "field.too_long", []any{packing.PackagingSystemCodeMax}},
		"description bool": {map[string]any{"name": "C", "description": true}, "description", "field.string", nil},
	}
	for name, c := range cases {
		res := cl.send(http.MethodPost, "/packaging-systems", c.body)
		t.Run(name, func(t *testing.T) { assertField(t, res, c.field, c.key, c.args...) })
	}
	res := cl.send(http.MethodPost, "/packaging-systems", map[string]any{"name": "", "code": "TAKEN", "description": 1})
	assert.Len(t, res.FieldErrors(), 3, "every bad field at once: %s", res.Body.String())
	assert.Equal(t, "invalid_json", cl.send(http.MethodPost, "/packaging-systems", "[]").ErrorCode())

	assertField(t, cl.send(http.MethodPut, "/packaging-systems/"+free, map[string]any{"revision": 1, "code": "TAKEN"}), "code", "field.taken")
	assertField(t, cl.send(http.MethodPut, "/packaging-systems/"+free, map[string]any{"revision": 1}), "name", "field.one_required", "name, code, description")
	assertField(t, cl.send(http.MethodPut, "/packaging-systems/"+free, map[string]any{"name": "N"}), "revision", "field.required")
	assertField(t, cl.send(http.MethodPut, "/packaging-systems/"+free, map[string]any{"revision": 99999999999, "name": "N"}), "revision", "field.integer_range", 1, 2147483647)
	assertField(t, cl.send(http.MethodPut, "/packaging-systems/"+free, map[string]any{"revision": 1, "name": " "}), "name", "field.blank")
	kept := cl.ok(http.StatusOK, http.MethodPut, "/packaging-systems/"+taken, map[string]any{"revision": 1, "code": "TAKEN"})
	assert.Equal(t, "TAKEN", kept["code"], "a set keeps its own code")

	assert.Equal(t, int64(2), count(t, a, "packaging_systems", cl.tn.Org), "nothing was written by the failures")
	assert.Equal(t, float64(1), cl.ok(http.StatusOK, http.MethodGet, "/packaging-systems/"+free, nil)["revision"])
}

// Another organization's sets, lines and items are not found.
func TestPackagingSystemsOfAnotherOrganization(t *testing.T) {
	a := apitest.New(t)
	mine, theirs := newClient(t, a), newClient(t, a)
	sys := theirs.system("Theirs")
	item := theirs.item("THEIR-BOX", "piece", "100", true)
	line := theirs.line(sys, map[string]any{"item": item, "quantity": "1", "unit": "piece", "role": "container", "outer_packaging": true})
	base := "/packaging-systems/" + sys
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, base, nil},
		{http.MethodPut, base, map[string]any{"revision": 2, "name": "Mine"}},
		{http.MethodPost, base + "/archive", nil},
		{http.MethodPost, base + "/restore", map[string]any{"revision": 2}},
		{http.MethodGet, base + "/configuration", nil},
		{http.MethodGet, base + "/items", nil},
		{http.MethodPost, base + "/items", map[string]any{"revision": 2, "line": line, "quantity": "2"}},
		{http.MethodDelete, base + "/items/" + line, map[string]any{"revision": 2}},
		{http.MethodGet, base + "/items/" + line, nil},
		{http.MethodGet, "/catalog-items/" + item + "/inventory", nil},
	} {
		res := mine.send(r.method, r.path, r.body)
		assert.Equal(t, http.StatusNotFound, res.Code, "%s %s", r.method, r.path)
		assert.Equal(t, "not_found", res.ErrorCode())
	}
	own := mine.system("Mine")
	res := mine.send(http.MethodPost, "/packaging-systems/"+own+"/items",
		map[string]any{"revision": 1, "item": item, "quantity": "1", "unit": "piece", "role": "container"})
	assertField(t, res, "item", "field.not_found")
	res = mine.send(http.MethodPost, "/packaging-systems/"+own+"/items", map[string]any{"revision": 1, "line": line, "quantity": "2"})
	assertField(t, res, "line", "field.not_found")
	assert.Equal(t, 2, theirs.revision(sys), "their set is unchanged")
	assert.Empty(t, mine.ok(http.StatusOK, http.MethodGet, "/packaging-systems", nil)["data"].([]any)[1:], "only my own set is listed")
}

func TestRecipeLines(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	sys := cl.system("Parcel")
	other := cl.system("Other")
	box := cl.item("BOX", "piece", "120", true)
	tape := cl.item("TAPE", "m", "2.5", true)
	paper := cl.item("PAPER", "kg", "1000", false)
	path := "/packaging-systems/" + sys + "/items"

	res := cl.send(http.MethodPost, path, map[string]any{"revision": 1, "item": box, "quantity": "1", "unit": "piece", "role": "container", "outer_packaging": true})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	added := res.JSON
	boxLine := added["line"].(string)
	assert.Equal(t, sys, added["packaging_system"])
	assert.Equal(t, box, added["item"])
	assert.Equal(t, "1", added["quantity"])
	assert.Equal(t, true, added["outer_packaging"])
	assert.Equal(t, float64(2), added["revision"], "the set's new revision")

	res = cl.send(http.MethodPost, path, map[string]any{"revision": 2, "item": tape, "quantity": "0.35", "unit": "m", "role": "closure"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	tapeLine := res.JSON["line"].(string)
	assert.Equal(t, false, res.JSON["outer_packaging"], "outer_packaging defaults to false")
	res = cl.send(http.MethodPost, path, map[string]any{"revision": 3, "item": paper, "quantity": "0.02", "unit": "kg", "role": "filler"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())

	res = cl.send(http.MethodPost, path, map[string]any{"revision": 4, "line": tapeLine, "quantity": "0.5"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "0.5", res.JSON["quantity"])
	assert.Equal(t, "m", res.JSON["unit"], "omitted fields are kept")
	assert.Equal(t, "closure", res.JSON["role"])
	assert.Equal(t, tapeLine, res.JSON["line"])
	assert.Equal(t, float64(5), res.JSON["revision"])
	res = cl.send(http.MethodPost, path, map[string]any{"revision": 5, "line": tapeLine, "unit": "kg"})
	require.Equal(t, http.StatusOK, res.Code, "a metre item converts from kilograms through its mass: %s", res.Body.String())

	res = cl.send(http.MethodPost, path, map[string]any{"revision": 5, "line": tapeLine, "quantity": "1"})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale revision")
	assert.Equal(t, "revision_conflict", res.ErrorCode())

	archivedItem := cl.item("OLD", "piece", "1", true)
	cl.ok(http.StatusOK, http.MethodPost, "/catalog-items/"+archivedItem+"/archive", nil)
	otherLine := cl.line(other, map[string]any{"item": box, "quantity": "1", "unit": "piece", "role": "container"})
	assert.Equal(t, "0.5", cl.ok(http.StatusOK, http.MethodGet, path+"/"+tapeLine, nil)["quantity"], "a line reads as last changed")
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodGet, path+"/"+otherLine, nil).Code, "a line of another set")
	cases := map[string]struct {
		body  map[string]any
		field string
		key   string
		args  []any
	}{
		"item twice":                {map[string]any{"item": box, "quantity": "1", "unit": "piece", "role": "container"}, "item", "field.item_in_set", nil},
		"item moved onto another's": {map[string]any{"line": tapeLine, "item": box}, "item", "field.item_in_set", nil},
		"archived item":             {map[string]any{"item": archivedItem, "quantity": "1", "unit": "piece", "role": "label"}, "item", "field.archived", nil},
		"unknown item":              {map[string]any{"item": uuid.NewString(), "quantity": "1", "unit": "piece", "role": "label"}, "item", "field.not_found", nil},
		"item not a uuid":           {map[string]any{"item": "box", "quantity": "1", "unit": "piece", "role": "label"}, "item", "field.uuid", nil},
		"unit not convertible": {map[string]any{"item": cl.item("LABEL", "piece", "1", true), "quantity": "1", "unit": "m", "role": "label"},
			"unit", "field.unit_not_convertible", []any{"piece, kg"}},
		"unit changed to one the item cannot": {map[string]any{"line": boxLine, "unit": "m2"}, "unit", "field.unit_not_convertible", []any{"piece, kg"}},
		"pcs":                                 {map[string]any{"line": boxLine, "unit": "pcs"}, "unit", "field.stock_unit_pcs", nil},
		"zero quantity":                       {map[string]any{"line": boxLine, "quantity": "0"}, "quantity", "field.positive", nil},
		"quantity a number":                   {map[string]any{"line": boxLine, "quantity": 2}, "quantity", "field.decimal_string", nil},
		"huge quantity":                       {map[string]any{"line": boxLine, "quantity": "1" + strings.Repeat("0", 20)}, "quantity", "field.decimal_string", nil},
		"unknown role":                        {map[string]any{"line": boxLine, "role": "decoration"}, "role", "field.one_of", []any{strings.Join(packing.LineRoles, ", ")}},
		"outer not a bool":                    {map[string]any{"line": boxLine, "outer_packaging": "yes"}, "outer_packaging", "field.boolean", nil},
		"line of another set":                 {map[string]any{"line": otherLine, "quantity": "2"}, "line", "field.not_found", nil},
		"line not a uuid":                     {map[string]any{"line": "1", "quantity": "2"}, "line", "field.uuid", nil},
		"no revision":                         {map[string]any{"line": boxLine, "quantity": "2", "revision": nil}, "revision", "field.required", nil},
	}
	for name, c := range cases {
		body := map[string]any{"revision": 6}
		for k, v := range c.body {
			body[k] = v
		}
		if v, ok := c.body["revision"]; ok && v == nil {
			delete(body, "revision")
		}
		res := cl.send(http.MethodPost, path, body)
		t.Run(name, func(t *testing.T) { assertField(t, res, c.field, c.key, c.args...) })
	}
	res = cl.send(http.MethodPost, path, map[string]any{"revision": 6})
	for _, f := range []string{"item", "quantity", "unit", "role"} {
		assertField(t, res, f, "field.required")
	}
	assert.Equal(t, 6, cl.revision(sys), "no failure changed the set")

	lines := cl.ok(http.StatusOK, http.MethodGet, path, nil)["data"].([]any)
	require.Len(t, lines, 3)
	assert.Equal(t, boxLine, lines[0].(map[string]any)["line"], "lines in the order they were added")
	assert.Equal(t, "kg", lines[1].(map[string]any)["unit"])
	assert.Equal(t, float64(3), cl.ok(http.StatusOK, http.MethodGet, "/packaging-systems/"+sys, nil)["lines_count"])
	page := cl.ok(http.StatusOK, http.MethodGet, path+"?per_page=2", nil)
	assert.Len(t, page["data"], 2)
	assert.NotNil(t, page["links"].(map[string]any)["next"])

	del := "/packaging-systems/" + sys + "/items/" + tapeLine
	assert.Equal(t, http.StatusConflict, cl.send(http.MethodDelete, del, map[string]any{"revision": 5}).Code)
	assertField(t, cl.send(http.MethodDelete, del, map[string]any{}), "revision", "field.required")
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodDelete, "/packaging-systems/"+sys+"/items/"+otherLine, map[string]any{"revision": 6}).Code,
		"a line of another set")
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodDelete, "/packaging-systems/"+sys+"/items/nope", map[string]any{"revision": 6}).Code)
	deleted := cl.ok(http.StatusOK, http.MethodDelete, del, map[string]any{"revision": 6})
	assert.Equal(t, map[string]any{"packaging_system": sys, "revision": float64(7)}, deleted)
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodDelete, del, map[string]any{"revision": 7}).Code, "deleted once")
	assert.Len(t, cl.ok(http.StatusOK, http.MethodGet, path, nil)["data"], 2)

	cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+sys+"/archive", nil)
	for _, res := range []*apitest.Response{
		cl.send(http.MethodPost, path, map[string]any{"revision": 8, "line": boxLine, "quantity": "2"}),
		cl.send(http.MethodPost, path, map[string]any{"revision": 8, "item": tape, "quantity": "1", "unit": "m", "role": "closure"}),
		cl.send(http.MethodDelete, "/packaging-systems/"+sys+"/items/"+boxLine, map[string]any{"revision": 8}),
	} {
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
		assert.Equal(t, "packaging_system_archived", res.ErrorCode())
	}
	assert.Len(t, cl.ok(http.StatusOK, http.MethodGet, path, nil)["data"], 2, "an archived set's recipe is still read")

	events := a.EventTypes(cl.tn.Org)
	updates := 0
	for _, e := range events {
		if e == "packaging_system.updated" {
			updates++
		}
	}
	assert.Equal(t, 7, updates, "every recipe change is an update: 5 on the set, 1 on the other, 1 delete")
	assert.Len(t, a.AuditEntries(cl.tn.Org, "upsertPackagingSystemLine"), 6)
	assert.Len(t, a.AuditEntries(cl.tn.Org, "deletePackagingSystemLine"), 1)
}

func TestConfiguration(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	sys := cl.system("Parcel")
	cfgPath := "/packaging-systems/" + sys + "/configuration"
	config := func() map[string]any { return cl.ok(http.StatusOK, http.MethodGet, cfgPath, nil) }

	empty := config()
	assert.Equal(t, false, empty["ready"])
	assert.Equal(t, []any{"no_lines"}, empty["incomplete"])
	assert.Equal(t, []any{}, empty["composition"])
	assert.Nil(t, empty["available_sets"], "no lines make no sets")
	assert.Equal(t, float64(1), empty["revision"])

	box := cl.item("BOX", "piece", "120", true)
	filler := cl.item("FILL", "piece", "4", true)
	fillerLine := cl.line(sys, map[string]any{"item": filler, "quantity": "0.008", "unit": "kg", "role": "filler"})
	noOuter := config()
	assert.Equal(t, []any{"no_outer_packaging"}, noOuter["incomplete"])
	assert.Equal(t, false, noOuter["ready"])
	cl.line(sys, map[string]any{"item": box, "quantity": "1", "unit": "piece", "role": "container", "outer_packaging": true})

	cfg := config()
	assert.Equal(t, true, cfg["ready"], "%v", cfg)
	assert.Equal(t, []any{}, cfg["incomplete"])
	assert.Equal(t, true, cfg["all_stock_tracked"])
	assert.Equal(t, float64(3), cfg["revision"])
	hash := cfg["configuration_hash"].(string)
	assert.Regexp(t, "^[0-9a-f]{64}$", hash)
	comp := map[string]map[string]any{}
	for _, l := range cfg["composition"].([]any) {
		comp[l.(map[string]any)["item"].(string)] = l.(map[string]any)
	}
	assert.Equal(t, "2", comp[filler]["stock_quantity"], "8 g of a 4 g piece is 2 pieces")
	assert.Equal(t, "piece", comp[filler]["stock_unit"])
	assert.Equal(t, "8", comp[filler]["mass_g"])
	assert.Equal(t, "120", comp[box]["mass_g"])
	assert.Equal(t, float64(1), comp[box]["item_revision"])
	assert.Equal(t, float64(0), cfg["available_sets"], "no stock yet")

	cl.stock(box, "10", "0")
	cl.stock(filler, "9", "0")
	assert.Equal(t, float64(4), config()["available_sets"], "9 fillers make 4 sets of 2")
	cl.stock(box, "0", "7")
	assert.Equal(t, float64(3), config()["available_sets"], "reserved stock is not available")

	cl.ok(http.StatusOK, http.MethodPut, "/packaging-systems/"+sys, map[string]any{"revision": 3, "name": "Renamed"})
	again := config()
	assert.Equal(t, hash, again["configuration_hash"], "the hash is the recipe's, not the set's revision")
	assert.Equal(t, float64(4), again["revision"])

	cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+sys+"/items", map[string]any{"revision": 4, "line": fillerLine, "quantity": "0.012"})
	changed := config()["configuration_hash"].(string)
	assert.NotEqual(t, hash, changed, "a line's change changes the hash")
	cl.ok(http.StatusOK, http.MethodPost, "/packaging-systems/"+sys+"/items", map[string]any{"revision": 5, "line": fillerLine, "quantity": "0.008"})
	assert.Equal(t, hash, config()["configuration_hash"], "the same recipe hashes alike")

	res := cl.send(http.MethodPatch, "/catalog-items/"+box, map[string]any{"name": "Box v2"}, "If-Match", `"1"`)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	revised := config()
	assert.NotEqual(t, hash, revised["configuration_hash"], "an item's new revision changes the hash")

	paper := cl.item("PAPER", "kg", "1000", false)
	cl.line(sys, map[string]any{"item": paper, "quantity": "0.05", "unit": "kg", "role": "protection"})
	untracked := config()
	assert.Equal(t, false, untracked["all_stock_tracked"])
	assert.Nil(t, untracked["available_sets"], "unknown when an item is not stock-tracked")
	assert.Equal(t, true, untracked["ready"], "readiness is not about stock")

	cl.ok(http.StatusOK, http.MethodPost, "/catalog-items/"+paper+"/archive", nil)
	archived := config()
	assert.Equal(t, false, archived["ready"])
	assert.Equal(t, []any{"item_archived"}, archived["incomplete"])
	assert.Equal(t, http.StatusNotFound, cl.send(http.MethodGet, "/packaging-systems/"+uuid.NewString()+"/configuration", nil).Code)
}

func TestConcurrentLineAddsTakeTurns(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	sys := cl.system("Parcel")
	items := make([]string, 4)
	for i := range items {
		items[i] = cl.item("I"+strconv.Itoa(i), "piece", "1", true)
	}
	results := make(chan int, len(items))
	for _, it := range items {
		go func() {
			res := a.Do(apitest.Req{Method: http.MethodPost, Path: cl.tn.Path("/packaging-systems/" + sys + "/items"), Token: cl.tn.Token,
				Body:    map[string]any{"revision": 1, "item": it, "quantity": "1", "unit": "piece", "role": "other"},
				Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
			results <- res.Code
		}()
	}
	codes := map[int]int{}
	for range items {
		codes[<-results]++
	}
	assert.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusConflict: 3}, codes, "one change per revision")
	assert.Equal(t, 2, cl.revision(sys))
}

// Concurrent creates of one code make one set; the others learn the code
// is taken (from the unique index at commit when they checked too early),
// never a server error.
func TestConcurrentCreatesOfOneCode(t *testing.T) {
	a := apitest.New(t)
	cl := newClient(t, a)
	results := make(chan *apitest.Response, 6)
	for i := range cap(results) {
		go func() {
			results <- a.Do(apitest.Req{Method: http.MethodPost, Path: cl.tn.Path("/packaging-systems"), Token: cl.tn.Token,
				Body:    map[string]any{"name": "Set " + strconv.Itoa(i), "code": "SAME"},
				Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
		}()
	}
	created := 0
	for range cap(results) {
		res := <-results
		if res.Code == http.StatusCreated {
			created++
			continue
		}
		assertField(t, res, "code", "field.taken")
	}
	assert.Equal(t, 1, created)
	assert.Equal(t, int64(1), count(t, a, "packaging_systems", cl.tn.Org))
}
