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

	"ppwr/internal/access"
)

func TestPartyCreateReadAndList(t *testing.T) {
	sc, a := newStructureClient(t)
	res := sc.send(http.MethodPost, "/parties", map[string]any{
		"name": "Kartonex Sp. z o.o.", "roles": []string{"supplier", "manufacturer", "supplier"}, "country": "PL",
		"tax_id": "PL5260250995", "email": "orders@kartonex.example", "address": "ul. Przemysłowa 1, 00-001 Warszawa",
	})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	assert.Equal(t, []any{"supplier", "manufacturer"}, res.JSON["roles"], "a repeated role is kept once")
	assert.Equal(t, "PL", res.JSON["country"])
	assert.Equal(t, "PL5260250995", res.JSON["tax_id"])
	assert.Equal(t, "orders@kartonex.example", res.JSON["email"])
	assert.NotContains(t, res.JSON, "revision", "parties are not edited through the API")

	minimal := sc.created("/parties", map[string]any{"name": "Recykling AG", "roles": []string{"recycler"}, "country": "DE", "email": nil})
	got := sc.send(http.MethodGet, "/parties/"+minimal, nil)
	require.Equal(t, http.StatusOK, got.Code)
	assert.Equal(t, "Recykling AG", got.JSON["name"])
	for _, f := range []string{"tax_id", "email", "address"} {
		assert.Nil(t, got.JSON[f], "%s not given is null", f)
	}

	list := sc.send(http.MethodGet, "/parties", nil)
	require.Equal(t, http.StatusOK, list.Code)
	data := list.JSON["data"].([]any)
	require.Len(t, data, 2)
	assert.Equal(t, id, data[0].(map[string]any)["id"])

	for _, bad := range []string{"nope", uuid.NewString()} {
		assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/parties/"+bad, nil).Code)
	}
	owner := &structureClient{t: t, a: a, tn: a.NewTenant(apitest.TenantSpec{})}
	theirs := owner.created("/parties", map[string]any{"name": "Theirs", "roles": []string{"other"}, "country": "FR"})
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/parties/"+theirs, nil).Code)

	assert.Equal(t, []map[string]any{{"party_id": id}, {"party_id": minimal}}, structureEvents(t, a, sc.tn.Org, "party.created"))
	entries := a.AuditEntries(sc.tn.Org, "createParty")
	require.Len(t, entries, 2)
	assert.Equal(t, "party", entries[0].RecordType)
	assert.Equal(t, id, entries[0].RecordID.String())
}

func TestPartyValidation(t *testing.T) {
	sc, a := newStructureClient(t)
	valid := func(change map[string]any) map[string]any {
		body := map[string]any{"name": "Kartonex", "roles": []string{"supplier"}, "country": "PL"}
		for k, v := range change {
			body[k] = v
		}
		return body
	}
	res := sc.send(http.MethodPost, "/parties", map[string]any{})
	assert.ElementsMatch(t, []string{"name", "roles", "country"}, structureFieldKeys(res))
	assertStructureField(t, res, "roles", "field.required")

	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"name": strings.Repeat("a", 201)})), "name", "field.too_long", 200)
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"roles": []string{}})), "roles", "field.empty_list")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"roles": "supplier"})), "roles", "field.string_list")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"roles": []any{"supplier", 3}})), "roles", "field.string_list")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"roles": []string{"vendor"}})), "roles",
		"field.one_of", "supplier, customer, manufacturer, importer, recycler, other")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"country": "XX"})), "country", "field.unknown_code")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"country": "pl"})), "country", "field.unknown_code")
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"tax_id": strings.Repeat("1", 51)})), "tax_id", "field.too_long", 50)
	assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"address": strings.Repeat("a", 501)})), "address", "field.too_long", 500)
	for _, email := range []string{"not-an-email", "Orders <orders@example.com>", "a@"} {
		assertStructureField(t, sc.send(http.MethodPost, "/parties", valid(map[string]any{"email": email})), "email", "field.email")
	}

	res = sc.send(http.MethodPost, "/parties", map[string]any{"name": "", "roles": []string{"x"}, "country": "ZZ", "email": "bad", "tax_id": 7})
	assert.ElementsMatch(t, []string{"name", "roles", "country", "email", "tax_id"}, structureFieldKeys(res), "every bad field at once")
	assert.Zero(t, structureRows(t, a, "parties", sc.tn.Org), "nothing written")
}

// Parties need suppliers.manage, even for reading.
func TestPartiesNeedSuppliersManage(t *testing.T) {
	sc, a := newStructureClient(t)
	viewer := a.AddUser(sc.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{"catalog.view", "catalog.create"}})
	res := a.Do(apitest.Req{Method: http.MethodGet, Path: viewer.Path("/parties"), Token: viewer.Token})
	assert.Equal(t, http.StatusForbidden, res.Code)
	assert.Equal(t, kit.CodeMissingPermission, res.ErrorCode())
	manager := a.AddUser(sc.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{"suppliers.manage"}})
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: manager.Path("/parties"), Token: manager.Token})
	assert.Equal(t, http.StatusOK, res.Code)
}
