package catalog_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
)

// validItem is a create body that passes every rule.
func validItem(code string) map[string]any {
	return map[string]any{
		"internalCode": code, "name": "Bottle 0.5 l", "sourcingType": "purchased", "massG": "24.5",
		"mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "stockTracked": true,
		"foodContactStatus": "food_contact", "reuseType": "single_use",
	}
}

func createItem(t *testing.T, a *apitest.API, tn apitest.Tenant, body map[string]any) *apitest.Response {
	t.Helper()
	return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func mustCreateItem(t *testing.T, a *apitest.API, tn apitest.Tenant, code string) map[string]any {
	t.Helper()
	res := createItem(t, a, tn, validItem(code))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

func TestCreateCatalogItem(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	res := createItem(t, a, tn, validItem("BOT-05"))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	item := res.JSON
	assert.Equal(t, "24.5", item["massG"], "mass is a decimal string")
	assert.Equal(t, float64(1), item["revision"])
	assert.Equal(t, "active", item["status"])
	assert.Nil(t, item["folder"])
	assert.Equal(t, `"1"`, res.Header().Get("ETag"))
	assert.Contains(t, res.Header().Get("Location"), "/catalog-items/"+item["id"].(string))

	var versions int64
	require.NoError(t, a.DB.Model(&catalog.DataVersion{}).Where("catalog_item_id = ?", item["id"]).Count(&versions).Error)
	assert.Equal(t, int64(1), versions, "the first revision has its data version")
	assert.Equal(t, []string{"catalog_item.created"}, a.EventTypes(tn.Org))
	assert.Len(t, a.AuditEntries(tn.Org, "createCatalogItem"), 1)

	read := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items/" + item["id"].(string)), Token: tn.Token})
	require.Equal(t, http.StatusOK, read.Code)
	assert.Equal(t, item["createdAt"], read.JSON["createdAt"], "the created answer and a later read agree to the microsecond")
}

func TestCatalogItemValidation(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	mustCreateItem(t, a, tn, "TAKEN")
	var foreignFolder = uuid.New()
	require.NoError(t, a.DB.Exec(`INSERT INTO folders (id, organization_id, name) VALUES (?, ?, 'Theirs')`, foreignFolder, other.Org).Error)

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
		res := createItem(t, a, tn, body)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.FieldErrors(), c.field, name)
	}
	res := createItem(t, a, tn, map[string]any{"massG": 3})
	fields := res.FieldErrors()
	for _, f := range []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "foodContactStatus", "reuseType"} {
		assert.Contains(t, fields, f, "every bad field is named at once")
	}
	res = createItem(t, a, tn, mergeMap(validItem("TAKEN"), map[string]any{"massG": "0"}))
	assert.Contains(t, res.FieldErrors(), "internalCode", "a taken code is named with the other bad fields")
	assert.Contains(t, res.FieldErrors(), "massG")
	res = createItem(t, a, tn, mergeMap(validItem("PCS"), map[string]any{"stockUnit": "pcs"}))
	assert.Contains(t, res.FieldErrors()["stockUnit"].([]any)[0], `"piece"`, "the message names piece")

	var count int64
	require.NoError(t, a.DB.Model(&catalog.CatalogItem{}).Where("organization_id = ?", tn.Org).Count(&count).Error)
	assert.Equal(t, int64(1), count, "nothing was written by the failures")
	assert.Equal(t, []string{"catalog_item.created"}, a.EventTypes(tn.Org))
	assert.Len(t, a.AuditEntries(tn.Org, "createCatalogItem"), 1)
}

// Concurrent duplicates of one create make one item: the others fail on
// its internal code or on the key, roll back, and replay its answer.
func TestConcurrentDuplicateCreatesMakeOneItem(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	key := apitest.IdemKey()
	results := make([]*apitest.Response, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token, Body: validItem("TWICE"),
				Headers: map[string]string{"Idempotency-Key": key}})
		}()
	}
	wg.Wait()
	for _, r := range results {
		require.Equal(t, http.StatusCreated, r.Code, r.Body.String())
		assert.Equal(t, results[0].Body.String(), r.Body.String())
		assert.Equal(t, results[0].Header().Get("Location"), r.Header().Get("Location"))
	}
	var count int64
	require.NoError(t, a.DB.Model(&catalog.CatalogItem{}).Where("organization_id = ?", tn.Org).Count(&count).Error)
	assert.Equal(t, int64(1), count)
	assert.Equal(t, []string{"catalog_item.created"}, a.EventTypes(tn.Org))
	assert.Len(t, a.AuditEntries(tn.Org, "createCatalogItem"), 1)
}

func mergeMap(base, change map[string]any) map[string]any {
	for k, v := range change {
		base[k] = v
	}
	return base
}

func TestListCatalogItemsFiltersAndPages(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	mustCreateItem(t, a, other, "FOREIGN-1")
	folder := uuid.New()
	require.NoError(t, a.DB.Exec(`INSERT INTO folders (id, organization_id, name) VALUES (?, ?, 'Bottles')`, folder, tn.Org).Error)
	for i := range 5 {
		body := validItem("BOX-" + strconv.Itoa(i))
		if i < 2 {
			body["folder"] = folder.String()
			body["name"] = "Shipping carton"
		}
		require.Equal(t, http.StatusCreated, createItem(t, a, tn, body).Code)
	}
	archived := mustCreateItem(t, a, tn, "OLD-1")
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items/" + archived["id"].(string) + "/archive"), Token: tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())

	list := func(query string) []any {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items" + query), Token: tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		return res.JSON["data"].([]any)
	}
	assert.Len(t, list(""), 6)
	assert.Len(t, list("?archived=true"), 1)
	assert.Len(t, list("?archived=false"), 5)
	assert.Len(t, list("?folder="+folder.String()), 2)
	assert.Len(t, list("?q=carton"), 2, "q searches names")
	assert.Len(t, list("?q=box-4"), 1, "and codes, case-insensitively")
	assert.Len(t, list("?q=%25"), 0, "wildcards are literal")

	var ids []string
	next := tn.Path("/catalog-items?per_page=4")
	for next != "" {
		res := a.Do(apitest.Req{Method: http.MethodGet, Path: next, Token: tn.Token})
		require.Equal(t, http.StatusOK, res.Code)
		for _, it := range res.JSON["data"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next = ""
		if link, ok := res.JSON["links"].(map[string]any)["next"].(string); ok {
			next = link[len(apitest.Base):]
		}
	}
	assert.Len(t, ids, 6, "two pages cover every item once")

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items?archived=maybe&folder=x"), Token: tn.Token})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "archived")
	assert.Contains(t, res.FieldErrors(), "folder")
}

func TestPatchCatalogItemWithETag(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := mustCreateItem(t, a, tn, "PATCH-1")
	path := tn.Path("/catalog-items/" + item["id"].(string))
	patch := func(ifMatch string, body any) *apitest.Response {
		headers := map[string]string{}
		if ifMatch != "" {
			headers["If-Match"] = ifMatch
		}
		return a.Do(apitest.Req{Method: http.MethodPatch, Path: path, Token: tn.Token, Body: body, Headers: headers})
	}

	res := patch("", map[string]any{"name": "No precondition"})
	assert.Equal(t, http.StatusPreconditionRequired, res.Code)
	assert.Equal(t, kit.CodePreconditionRequired, res.ErrorCode())

	res = patch(`"1"`, map[string]any{"name": "Renamed", "massG": "25"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "Renamed", res.JSON["name"])
	assert.Equal(t, "25", res.JSON["massG"])
	assert.Equal(t, "PATCH-1", res.JSON["internalCode"], "fields not sent are kept")
	assert.Equal(t, float64(2), res.JSON["revision"])
	assert.Equal(t, `"2"`, res.Header().Get("ETag"))

	res = patch(`"1"`, map[string]any{"name": "Stale"})
	assert.Equal(t, http.StatusConflict, res.Code)
	assert.Equal(t, kit.CodeRevisionConflict, res.ErrorCode())

	res = patch(`"2"`, map[string]any{"massG": 1})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)

	got := a.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: tn.Token})
	assert.Equal(t, "Renamed", got.JSON["name"])
	assert.Equal(t, `"2"`, got.Header().Get("ETag"))
	assert.Equal(t, []string{"catalog_item.created", "catalog_item.updated"}, a.EventTypes(tn.Org))

	other := a.NewTenant(apitest.TenantSpec{})
	res = a.Do(apitest.Req{Method: http.MethodPatch, Path: other.Path("/catalog-items/" + item["id"].(string)), Token: other.Token,
		Body: map[string]any{"name": "Hijack"}, Headers: map[string]string{"If-Match": `"2"`}})
	assert.Equal(t, http.StatusNotFound, res.Code, "another organization's item does not exist")
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/catalog-items/" + item["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}

func TestArchiveAndRestore(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := mustCreateItem(t, a, tn, "ARCH-1")
	base := tn.Path("/catalog-items/" + item["id"].(string))
	post := func(suffix string, body any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: base + suffix, Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	}

	res := post("/archive", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "archived", res.JSON["status"])
	assert.NotNil(t, res.JSON["archivedAt"])
	revision := res.JSON["revision"].(float64)

	got := a.Do(apitest.Req{Method: http.MethodGet, Path: base, Token: tn.Token})
	assert.Equal(t, http.StatusOK, got.Code, "archived items stay readable")

	res = post("/components", map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, domain.ErrItemArchived.Code, res.ErrorCode(), "archived items are refused for new work")
	res = a.Do(apitest.Req{Method: http.MethodPatch, Path: base, Token: tn.Token, Body: map[string]any{"name": "x"}, Headers: map[string]string{"If-Match": kit.ETag(int(revision))}})
	assert.Equal(t, domain.ErrItemArchived.Code, res.ErrorCode())

	res = post("/restore", map[string]any{})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "restore needs the revision")
	assert.Contains(t, res.FieldErrors(), "revision")
	res = post("/restore", map[string]any{"revision": revision - 1})
	assert.Equal(t, http.StatusConflict, res.Code)
	res = post("/restore", map[string]any{"revision": revision})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Equal(t, "active", res.JSON["status"])
	assert.Nil(t, res.JSON["archivedAt"])
	assert.Equal(t, []string{"catalog_item.created", "catalog_item.archived", "catalog_item.restored"}, a.EventTypes(tn.Org))
}

func TestComponentsChangeTheItemRevision(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := mustCreateItem(t, a, tn, "COMP-1")
	base := tn.Path("/catalog-items/" + item["id"].(string))
	add := func(body map[string]any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPost, Path: base + "/components", Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	}

	res := add(map[string]any{"name": "Cap", "role": "lid-ish", "materialCode": "NOPE", "massG": 2})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"role", "materialCode", "massG"} {
		assert.Contains(t, res.FieldErrors(), f)
	}
	res = add(map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2.1", "revision": 5})
	assert.Equal(t, http.StatusConflict, res.Code, "a stale item revision is refused")

	res = add(map[string]any{"name": "Cap", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "2.1", "revision": 1})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	comp := res.JSON
	assert.Equal(t, item["id"], comp["catalogItem"])

	got := a.Do(apitest.Req{Method: http.MethodGet, Path: base, Token: tn.Token})
	assert.Equal(t, float64(2), got.JSON["revision"], "a component is a new item revision")
	assert.Equal(t, true, got.JSON["assessmentsStale"])

	one := a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/components/" + comp["id"].(string), Token: tn.Token})
	assert.Equal(t, http.StatusOK, one.Code)
	assert.Equal(t, "2.1", one.JSON["massG"])
	listed := a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/components", Token: tn.Token})
	assert.Len(t, listed.JSON["data"], 1)
	missing := a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/components/" + uuid.NewString(), Token: tn.Token})
	assert.Equal(t, http.StatusNotFound, missing.Code)

	versions := a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/data-versions", Token: tn.Token})
	data := versions.JSON["data"].([]any)
	require.Len(t, data, 2, "one data version per revision")
	first, second := data[0].(map[string]any), data[1].(map[string]any)
	assert.Equal(t, float64(1), first["revision"])
	assert.Empty(t, first["components"], "history is immutable")
	assert.Len(t, second["components"], 1)
	assert.Regexp(t, "^[0-9a-f]{64}$", second["hash"])
	assert.NotEqual(t, first["hash"], second["hash"])
	assert.Equal(t, "COMP-1", second["specifications"].(map[string]any)["internalCode"])

	one = a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/data-versions/" + second["id"].(string), Token: tn.Token})
	assert.Equal(t, second["hash"], one.JSON["hash"])
	other := a.NewTenant(apitest.TenantSpec{})
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/catalog-items/" + item["id"].(string) + "/data-versions/" + second["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
	assert.Contains(t, a.EventTypes(tn.Org), "component.created")
}

func TestReplaceMarkets(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := mustCreateItem(t, a, tn, "MKT-1")
	base := tn.Path("/catalog-items/" + item["id"].(string) + "/markets")
	put := func(body map[string]any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPut, Path: base, Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	}
	scenarios := func(res *apitest.Response) map[string]map[string]any {
		out := map[string]map[string]any{}
		for _, m := range res.JSON["markets"].([]any) {
			out[m.(map[string]any)["country"].(string)] = m.(map[string]any)
		}
		return out
	}

	res := put(map[string]any{"market_revision": 1, "markets": []string{"PL", "XX"}, "market_details": map[string]any{
		"DE": map[string]any{"economic_role": "importer"}, "PL": map[string]any{"economic_role": "wizard", "assessment_date": "soon"}}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"markets", "market_details.DE", "market_details.PL.economic_role", "market_details.PL.assessment_date"} {
		assert.Contains(t, res.FieldErrors(), f)
	}

	res = put(map[string]any{"market_revision": 1, "markets": []string{"PL", "DE"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "importer", "assessment_date": "2026-11-01"}}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, float64(2), res.JSON["market_revision"])
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

	old := a.Do(apitest.Req{Method: http.MethodGet, Path: base + "/" + first["DE"]["id"].(string), Token: tn.Token})
	assert.Equal(t, false, old.JSON["active"], "a replaced scenario stays readable")
	assert.NotNil(t, old.JSON["deactivated_at"])

	res = put(map[string]any{"market_revision": 3, "markets": []string{"PL", "CZ"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "distributor"}}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.NotEqual(t, first["PL"]["id"], scenarios(res)["PL"]["id"], "a changed detail is a new scenario")

	unchanged := put(map[string]any{"market_revision": 4, "markets": []string{"CZ", "PL"}, "market_details": map[string]any{
		"PL": map[string]any{"origin_country": "CN", "economic_role": "distributor"}}})
	assert.Equal(t, float64(4), unchanged.JSON["market_revision"], "no change, no new revision")

	res = put(map[string]any{"market_revision": 4, "markets": []string{}})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Empty(t, res.JSON["markets"], "an empty list removes all")
	listed := a.Do(apitest.Req{Method: http.MethodGet, Path: base, Token: tn.Token})
	assert.Empty(t, listed.JSON["data"])
	assert.Contains(t, a.EventTypes(tn.Org), "markets.changed")

	versions := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items/" + item["id"].(string) + "/data-versions?per_page=100"), Token: tn.Token})
	assert.Len(t, versions.JSON["data"], 5, "every market change is a data version")
}

// Inner dimensions are optional specifications: set on create, changed or
// cleared (null) by PATCH, each change a revision whose data version holds
// them.
func TestInnerDimensions(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	res := createItem(t, a, tn, mergeMap(validItem("BOX-IN"), map[string]any{"innerLengthMm": "300.50", "innerWidthMm": "200", "innerHeightMm": nil}))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, "300.5", res.JSON["innerLengthMm"])
	assert.Equal(t, "200", res.JSON["innerWidthMm"])
	assert.Nil(t, res.JSON["innerHeightMm"])
	plain := mustCreateItem(t, a, tn, "BOX-PLAIN")
	assert.Nil(t, plain["innerLengthMm"], "the dimensions are optional")

	path := tn.Path("/catalog-items/" + res.JSON["id"].(string))
	patch := func(ifMatch string, body map[string]any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPatch, Path: path, Token: tn.Token, Body: body, Headers: map[string]string{"If-Match": ifMatch}})
	}
	res = patch(`"1"`, map[string]any{"innerHeightMm": "150", "innerLengthMm": nil})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Nil(t, res.JSON["innerLengthMm"], "null clears")
	assert.Equal(t, "200", res.JSON["innerWidthMm"], "not sent: kept")
	assert.Equal(t, "150", res.JSON["innerHeightMm"])

	var version catalog.DataVersion
	require.NoError(t, a.DB.Where("catalog_item_id = ? AND revision = 2", res.JSON["id"]).Take(&version).Error)
	var spec map[string]any
	require.NoError(t, json.Unmarshal(version.Specifications, &spec))
	assert.Contains(t, spec, "innerLengthMm", "a cleared dimension is in the specifications as null")
	assert.Nil(t, spec["innerLengthMm"])
	assert.Equal(t, "200", spec["innerWidthMm"])
	assert.Equal(t, "150", spec["innerHeightMm"])

	res = patch(`"2"`, map[string]any{"innerWidthMm": "0", "innerHeightMm": 150, "innerLengthMm": "-1"})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	for _, f := range []string{"innerWidthMm", "innerHeightMm", "innerLengthMm"} {
		assert.Contains(t, res.FieldErrors(), f)
	}
	got := a.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: tn.Token})
	assert.Equal(t, "200", got.JSON["innerWidthMm"], "a refused patch changes nothing")
	assert.Equal(t, float64(2), got.JSON["revision"])
}
