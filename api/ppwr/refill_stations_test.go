package ppwr_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

func TestRefillStationsAreListedPerOrganizationNewestFirst(t *testing.T) {
	o := newDesk(t)
	station := func(tn apitest.Tenant, name string) string {
		res := o.send(t, tn, http.MethodPost, "/ppwr/refill-stations", map[string]any{"name": name, "location": "ul. Długa 1, Gdańsk",
			"country": "PL", "refill_rules": "Przynieś czysty pojemnik."})
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		return res.JSON["id"].(string)
	}
	older, newer := station(o.tn, "Stacja 1"), station(o.tn, "Stacja 2")
	station(o.other, "Obca stacja")

	res := o.Do(apitest.Req{Method: http.MethodGet, Path: o.tn.Path("/ppwr/refill-stations?per_page=1"), Token: o.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	data := res.JSON["data"].([]any)
	require.Len(t, data, 1)
	assert.Equal(t, newer, data[0].(map[string]any)["id"])
	assert.Equal(t, []any{}, data[0].(map[string]any)["products"])
	next := res.JSON["links"].(map[string]any)["next"].(string)
	res = o.Do(apitest.Req{Method: http.MethodGet, Path: next[len(apitest.Base):], Token: o.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	data = res.JSON["data"].([]any)
	require.Len(t, data, 1, "the other organization's station is not listed")
	assert.Equal(t, older, data[0].(map[string]any)["id"])
	assert.Nil(t, res.JSON["links"].(map[string]any)["next"])
}
