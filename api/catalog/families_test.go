package catalog_test

import (
	"ppwr/api/apitest"
	"ppwr/api/kit"

	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFamilyCreateReadAndList(t *testing.T) {
	sc, a := newStructureClient(t)
	res := sc.send(http.MethodPost, "/families", map[string]any{"name": "Mailer boxes", "description": "Corrugated mailers, sizes S to XL"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	assert.Equal(t, "Mailer boxes", res.JSON["name"])
	assert.Equal(t, "Corrugated mailers, sizes S to XL", res.JSON["description"])
	assert.Equal(t, float64(1), res.JSON["revision"])
	bare := sc.created("/families", map[string]any{"name": "Bottles"})

	got := sc.send(http.MethodGet, "/families/"+bare, nil)
	require.Equal(t, http.StatusOK, got.Code)
	assert.Nil(t, got.JSON["description"], "an absent description is null")

	list := sc.send(http.MethodGet, "/families?per_page=1", nil)
	require.Equal(t, http.StatusOK, list.Code)
	require.Len(t, list.JSON["data"], 1)
	assert.Equal(t, id, list.JSON["data"].([]any)[0].(map[string]any)["id"])
	assert.NotNil(t, list.JSON["links"].(map[string]any)["next"])

	for _, bad := range []string{"nope", uuid.NewString()} {
		assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/families/"+bad, nil).Code)
	}

	assert.Equal(t, []map[string]any{
		{"family_id": id, "revision": float64(1)},
		{"family_id": bare, "revision": float64(1)},
	}, structureEvents(t, a, sc.tn.Org, "family.created"))
	entries := a.AuditEntries(sc.tn.Org, "createFamily")
	require.Len(t, entries, 2)
	assert.Equal(t, "family", entries[0].RecordType)
	assert.Equal(t, id, entries[0].RecordID.String())
}

func TestFamilyValidation(t *testing.T) {
	sc, a := newStructureClient(t)
	assertStructureField(t, sc.send(http.MethodPost, "/families", map[string]any{"description": "x"}), "name", "field.required")
	assertStructureField(t, sc.send(http.MethodPost, "/families", map[string]any{"name": strings.Repeat("a", 201)}), "name", "field.too_long", 200)
	res := sc.send(http.MethodPost, "/families", map[string]any{"name": nil, "description": strings.Repeat("a", 2001)})
	assert.ElementsMatch(t, []string{"name", "description"}, structureFieldKeys(res))
	assertStructureField(t, res, "description", "field.too_long", 2000)
	assertStructureField(t, sc.send(http.MethodPost, "/families", map[string]any{"name": "x", "description": 5}), "description", "field.string")
	assert.Zero(t, structureRows(t, a, "families", sc.tn.Org), "nothing written")
}

func TestFamilyUpdate(t *testing.T) {
	sc, a := newStructureClient(t)
	id := sc.created("/families", map[string]any{"name": "Mailers", "description": "Corrugated"})

	res := sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 1, "name": "Mailer boxes"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "Mailer boxes", res.JSON["name"])
	assert.Equal(t, "Corrugated", res.JSON["description"], "an omitted description is kept")
	assert.Equal(t, float64(2), res.JSON["revision"])

	res = sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 2, "description": "Double wall"})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Equal(t, "Mailer boxes", res.JSON["name"], "an omitted name is kept")
	assert.Equal(t, "Double wall", res.JSON["description"])

	res = sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 3, "description": nil})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Nil(t, res.JSON["description"], "null clears the description")
	assert.Equal(t, float64(4), res.JSON["revision"])

	stale := sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 3, "name": "Late"})
	assert.Equal(t, http.StatusConflict, stale.Code)
	assert.Equal(t, kit.CodeRevisionConflict, stale.ErrorCode())

	res = sc.send(http.MethodPut, "/families/"+id, map[string]any{"name": " "})
	assert.ElementsMatch(t, []string{"revision", "name"}, structureFieldKeys(res))
	assertStructureField(t, sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 4}), "description", "field.one_required", "name, description")
	assertStructureField(t, sc.send(http.MethodPut, "/families/"+id, map[string]any{"revision": 1.5, "name": "x"}), "revision", "field.integer")
	got := sc.send(http.MethodGet, "/families/"+id, nil)
	assert.Equal(t, "Mailer boxes", got.JSON["name"])
	assert.Equal(t, float64(4), got.JSON["revision"])

	owner := &structureClient{t: t, a: a, tn: a.NewTenant(apitest.TenantSpec{})}
	theirs := owner.created("/families", map[string]any{"name": "Theirs"})
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/families/"+theirs, nil).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodPut, "/families/"+theirs, map[string]any{"revision": 1, "name": "Mine"}).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodPut, "/families/bad", map[string]any{"revision": 1, "name": "Mine"}).Code)
	assert.Equal(t, "Theirs", owner.send(http.MethodGet, "/families/"+theirs, nil).JSON["name"])

	events := structureEvents(t, a, sc.tn.Org, "family.updated")
	require.Len(t, events, 3)
	assert.Equal(t, map[string]any{"family_id": id, "revision": float64(4)}, events[2])
	assert.Len(t, a.AuditEntries(sc.tn.Org, "updateFamily"), 3)
}
