package packing_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
)

// box creates an item with inner dimensions (nil leaves them all out) and
// answers its id.
func box(t *testing.T, a *apitest.API, tn apitest.Tenant, code, mass string, tracked bool, inner ...string) string {
	t.Helper()
	body := map[string]any{
		"internalCode": code, "name": "Carton " + code, "sourcingType": "purchased", "massG": mass,
		"mainMaterialCode": "PAPER_CARDBOARD", "stockUnit": "piece", "stockTracked": tracked,
		"foodContactStatus": "not_food_contact", "reuseType": "single_use",
	}
	for i, name := range []string{"innerLengthMm", "innerWidthMm", "innerHeightMm"}[:len(inner)] {
		body[name] = inner[i]
	}
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items"), Token: tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON["id"].(string)
}

func recommend(a *apitest.API, tn apitest.Tenant, body any) *apitest.Response {
	return a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/packing-recommendations"), Token: tn.Token, Body: body})
}

func cubes(quantity int) map[string]any {
	return map[string]any{"products": []any{map[string]any{"length_mm": "100", "width_mm": "100", "height_mm": "100", "quantity": quantity}}}
}

func codes(res *apitest.Response) []string {
	out := []string{}
	for _, c := range res.JSON["candidates"].([]any) {
		out = append(out, c.(map[string]any)["internal_code"].(string))
	}
	return out
}

func TestRecommendationsRankFittingBoxes(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	other := a.NewTenant(apitest.TenantSpec{})
	heavy := box(t, a, tn, "EXACT-HEAVY", "50", true, "300", "200", "100")
	box(t, a, tn, "EXACT-LIGHT", "30", false, "100", "300", "200")
	box(t, a, tn, "ROOMY", "40", false, "310", "210", "110")
	box(t, a, tn, "HUGE", "500", false, "1000", "1000", "1000")
	box(t, a, tn, "FLAT", "10", false, "1000", "1000", "99.9")
	box(t, a, tn, "SMALL", "10", false, "200", "100", "100")
	box(t, a, tn, "NO-HEIGHT", "10", false, "300", "200")
	box(t, a, tn, "PLAIN", "10", false)
	archived := box(t, a, tn, "ARCHIVED", "10", false, "300", "200", "100")
	res := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/catalog-items/" + archived + "/archive"), Token: tn.Token,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	box(t, a, other, "THEIRS", "1", false, "300", "200", "100")
	require.NoError(t, a.DB.Exec(`INSERT INTO stock_balances (catalog_item_id, organization_id, physical, reserved) VALUES (?, ?, 10, 3)`, heavy, tn.Org).Error)
	events := a.EventTypes(tn.Org)

	res = recommend(a, tn, cubes(3))
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"EXACT-LIGHT", "EXACT-HEAVY", "ROOMY", "HUGE"}, codes(res),
		"the least empty space first, the lighter of equals first; a box too low for a cube is out though its volume suffices")
	assert.Equal(t, "3000000", res.JSON["products_volume_mm3"])
	assert.Equal(t, "50", res.JSON["empty_space_limit_percent"])
	assert.Contains(t, res.JSON["legal_basis"], "Art. 24(1)")
	candidates := res.JSON["candidates"].([]any)
	light, exact, roomy, huge := candidates[0].(map[string]any), candidates[1].(map[string]any), candidates[2].(map[string]any), candidates[3].(map[string]any)
	assert.Equal(t, map[string]any{
		"item": heavy, "internal_code": "EXACT-HEAVY", "name": "Carton EXACT-HEAVY",
		"inner_length_mm": "300", "inner_width_mm": "200", "inner_height_mm": "100", "inner_volume_mm3": "6000000",
		"products_volume_mm3": "3000000", "empty_space_ratio": "50.00", "within_empty_space_limit": true,
		"mass_g": "50", "stock_tracked": true, "available": "7",
	}, exact)
	assert.Nil(t, light["available"], "an untracked item has no available stock")
	assert.Equal(t, "58.11", roomy["empty_space_ratio"], "(7161000 − 3000000) / 7161000 = 58.106…, rounded up")
	assert.Equal(t, false, roomy["within_empty_space_limit"])
	assert.Equal(t, "99.70", huge["empty_space_ratio"])

	res = recommend(a, tn, map[string]any{"products": cubes(3)["products"], "limit": 2})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"EXACT-LIGHT", "EXACT-HEAVY"}, codes(res))

	// Six cubes fill the exact boxes; seven fit only the larger ones.
	res = recommend(a, tn, cubes(7))
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"HUGE"}, codes(res), "ROOMY's volume holds seven but a grid of it holds six")

	// Two kinds: no grid rule, each product fits and the volume does.
	res = recommend(a, tn, map[string]any{"products": []any{
		map[string]any{"length_mm": "290", "width_mm": "95", "height_mm": "150", "quantity": 1},
		map[string]any{"length_mm": "100", "width_mm": "100", "height_mm": "100", "quantity": 1},
	}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"EXACT-LIGHT", "EXACT-HEAVY", "ROOMY", "HUGE"}, codes(res))

	res = recommend(a, tn, map[string]any{"products": []any{map[string]any{"length_mm": "2000", "width_mm": "1", "height_mm": "1", "quantity": 1}}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Empty(t, res.JSON["candidates"], "nothing fits: an empty list")

	assert.Empty(t, a.AuditEntries(tn.Org, "recommendPacking"), "nothing is written")
	assert.Equal(t, events, a.EventTypes(tn.Org))
}

func TestRecommendationValidation(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	product := func(change map[string]any) map[string]any {
		p := map[string]any{"length_mm": "10", "width_mm": "10", "height_mm": "10", "quantity": 1}
		for k, v := range change {
			p[k] = v
		}
		return p
	}
	cases := map[string]struct {
		body  any
		field string
	}{
		"101 units":             {map[string]any{"products": []any{product(map[string]any{"quantity": 60}), product(map[string]any{"quantity": 41})}}, "products"},
		"one entry of 101":      {map[string]any{"products": []any{product(map[string]any{"quantity": 101})}}, "products.0.quantity"},
		"no products":           {map[string]any{}, "products"},
		"an empty list":         {map[string]any{"products": []any{}}, "products"},
		"not a list":            {map[string]any{"products": "box"}, "products"},
		"an entry not object":   {map[string]any{"products": []any{"box"}}, "products.0"},
		"length as a number":    {map[string]any{"products": []any{product(map[string]any{"length_mm": 10})}}, "products.0.length_mm"},
		"zero width":            {map[string]any{"products": []any{product(map[string]any{"width_mm": "0"})}}, "products.0.width_mm"},
		"negative height":       {map[string]any{"products": []any{product(map[string]any{"height_mm": "-1"})}}, "products.0.height_mm"},
		"huge height":           {map[string]any{"products": []any{product(map[string]any{"height_mm": "1e999"})}}, "products.0.height_mm"},
		"missing quantity":      {map[string]any{"products": []any{product(map[string]any{"quantity": nil})}}, "products.0.quantity"},
		"zero quantity":         {map[string]any{"products": []any{product(map[string]any{"quantity": 0})}}, "products.0.quantity"},
		"fractional quantity":   {map[string]any{"products": []any{product(map[string]any{"quantity": 1.5})}}, "products.0.quantity"},
		"limit above 20":        {map[string]any{"products": []any{product(nil)}, "limit": 21}, "limit"},
		"limit as text":         {map[string]any{"products": []any{product(nil)}, "limit": "5"}, "limit"},
		"second entry is wrong": {map[string]any{"products": []any{product(nil), product(map[string]any{"length_mm": nil})}}, "products.1.length_mm"},
	}
	for name, c := range cases {
		res := recommend(a, tn, c.body)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.FieldErrors(), c.field, name)
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = product(nil)
	}
	res := recommend(a, tn, map[string]any{"products": many})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "products")

	res = recommend(a, tn, map[string]any{"products": []any{product(map[string]any{"width_mm": "0", "quantity": 0})}, "limit": 0})
	for _, f := range []string{"products.0.width_mm", "products.0.quantity", "limit"} {
		assert.Contains(t, res.FieldErrors(), f, "every bad field at once")
	}
	res = recommend(a, tn, map[string]any{"products": many[:100]})
	assert.Equal(t, http.StatusOK, res.Code, "100 units are allowed: %s", res.Body.String())
	assert.Empty(t, a.AuditEntries(tn.Org, "recommendPacking"))
}

func TestRecommendationsHaveTheirOwnRateLimit(t *testing.T) {
	a := apitest.New(t, apitest.WithRateLimits(1000, 10))
	tn := a.NewTenant(apitest.TenantSpec{})
	for i := range 10 {
		res := recommend(a, tn, cubes(1))
		require.Equal(t, http.StatusOK, res.Code, "request %d: %s", i+1, res.Body.String())
	}
	res := recommend(a, tn, cubes(1))
	assert.Equal(t, http.StatusTooManyRequests, res.Code)
	assert.Equal(t, kit.CodeRateLimited, res.ErrorCode())
	retry, err := strconv.Atoi(res.Header().Get("Retry-After"))
	require.NoError(t, err)
	assert.Positive(t, retry)
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items"), Token: tn.Token})
	assert.Equal(t, http.StatusOK, res.Code, "other operations still answer")
}

// Boxes are read in batches; when the grid rule turns down a whole batch,
// the next one is read.
func TestRecommendationsReadPastBoxesTheGridTurnsDown(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	box(t, a, tn, "BIG", "900", false, "400", "400", "400")
	// 7 161 000 mm³ and more hold the volume of seven cubes, but a grid
	// of them holds six.
	require.NoError(t, a.DB.Exec(`INSERT INTO catalog_items (id, organization_id, internal_code, name, sourcing_type, mass_g,
			main_material_code, stock_unit, stock_tracked, food_contact_status, reuse_type, status, revision,
			inner_length_mm, inner_width_mm, inner_height_mm)
		SELECT gen_random_uuid(), ?, 'NEAR-' || g, 'Near miss', 'purchased', 10, 'PAPER_CARDBOARD', 'piece', false,
			'not_food_contact', 'single_use', 'active', 1, 310, 210, 110 + g * 0.5
		FROM generate_series(1, 100) AS g`, tn.Org).Error)
	res := recommend(a, tn, cubes(7))
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"BIG"}, codes(res))
	res = recommend(a, tn, cubes(6))
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, []string{"NEAR-1", "NEAR-2", "NEAR-3", "NEAR-4", "NEAR-5"}, codes(res))
}
