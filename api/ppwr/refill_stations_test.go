package ppwr_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/datatypes"

	"ppwr/api/apitest"
	"ppwr/models"
)

// Stations are created by a later operation; until then they are stored
// here as that operation will store them.
func TestRefillStationsAreListedPerOrganizationNewestFirst(t *testing.T) {
	a := apitest.New(t)
	tn, other := a.NewTenant(apitest.TenantSpec{}), a.NewTenant(apitest.TenantSpec{})
	station := func(org uuid.UUID, name string) string {
		s := models.RefillStation{ID: models.NewID(), OrganizationID: org, Name: name, Location: "ul. Długa 1, Gdańsk", CountryCode: "PL",
			RefillRules: "Przynieś czysty pojemnik.", Revision: 1,
			Products: datatypes.JSONSlice[uuid.UUID]{}, HygieneEvidence: datatypes.JSONSlice[uuid.UUID]{}}
		require.NoError(t, a.DB.Create(&s).Error)
		return s.ID.String()
	}
	older, newer := station(tn.Org, "Stacja 1"), station(tn.Org, "Stacja 2")
	station(other.Org, "Obca stacja")

	res := a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/ppwr/refill-stations?per_page=1"), Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	data := res.JSON["data"].([]any)
	require.Len(t, data, 1)
	assert.Equal(t, newer, data[0].(map[string]any)["id"])
	assert.Equal(t, []any{}, data[0].(map[string]any)["products"])
	next := res.JSON["links"].(map[string]any)["next"].(string)
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: next[len(apitest.Base):], Token: tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	data = res.JSON["data"].([]any)
	require.Len(t, data, 1, "the other organization's station is not listed")
	assert.Equal(t, older, data[0].(map[string]any)["id"])
	assert.Nil(t, res.JSON["links"].(map[string]any)["next"])
}
