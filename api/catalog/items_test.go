package api

import (
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/models"
)

// validItem is a create body that passes every rule.
func validItem(code string) map[string]any {
	return map[string]any{
		"internalCode": code, "name": "Bottle 0.5 l", "sourcingType": "purchased", "massG": "24.5",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "stockTracked": true,
		"foodContactStatus": "food_contact", "reuseType": "single_use",
	}
}

func (a *testAPI) createItem(tn tenant, body map[string]any) *response {
	a.t.Helper()
	return a.do(req{method: http.MethodPost, path: tn.orgPath("/catalog-items"), token: tn.token, body: body,
		headers: map[string]string{"Idempotency-Key": idemKey()}})
}

func (a *testAPI) mustCreateItem(tn tenant, code string) map[string]any {
	a.t.Helper()
	res := a.createItem(tn, validItem(code))
	require.Equal(a.t, http.StatusCreated, res.Code, res.Body.String())
	return res.body
}

func eventTypes(t *testing.T, a *testAPI, orgID uuid.UUID) []string {
	var types []string
	require.NoError(t, a.server.DB.Model(&models.Event{}).Where("organization_id = ?", orgID).Order("id").Pluck("type", &types).Error)
	return types
}

func TestCreateCatalogItem(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	res := a.createItem(tn, validItem("BOT-05"))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	item := res.body
	assert.Equal(t, "24.5", item["massG"], "mass is a decimal string")
	assert.Equal(t, float64(1), item["revision"])
	assert.Equal(t, "active", item["status"])
	assert.Nil(t, item["folder"])
	assert.Equal(t, `"1"`, res.Header().Get("ETag"))
	assert.Contains(t, res.Header().Get("Location"), "/catalog-items/"+item["id"].(string))

	var versions int64
	require.NoError(t, a.server.DB.Model(&models.DataVersion{}).Where("catalog_item_id = ?", item["id"]).Count(&versions).Error)
	assert.Equal(t, int64(1), versions, "the first revision has its data version")
	assert.Equal(t, []string{"catalog_item.created"}, eventTypes(t, a, tn.org))
	assert.Len(t, auditEntries(t, a, tn.org, "createCatalogItem"), 1)

	read := a.do(req{method: http.MethodGet, path: tn.orgPath("/catalog-items/" + item["id"].(string)), token: tn.token})
	require.Equal(t, http.StatusOK, read.Code)
	assert.Equal(t, item["createdAt"], read.body["createdAt"], "the created answer and a later read agree to the microsecond")
}

func TestCatalogItemValidation(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	other := a.newTenant(tenantSpec{})
	a.mustCreateItem(tn, "TAKEN")
	var foreignFolder = uuid.New()
	require.NoError(t, a.server.DB.Exec(`INSERT INTO folders (id, organization_id, name) VALUES (?, ?, 'Theirs')`, foreignFolder, other.org).Error)

	cases := map[string]struct {
		change map[string]any
		field  string
	}{
		"mass as a JSON number":    {map[string]any{"massG": 24.5}, "massG"},
		"mass zero":                {map[string]any{"massG": "0"}, "massG"},
		"mass not a number":        {map[string]any{"massG": "a lot"}, "massG"},
		"unknown material":         {map[string]any{"mainMaterialCode": "UNOBTAINIUM"}, "mainMaterialCode"},
		"pcs instead of piece":     {map[string]any{"stockUnit": "pcs"}, "stockUnit"},
		"unknown unit":             {map[string]any{"stockUnit": "barrel"}, "stockUnit"},
		"unknown sourcing":         {map[string]any{"sourcingType": "stolen"}, "sourcingType"},
		"unknown food contact":     {map[string]any{"foodContactStatus": "maybe"}, "foodContactStatus"},
		"unknown reuse":            {map[string]any{"reuseType": "forever"}, "reuseType"},
		"duplicate code":           {map[string]any{"internalCode": "TAKEN"}, "internalCode"},
		"blank name":               {map[string]any{"name": "  "}, "name"},
		"missing name":             {map[string]any{"name": nil}, "name"},
		"stockTracked not bool":    {map[string]any{"stockTracked": "yes"}, "stockTracked"},
		"folder not a uuid":        {map[string]any{"folder": "f1"}, "folder"},
		"folder of another org":    {map[string]any{"folder": foreignFolder.String()}, "folder"},
		"family that is not there": {map[string]any{"family": uuid.NewString()}, "family"},
	}
	for name, c := range cases {
		body := validItem("CODE-" + name)
		for k, v := range c.change {
			body[k] = v
		}
		res := a.createItem(tn, body)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.fieldErrors(), c.field, name)
	}
	res := a.createItem(tn, map[string]any{"massG": 3})
	fields := res.fieldErrors()
	for _, f := range []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "foodContactStatus", "reuseType"} {
		assert.Contains(t, fields, f, "every bad field is named at once")
	}
	res = a.createItem(tn, mergeMap(validItem("TAKEN"), map[string]any{"massG": "0"}))
	assert.Contains(t, res.fieldErrors(), "internalCode", "a taken code is named with the other bad fields")
	assert.Contains(t, res.fieldErrors(), "massG")
	res = a.createItem(tn, mergeMap(validItem("PCS"), map[string]any{"stockUnit": "pcs"}))
	assert.Contains(t, res.fieldErrors()["stockUnit"].([]any)[0], `"piece"`, "the message names piece")

	var count int64
	require.NoError(t, a.server.DB.Model(&models.CatalogItem{}).Where("organization_id = ?", tn.org).Count(&count).Error)
	assert.Equal(t, int64(1), count, "nothing was written by the failures")
	assert.Equal(t, []string{"catalog_item.created"}, eventTypes(t, a, tn.org))
	assert.Len(t, auditEntries(t, a, tn.org, "createCatalogItem"), 1)
}

// Concurrent duplicates of one create make one item: the others fail on
// its internal code or on the key, roll back, and replay its answer.
func TestConcurrentDuplicateCreatesMakeOneItem(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	key := idemKey()
	results := make([]*response, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = a.do(req{method: http.MethodPost, path: tn.orgPath("/catalog-items"), token: tn.token, body: validItem("TWICE"),
				headers: map[string]string{"Idempotency-Key": key}})
		}()
	}
	wg.Wait()
	for _, r := range results {
		require.Equal(t, http.StatusCreated, r.Code, r.Body.String())
		assert.Equal(t, results[0].Body.String(), r.Body.String())
		assert.Equal(t, results[0].Header().Get("Location"), r.Header().Get("Location"))
	}
	var count int64
	require.NoError(t, a.server.DB.Model(&models.CatalogItem{}).Where("organization_id = ?", tn.org).Count(&count).Error)
	assert.Equal(t, int64(1), count)
	assert.Equal(t, []string{"catalog_item.created"}, eventTypes(t, a, tn.org))
	assert.Len(t, auditEntries(t, a, tn.org, "createCatalogItem"), 1)
}

func mergeMap(base, change map[string]any) map[string]any {
	for k, v := range change {
		base[k] = v
	}
	return base
}

func TestListCatalogItemsFiltersAndPages(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	other := a.newTenant(tenantSpec{})
	a.mustCreateItem(other, "FOREIGN-1")
	folder := uuid.New()
	require.NoError(t, a.server.DB.Exec(`INSERT INTO folders (id, organization_id, name) VALUES (?, ?, 'Bottles')`, folder, tn.org).Error)
	for i := range 5 {
		body := validItem("BOX-" + strconv.Itoa(i))
		if i < 2 {
			body["folder"] = folder.String()
			body["name"] = "Shipping carton"
		}
		require.Equal(t, http.StatusCreated, a.createItem(tn, body).Code)
	}
	archived := a.mustCreateItem(tn, "OLD-1")
	res := a.do(req{method: http.MethodPost, path: tn.orgPath("/catalog-items/" + archived["id"].(string) + "/archive"), token: tn.token,
		headers: map[string]string{"Idempotency-Key": idemKey()}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())

	list := func(query string) []any {
		res := a.do(req{method: http.MethodGet, path: tn.orgPath("/catalog-items" + query), token: tn.token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		return res.body["data"].([]any)
	}
	assert.Len(t, list(""), 6)
	assert.Len(t, list("?archived=true"), 1)
	assert.Len(t, list("?archived=false"), 5)
	assert.Len(t, list("?folder="+folder.String()), 2)
	assert.Len(t, list("?q=carton"), 2, "q searches names")
	assert.Len(t, list("?q=box-4"), 1, "and codes, case-insensitively")
	assert.Len(t, list("?q=%25"), 0, "wildcards are literal")

	var ids []string
	next := tn.orgPath("/catalog-items?per_page=4")
	for next != "" {
		res := a.do(req{method: http.MethodGet, path: next, token: tn.token})
		require.Equal(t, http.StatusOK, res.Code)
		for _, it := range res.body["data"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next = ""
		if link, ok := res.body["links"].(map[string]any)["next"].(string); ok {
			next = link[len(testBase):]
		}
	}
	assert.Len(t, ids, 6, "two pages cover every item once")

	res = a.do(req{method: http.MethodGet, path: tn.orgPath("/catalog-items?archived=maybe&folder=x"), token: tn.token})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.fieldErrors(), "archived")
	assert.Contains(t, res.fieldErrors(), "folder")
}

func TestPatchCatalogItemWithETag(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	item := a.mustCreateItem(tn, "PATCH-1")
	path := tn.orgPath("/catalog-items/" + item["id"].(string))
	patch := func(ifMatch string, body any) *response {
		headers := map[string]string{}
		if ifMatch != "" {
			headers["If-Match"] = ifMatch
		}
		return a.do(req{method: http.MethodPatch, path: path, token: tn.token, body: body, headers: headers})
	}

	res := patch("", map[string]any{"name": "No precondition"})
	assert.Equal(t, http.StatusPreconditionRequired, res.Code)
	assert.Equal(t, CodePreconditionRequired, res.errorCode())

	res = patch(`"1"`, map[string]any{"name": "Renamed", "massG": "25"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "Renamed", res.body["name"])
	assert.Equal(t, "25", res.body["massG"])
	assert.Equal(t, "PATCH-1", res.body["internalCode"], "fields not sent are kept")
	assert.Equal(t, float64(2), res.body["revision"])
	assert.Equal(t, `"2"`, res.Header().Get("ETag"))

	res = patch(`"1"`, map[string]any{"name": "Stale"})
	assert.Equal(t, http.StatusConflict, res.Code)
	assert.Equal(t, CodeRevisionConflict, res.errorCode())

	res = patch(`"2"`, map[string]any{"massG": 1})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)

	got := a.do(req{method: http.MethodGet, path: path, token: tn.token})
	assert.Equal(t, "Renamed", got.body["name"])
	assert.Equal(t, `"2"`, got.Header().Get("ETag"))
	assert.Equal(t, []string{"catalog_item.created", "catalog_item.updated"}, eventTypes(t, a, tn.org))

	other := a.newTenant(tenantSpec{})
	res = a.do(req{method: http.MethodPatch, path: other.orgPath("/catalog-items/" + item["id"].(string)), token: other.token,
		body: map[string]any{"name": "Hijack"}, headers: map[string]string{"If-Match": `"2"`}})
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's item does not exist")
	res = a.do(req{method: http.MethodGet, path: other.orgPath("/catalog-items/" + item["id"].(string)), token: other.token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}

func TestArchiveAndRestore(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	item := a.mustCreateItem(tn, "ARCH-1")
	base := tn.orgPath("/catalog-items/" + item["id"].(string))
	post := func(suffix string, body any) *response {
		return a.do(req{method: http.MethodPost, path: base + suffix, token: tn.token, body: body, headers: map[string]string{"Idempotency-Key": idemKey()}})
	}

	res := post("/archive", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "archived", res.body["status"])
	assert.NotNil(t, res.body["archivedAt"])
	revision := res.body["revision"].(float64)

	got := a.do(req{method: http.MethodGet, path: base, token: tn.token})
	assert.Equal(t, http.StatusOK, got.Code, "archived items stay readable")

	res = post("/components", map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, CodeItemArchived, res.errorCode(), "archived items are refused for new work")
	res = a.do(req{method: http.MethodPatch, path: base, token: tn.token, body: map[string]any{"name": "x"}, headers: map[string]string{"If-Match": etag(int(revision))}})
	assert.Equal(t, CodeItemArchived, res.errorCode())

	res = post("/restore", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "restore needs the revision")
	assert.Contains(t, res.fieldErrors(), "revision")
	res = post("/restore", map[string]any{"revision": revision - 1})
	assert.Equal(t, http.StatusConflict, res.Code)
	res = post("/restore", map[string]any{"revision": revision})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Equal(t, "active", res.body["status"])
	assert.Nil(t, res.body["archivedAt"])
	assert.Equal(t, []string{"catalog_item.created", "catalog_item.archived", "catalog_item.restored"}, eventTypes(t, a, tn.org))
}

func TestComponentsChangeTheItemRevision(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	item := a.mustCreateItem(tn, "COMP-1")
	base := tn.orgPath("/catalog-items/" + item["id"].(string))
	add := func(body map[string]any) *response {
		return a.do(req{method: http.MethodPost, path: base + "/components", token: tn.token, body: body, headers: map[string]string{"Idempotency-Key": idemKey()}})
	}

	res := add(map[string]any{"name": "Cap", "role": "lid-ish", "materialCode": "NOPE", "massG": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"role", "materialCode", "massG"} {
		assert.Contains(t, res.fieldErrors(), f)
	}
	res = add(map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2.1", "revision": 5})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale item revision is refused")

	res = add(map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2.1", "revision": 1})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	comp := res.body
	assert.Equal(t, item["id"], comp["catalogItem"])

	got := a.do(req{method: http.MethodGet, path: base, token: tn.token})
	assert.Equal(t, float64(2), got.body["revision"], "a component is a new item revision")
	assert.Equal(t, true, got.body["assessmentsStale"])

	one := a.do(req{method: http.MethodGet, path: base + "/components/" + comp["id"].(string), token: tn.token})
	assert.Equal(t, http.StatusOK, one.Code)
	assert.Equal(t, "2.1", one.body["massG"])
	listed := a.do(req{method: http.MethodGet, path: base + "/components", token: tn.token})
	assert.Len(t, listed.body["data"], 1)
	missing := a.do(req{method: http.MethodGet, path: base + "/components/" + uuid.NewString(), token: tn.token})
	assert.Equal(t, http.StatusNotFound, missing.Code)

	versions := a.do(req{method: http.MethodGet, path: base + "/data-versions", token: tn.token})
	data := versions.body["data"].([]any)
	require.Len(t, data, 2, "one data version per revision")
	first, second := data[0].(map[string]any), data[1].(map[string]any)
	assert.Equal(t, float64(1), first["revision"])
	assert.Empty(t, first["components"], "history is immutable")
	assert.Len(t, second["components"], 1)
	assert.Regexp(t, "^[0-9a-f]{64}$", second["hash"])
	assert.NotEqual(t, first["hash"], second["hash"])
	assert.Equal(t, "COMP-1", second["specifications"].(map[string]any)["internalCode"])

	one = a.do(req{method: http.MethodGet, path: base + "/data-versions/" + second["id"].(string), token: tn.token})
	assert.Equal(t, second["hash"], one.body["hash"])
	other := a.newTenant(tenantSpec{})
	res = a.do(req{method: http.MethodGet, path: other.orgPath("/catalog-items/" + item["id"].(string) + "/data-versions/" + second["id"].(string)), token: other.token})
	assert.Equal(t, http.StatusNotFound, res.Code)
	assert.Contains(t, eventTypes(t, a, tn.org), "component.created")
}

func TestReplaceMarkets(t *testing.T) {
	a := newTestAPI(t)
	tn := a.newTenant(tenantSpec{})
	item := a.mustCreateItem(tn, "MKT-1")
	base := tn.orgPath("/catalog-items/" + item["id"].(string) + "/markets")
	put := func(body map[string]any) *response {
		return a.do(req{method: http.MethodPut, path: base, token: tn.token, body: body, headers: map[string]string{"Idempotency-Key": idemKey()}})
	}
	scenarios := func(res *response) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, m := range res.body["markets"].([]any) {
			out[m.(map[string]any)["country"].(string)] = m.(map[string]any)
		}
		return out
	}

	res := put(map[string]any{"market_revision": 1, "markets": []string{"PL", "XX"}, "market_details": map[string]any{
		"DE": map[string]any{"economic_role": "importer"}, "PL": map[string]any{"economic_role": "wizard", "assessment_date": "soon"}}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"markets", "market_details.DE", "market_details.PL.economic_role", "market_details.PL.assessment_date"} {
		assert.Contains(t, res.fieldErrors(), f)
	}

	res = put(map[string]any{"market_revision": 1, "markets": []string{"PL", "DE"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "importer", "assessment_date": "2026-11-01"}}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, float64(2), res.body["market_revision"])
	first := scenarios(res)
	require.Len(t, first, 2)
	assert.Equal(t, "importer", first["PL"]["economic_role"])
	assert.Equal(t, "2026-11-01", first["PL"]["assessment_date"])

	res = put(map[string]any{"market_revision": 1, "markets": []string{"PL"}})
	assert.Equal(t, http.StatusConflict, res.Code, "the item's revision moved on")

	res = put(map[string]any{"market_revision": 2, "markets": []string{"PL", "CZ"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "importer", "assessment_date": "2026-11-01"}}})
	require.Equal(t, http.StatusOK, res.Code)
	second := scenarios(res)
	assert.Equal(t, first["PL"]["id"], second["PL"]["id"], "an unchanged country keeps its scenario")
	assert.NotContains(t, second, "DE", "an omitted country loses its scenario")
	assert.Contains(t, second, "CZ")

	old := a.do(req{method: http.MethodGet, path: base + "/" + first["DE"]["id"].(string), token: tn.token})
	assert.Equal(t, false, old.body["active"], "a replaced scenario stays readable")
	assert.NotNil(t, old.body["deactivated_at"])

	res = put(map[string]any{"market_revision": 3, "markets": []string{"PL", "CZ"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "distributor"}}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.NotEqual(t, first["PL"]["id"], scenarios(res)["PL"]["id"], "a changed detail is a new scenario")

	unchanged := put(map[string]any{"market_revision": 4, "markets": []string{"CZ", "PL"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "distributor"}}})
	assert.Equal(t, float64(4), unchanged.body["market_revision"], "no change, no new revision")

	res = put(map[string]any{"market_revision": 4, "markets": []string{}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Empty(t, res.body["markets"], "an empty list removes all")
	listed := a.do(req{method: http.MethodGet, path: base, token: tn.token})
	assert.Empty(t, listed.body["data"])
	assert.Contains(t, eventTypes(t, a, tn.org), "markets.changed")

	versions := a.do(req{method: http.MethodGet, path: tn.orgPath("/catalog-items/" + item["id"].(string) + "/data-versions?per_page=100"), token: tn.token})
	assert.Len(t, versions.body["data"], 5, "every market change is a data version")
}
