package catalog_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/internal/access"
	"ppwr/internal/i18n"
)

// structureClient sends the structure operations of one tenant.
type structureClient struct {
	t  *testing.T
	a  *apitest.API
	tn apitest.Tenant
}

func newStructureClient(t *testing.T) (*structureClient, *apitest.API) {
	a := apitest.New(t)
	return &structureClient{t: t, a: a, tn: a.NewTenant(apitest.TenantSpec{})}, a
}

func (sc *structureClient) send(method, path string, body any, headers ...string) *apitest.Response {
	sc.t.Helper()
	h := map[string]string{}
	if method != http.MethodGet {
		h["Idempotency-Key"] = apitest.IdemKey()
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return sc.a.Do(apitest.Req{Method: method, Path: sc.tn.Path(path), Token: sc.tn.Token, Body: body, Headers: h})
}

// created sends a create and returns the new record's id.
func (sc *structureClient) created(path string, body any) string {
	sc.t.Helper()
	res := sc.send(http.MethodPost, path, body)
	require.Equal(sc.t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON["id"].(string)
}

func (sc *structureClient) folder(name string, parent any) string {
	sc.t.Helper()
	return sc.created("/folders", map[string]any{"name": name, "parent": parent})
}

func structureFieldKeys(res *apitest.Response) []string {
	out := []string{}
	for k := range res.FieldErrors() {
		out = append(out, k)
	}
	return out
}

// assertStructureField checks that a 422 names field with the message of key.
func assertStructureField(t *testing.T, res *apitest.Response, field, key string, args ...any) {
	t.Helper()
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
	msgs, _ := res.FieldErrors()[field].([]any)
	assert.Contains(t, msgs, i18n.T(i18n.EN, key, args...), "field %s: %s", field, res.Body.String())
}

func structureRows(t *testing.T, a *apitest.API, table string, orgID uuid.UUID) int64 {
	var n int64
	require.NoError(t, a.DB.Table(table).Where("organization_id = ?", orgID).Count(&n).Error)
	return n
}

// structureEvents returns the data of the organization's events of a type.
func structureEvents(t *testing.T, a *apitest.API, orgID uuid.UUID, eventType string) []map[string]any {
	var events []domain.Event
	require.NoError(t, a.DB.Where("organization_id = ? AND type = ?", orgID, eventType).Order("id").Find(&events).Error)
	out := []map[string]any{}
	for _, e := range events {
		var body struct {
			Data map[string]any `json:"data"`
		}
		require.NoError(t, json.Unmarshal([]byte(e.Body), &body))
		out = append(out, body.Data)
	}
	return out
}

func TestFolderCreateReadAndList(t *testing.T) {
	sc, a := newStructureClient(t)
	res := sc.send(http.MethodPost, "/folders", map[string]any{"name": "  Boxes  "})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	root := res.JSON["id"].(string)
	assert.Equal(t, "Boxes", res.JSON["name"], "names are trimmed")
	assert.Nil(t, res.JSON["parent"])
	assert.Equal(t, float64(1), res.JSON["revision"])
	child := sc.folder("Shipping boxes", root)

	got := sc.send(http.MethodGet, "/folders/"+child, nil)
	require.Equal(t, http.StatusOK, got.Code)
	assert.Equal(t, root, got.JSON["parent"])
	assert.Equal(t, "Shipping boxes", got.JSON["name"])
	assert.NotContains(t, got.JSON, "data", "a detail read is the plain object")
	again := sc.send(http.MethodGet, "/folders/"+root, nil)
	assert.Equal(t, res.JSON["created_at"], again.JSON["created_at"], "the create answers the stored timestamps")

	all := sc.send(http.MethodGet, "/folders", nil)
	require.Equal(t, http.StatusOK, all.Code)
	assert.Len(t, all.JSON["data"], 2)
	assert.Equal(t, all.Header().Get("X-Request-ID"), all.JSON["requestId"])
	sub := sc.send(http.MethodGet, "/folders?parent="+root, nil)
	require.Equal(t, http.StatusOK, sub.Code)
	require.Len(t, sub.JSON["data"], 1)
	assert.Equal(t, child, sub.JSON["data"].([]any)[0].(map[string]any)["id"])
	assertStructureField(t, sc.send(http.MethodGet, "/folders?parent=nope&per_page=0", nil), "parent", "field.uuid")
	assert.ElementsMatch(t, []string{"parent", "per_page"}, structureFieldKeys(sc.send(http.MethodGet, "/folders?parent=nope&per_page=0", nil)))

	for _, id := range []string{"not-a-uuid", uuid.NewString()} {
		res := sc.send(http.MethodGet, "/folders/"+id, nil)
		assert.Equal(t, http.StatusNotFound, res.Code, id)
		assert.Equal(t, kit.CodeNotFound, res.ErrorCode())
	}

	events := structureEvents(t, a, sc.tn.Org, "folder.created")
	require.Len(t, events, 2)
	assert.Equal(t, map[string]any{"folder_id": root, "parent_id": nil, "revision": float64(1)}, events[0])
	assert.Equal(t, root, events[1]["parent_id"])

	entries := a.AuditEntries(sc.tn.Org, "createFolder")
	require.Len(t, entries, 2)
	assert.Equal(t, "folder", entries[0].RecordType)
	assert.Equal(t, root, entries[0].RecordID.String())
	assert.Equal(t, sc.tn.KeyID, *entries[0].APIKeyID)
}

func TestFolderCreateIsIdempotent(t *testing.T) {
	sc, a := newStructureClient(t)
	key := apitest.IdemKey()
	first := sc.send(http.MethodPost, "/folders", map[string]any{"name": "Once"}, "Idempotency-Key", key)
	second := sc.send(http.MethodPost, "/folders", map[string]any{"name": "Once"}, "Idempotency-Key", key)
	require.Equal(t, http.StatusCreated, first.Code)
	assert.Equal(t, first.Body.String(), second.Body.String())
	assert.Equal(t, int64(1), structureRows(t, a, "folders", sc.tn.Org))
	assert.Len(t, structureEvents(t, a, sc.tn.Org, "folder.created"), 1)
}

func TestFolderCreateValidation(t *testing.T) {
	sc, a := newStructureClient(t)
	other := a.NewTenant(apitest.TenantSpec{})
	foreign := (&structureClient{t: t, a: a, tn: other}).folder("Theirs", nil)

	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{}), "name", "field.required")
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": "   "}), "name", "field.required")
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": 12}), "name", "field.string")
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": strings.Repeat("ż", 201)}), "name", "field.too_long", 200)
	assert.Equal(t, http.StatusCreated, sc.send(http.MethodPost, "/folders", map[string]any{"name": strings.Repeat("ż", 200)}).Code)
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": "x", "parent": "nope"}), "parent", "field.uuid")
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": "x", "parent": uuid.NewString()}), "parent", "field.not_found")
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": "x", "parent": foreign}), "parent", "field.not_found")
	res := sc.send(http.MethodPost, "/folders", "[1]")
	assert.Equal(t, kit.CodeInvalidJSON, res.ErrorCode())

	// Every bad field at once, and nothing written.
	res = sc.send(http.MethodPost, "/folders", map[string]any{"name": "", "parent": foreign})
	assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode())
	assert.ElementsMatch(t, []string{"name", "parent"}, structureFieldKeys(res))
	assert.Equal(t, int64(1), structureRows(t, a, "folders", sc.tn.Org))

	pl := sc.send(http.MethodPost, "/folders", map[string]any{"name": "x", "parent": foreign}, "X-Locale", "pl")
	assert.Equal(t, []any{i18n.T(i18n.PL, "field.not_found")}, pl.FieldErrors()["parent"])
}

func TestFolderListPages(t *testing.T) {
	sc, _ := newStructureClient(t)
	var ids []string
	for i := range 5 {
		ids = append(ids, sc.folder("Folder "+string(rune('A'+i)), nil))
	}
	var seen []string
	next := sc.tn.Path("/folders?per_page=2")
	for pages := 0; next != ""; pages++ {
		require.Less(t, pages, 3)
		res := sc.a.Do(apitest.Req{Method: http.MethodGet, Path: next, Token: sc.tn.Token})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
		for _, f := range res.JSON["data"].([]any) {
			seen = append(seen, f.(map[string]any)["id"].(string))
		}
		next = ""
		if link, ok := res.JSON["links"].(map[string]any)["next"].(string); ok {
			assert.Contains(t, link, "per_page=2")
			next = link[len(apitest.Base):]
		}
	}
	assert.Equal(t, ids, seen, "every folder once, in creation order, over three pages")
}

func TestFolderUpdate(t *testing.T) {
	sc, a := newStructureClient(t)
	a1 := sc.folder("A", nil)
	b := sc.folder("B", a1)
	c := sc.folder("C", b)
	other := sc.folder("Other", nil)

	res := sc.send(http.MethodPut, "/folders/"+c, map[string]any{"revision": 1, "name": "C renamed"})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "C renamed", res.JSON["name"])
	assert.Equal(t, b, res.JSON["parent"], "an omitted parent is kept")
	assert.Equal(t, float64(2), res.JSON["revision"])
	assert.NotEqual(t, res.JSON["created_at"], res.JSON["updated_at"])

	res = sc.send(http.MethodPut, "/folders/"+c, map[string]any{"revision": 2, "parent": other})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, other, res.JSON["parent"])
	assert.Equal(t, "C renamed", res.JSON["name"], "an omitted name is kept")
	res = sc.send(http.MethodPut, "/folders/"+c, map[string]any{"revision": 3, "parent": nil})
	require.Equal(t, http.StatusOK, res.Code)
	assert.Nil(t, res.JSON["parent"], "null moves the folder to the top level")
	assert.Equal(t, float64(4), res.JSON["revision"])

	stale := sc.send(http.MethodPut, "/folders/"+c, map[string]any{"revision": 3, "name": "Late"})
	assert.Equal(t, http.StatusConflict, stale.Code)
	assert.Equal(t, kit.CodeRevisionConflict, stale.ErrorCode())

	// Cycles: a folder under itself or under its own descendant.
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1, "parent": a1}), "parent", "field.folder_cycle")
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1, "parent": b}), "parent", "field.folder_cycle")
	require.Equal(t, http.StatusOK, sc.send(http.MethodPut, "/folders/"+c, map[string]any{"revision": 4, "parent": b}).Code)
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1, "parent": c}), "parent", "field.folder_cycle")
	// Moving a folder under a sibling's branch is fine.
	require.Equal(t, http.StatusOK, sc.send(http.MethodPut, "/folders/"+other, map[string]any{"revision": 1, "parent": c}).Code)

	// Validation names every field and changes nothing.
	res = sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"name": "", "parent": "x"})
	assert.ElementsMatch(t, []string{"revision", "name", "parent"}, structureFieldKeys(res))
	assertStructureField(t, res, "revision", "field.required")
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": "1", "name": "x"}), "revision", "field.integer")
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1, "name": nil}), "name", "field.not_null")
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1}), "name", "field.one_required", "name, parent")
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+a1, map[string]any{"revision": 1, "parent": uuid.NewString()}), "parent", "field.not_found")
	got := sc.send(http.MethodGet, "/folders/"+a1, nil)
	assert.Equal(t, "A", got.JSON["name"])
	assert.Equal(t, float64(1), got.JSON["revision"])

	for _, id := range []string{"bad-id", uuid.NewString()} {
		res := sc.send(http.MethodPut, "/folders/"+id, map[string]any{"revision": 1, "name": "x"})
		assert.Equal(t, http.StatusNotFound, res.Code, id)
	}

	events := structureEvents(t, a, sc.tn.Org, "folder.updated")
	require.Len(t, events, 5)
	assert.Equal(t, map[string]any{"folder_id": c, "parent_id": b, "revision": float64(2)}, events[0])
	entries := a.AuditEntries(sc.tn.Org, "updateFolder")
	require.Len(t, entries, 5)
	assert.Equal(t, c, entries[0].RecordID.String())
}

func TestFolderDelete(t *testing.T) {
	sc, a := newStructureClient(t)
	parent := sc.folder("Parent", nil)
	child := sc.folder("Child", parent)
	withItem := sc.folder("With item", nil)
	require.NoError(t, a.DB.Exec(`INSERT INTO catalog_items
		(id, organization_id, folder_id, internal_code, name, sourcing_type, mass_g, main_material_code, stock_unit, food_contact_status, reuse_type)
		VALUES (?, ?, ?, 'BOX-1', 'Box', 'purchased', 12.5, 'PAPER', 'piece', 'none', 'single_use')`,
		domain.NewID(), sc.tn.Org, withItem).Error)

	assertStructureField(t, sc.send(http.MethodDelete, "/folders/"+child, map[string]any{}), "revision", "field.required")
	assertStructureField(t, sc.send(http.MethodDelete, "/folders/"+child, nil), "revision", "field.required")
	stale := sc.send(http.MethodDelete, "/folders/"+child, map[string]any{"revision": 2})
	assert.Equal(t, http.StatusConflict, stale.Code)
	assert.Equal(t, kit.CodeRevisionConflict, stale.ErrorCode())

	for _, id := range []string{parent, withItem} {
		res := sc.send(http.MethodDelete, "/folders/"+id, map[string]any{"revision": 1})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, domain.ErrFolderNotEmpty.Code, res.ErrorCode())
	}
	assert.Equal(t, int64(3), structureRows(t, a, "folders", sc.tn.Org))

	res := sc.send(http.MethodDelete, "/folders/"+child, map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, map[string]any{"id": child, "deleted": true}, res.JSON)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/folders/"+child, nil).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodDelete, "/folders/"+child, map[string]any{"revision": 1}).Code)
	// Now empty, the parent goes too.
	assert.Equal(t, http.StatusOK, sc.send(http.MethodDelete, "/folders/"+parent, map[string]any{"revision": 1}).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodDelete, "/folders/not-a-uuid", map[string]any{"revision": 1}).Code)

	assert.Equal(t, []map[string]any{
		{"folder_id": child, "revision": float64(1)},
		{"folder_id": parent, "revision": float64(1)},
	}, structureEvents(t, a, sc.tn.Org, "folder.deleted"))
	entries := a.AuditEntries(sc.tn.Org, "deleteFolder")
	require.Len(t, entries, 2)
	assert.Equal(t, child, entries[0].RecordID.String())
}

// Another organization's folder is invisible: 404 on read, update and
// delete, and "not found" as a parent; nothing of it changes.
func TestFolderOfAnotherOrganization(t *testing.T) {
	sc, a := newStructureClient(t)
	owner := &structureClient{t: t, a: a, tn: a.NewTenant(apitest.TenantSpec{})}
	theirs := owner.folder("Theirs", nil)

	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodGet, "/folders/"+theirs, nil).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodPut, "/folders/"+theirs, map[string]any{"revision": 1, "name": "Mine"}).Code)
	assert.Equal(t, http.StatusNotFound, sc.send(http.MethodDelete, "/folders/"+theirs, map[string]any{"revision": 1}).Code)
	assertStructureField(t, sc.send(http.MethodPost, "/folders", map[string]any{"name": "x", "parent": theirs}), "parent", "field.not_found")
	mine := sc.folder("Mine", nil)
	assertStructureField(t, sc.send(http.MethodPut, "/folders/"+mine, map[string]any{"revision": 1, "parent": theirs}), "parent", "field.not_found")
	list := sc.send(http.MethodGet, "/folders?parent="+theirs, nil)
	require.Equal(t, http.StatusOK, list.Code)
	assert.Empty(t, list.JSON["data"])

	got := owner.send(http.MethodGet, "/folders/"+theirs, nil)
	assert.Equal(t, "Theirs", got.JSON["name"])
	assert.Equal(t, float64(1), got.JSON["revision"])
}

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
