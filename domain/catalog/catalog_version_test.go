package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
)

// A data version's hash is of the same bytes as marshalling its parts as
// one object gives, HTML-sensitive characters and all.
func TestCanonicalVersionIsTheMarshalledObject(t *testing.T) {
	length := decimal.RequireFromString("12.50")
	item := &CatalogItem{ID: domain.NewID(), OrganizationID: domain.NewID(), InternalCode: "A<&>\u2028", Name: "Karton \"duży\"",
		MassG: decimal.RequireFromString("3.1"), InnerLengthMm: &length, Status: ItemActive, Revision: 12}
	date := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	role := "producer"
	comps := []Component{{ID: domain.NewID(), Name: "lid <b>", Role: "lid", MaterialCode: "PP", MassG: decimal.RequireFromString("0.25")}}
	markets := []MarketScenario{{ID: domain.NewID(), CountryCode: "PL", EconomicRole: &role, AssessmentDate: &date}}
	for _, c := range []struct {
		comps   []Component
		markets []MarketScenario
	}{{nil, nil}, {comps, markets}} {
		v, err := NewDataVersion(item, c.comps, c.markets)
		require.NoError(t, err)
		want, err := json.Marshal(struct {
			Revision       int             `json:"revision"`
			Specifications json.RawMessage `json:"specifications"`
			Components     json.RawMessage `json:"components"`
			Markets        json.RawMessage `json:"markets"`
		}{item.Revision, json.RawMessage(v.Specifications), json.RawMessage(v.Components), json.RawMessage(v.Markets)})
		require.NoError(t, err)
		sum := sha256.Sum256(want)
		assert.Equal(t, hex.EncodeToString(sum[:]), v.SHA256)
	}
}
