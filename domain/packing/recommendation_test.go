package packing_test

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain/packing"
	"ppwr/internal/input"
)

func dims(l, w, h string) packing.Dimensions {
	return packing.Dimensions{decimal.RequireFromString(l), decimal.RequireFromString(w), decimal.RequireFromString(h)}
}

func TestFitRule(t *testing.T) {
	box := dims("300", "200", "100")
	cases := map[string]struct {
		packing packing.Packing
		fits    bool
	}{
		"one product, turned on its side":                       {packing.Packing{{dims("100", "300", "200"), 1}}, true},
		"exactly the box":                                       {packing.Packing{{dims("300", "200", "100"), 1}}, true},
		"too long in one dimension although the volume is tiny": {packing.Packing{{dims("301", "10", "10"), 1}}, false},
		"a grid of 3 x 2 x 1 in one orientation":                {packing.Packing{{dims("100", "100", "100"), 6}}, true},
		"seven cubes: the volume is too large":                  {packing.Packing{{dims("100", "100", "100"), 7}}, false},
		// 4 x 1.5 x 1: the volume would hold 6 but a grid holds 4 only.
		"volume suffices but no grid holds them":             {packing.Packing{{dims("75", "133.34", "100"), 6}}, false},
		"the same kind in two entries, differently oriented": {packing.Packing{{dims("100", "100", "100"), 3}, {dims("100", "100", "100"), 4}}, false},
		"two kinds: each fits and the volume does":           {packing.Packing{{dims("150", "200", "100"), 1}, {dims("100", "100", "100"), 3}}, true},
		"two kinds: the volume does not":                     {packing.Packing{{dims("150", "200", "100"), 2}, {dims("100", "100", "100"), 1}}, false},
		"decimal dimensions":                                 {packing.Packing{{dims("99.999", "199.5", "300"), 1}}, true},
		"decimal dimensions just too large":                  {packing.Packing{{dims("100.001", "199.5", "300"), 1}}, false},
	}
	for name, c := range cases {
		assert.Equal(t, c.fits, c.packing.FitsIn(box), name)
	}
	assert.True(t, dims("1", "2", "3").FitsIn(dims("3", "1", "2")), "any of the six orientations")
	assert.False(t, dims("1", "2", "3").FitsIn(dims("3", "1", "1.9")))
}

func TestEmptySpaceRatio(t *testing.T) {
	cases := []struct{ inner, products, ratio string }{
		{"6000000", "3000000", "50"},
		{"6000000", "6000000", "0"},
		{"3", "1", "66.67"},        // 66.666…: rounded up, never understated
		{"3", "2", "33.34"},        // 33.333…
		{"1000", "999.99", "0.01"}, // 0.001: still shown as some empty space
		{"7", "3.5", "50"},
	}
	for _, c := range cases {
		got := packing.EmptySpaceRatio(decimal.RequireFromString(c.inner), decimal.RequireFromString(c.products))
		assert.Equal(t, c.ratio, got.String(), "%s − %s", c.inner, c.products)
	}
	packing := packing.Packing{{dims("100", "100", "100"), 3}, {dims("0.5", "2", "10"), 2}}
	assert.Equal(t, "3000020", packing.Volume().String())
}

func TestRecommendationRequestLimits(t *testing.T) {
	bind := func(body string) *packing.RecommendationRequest {
		var in packing.RecommendationRequest
		require.NoError(t, input.FromJSON([]byte(body), &in))
		return &in
	}
	in := bind(`{"products":[{"length_mm":"10","width_mm":"20.5","height_mm":"30","quantity":60},{"length_mm":"1","width_mm":"1","height_mm":"1","quantity":40}]}`)
	require.False(t, in.Failed(), "%v", in.Err())
	assert.Len(t, in.Packing, 2)
	assert.False(t, in.Limit.Set())

	in = bind(`{"products":[{"length_mm":"10","width_mm":"20","height_mm":"30","quantity":60},{"length_mm":"1","width_mm":"1","height_mm":"1","quantity":41}]}`)
	assert.True(t, in.Has("products"), "101 units")

	in = bind(`{"products":[{"length_mm":0,"width_mm":"-1","quantity":1.5},null],"limit":21}`)
	for _, f := range []string{"products.0.length_mm", "products.0.width_mm", "products.0.height_mm", "products.0.quantity", "products.1", "limit"} {
		assert.True(t, in.Has(f), f)
	}
	for _, body := range []string{`{}`, `{"products":[]}`, `{"products":{}}`, `{"products":null}`} {
		assert.True(t, bind(body).Has("products"), body)
	}
}
