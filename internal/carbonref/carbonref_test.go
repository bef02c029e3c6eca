package carbonref

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/dictionaries"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func perKg(t *testing.T, material, variant string) decimal.Decimal {
	t.Helper()
	_, r, ok := Find(material, variant)
	require.True(t, ok, "%s %s", material, variant)
	return r.PerKg()
}

// The worked examples of ppwr-facts §5.3, to their four decimals.
func TestWorkedExamples(t *testing.T) {
	pet, rpet := perKg(t, "PLASTIC_PET", Primary), perKg(t, "PLASTIC_PET", Recycled)
	assert.Equal(t, "0.0966", ComponentKg(d("25"), d("0"), pet, rpet).Round(4).String())
	assert.Equal(t, "0.0842", ComponentKg(d("25"), d("0.3"), pet, rpet).Round(4).String())
	box := ComponentKg(d("180"), d("0"), perKg(t, "PAPER_CARDBOARD", Primary), decimal.Zero).
		Add(ComponentKg(d("12"), d("0"), perKg(t, "PLASTIC_LDPE", Primary), decimal.Zero))
	assert.Equal(t, "0.2515", box.Round(4).String())
	assert.Equal(t, "0.1185", ComponentKg(d("13"), d("0"), perKg(t, "ALUMINIUM", Primary), decimal.Zero).Round(4).String())
}

func TestTheSetIsTheSourceAsPublished(t *testing.T) {
	s, r, ok := Find("PLASTIC_PET", Primary)
	require.True(t, ok)
	assert.Equal(t, "19_505_5140_15_1", r.RowID)
	assert.Equal(t, "3863.90131", r.Value.String(), "kept in kg CO2e per tonne as published")
	assert.Equal(t, "incl. forming", *r.Boundary)
	assert.Equal(t, 2025, s.Year)
	assert.Equal(t, "scope_3", s.Scope)
	_, _, ok = Find("PLASTIC_PLA", Primary)
	assert.False(t, ok, "no factor is invented for a material the source does not cover")
	_, _, ok = Find("WOOD", Recycled)
	assert.False(t, ok, "the source has no closed-loop wood factor")
	for _, row := range s.Rows {
		assert.Contains(t, []string{Primary, Recycled, ReUsed}, row.Variant, row.RowID)
	}
}

func TestMappedMaterialsAreDictionaryCodes(t *testing.T) {
	for _, s := range Sets {
		for _, r := range s.Rows {
			for _, m := range r.Materials {
				assert.True(t, dictionaries.Default().HasMaterial(m), "%s maps to unknown material %s", r.RowID, m)
			}
		}
	}
}
