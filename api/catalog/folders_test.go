package catalog_test

import (
	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/models"

	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	var events []models.Event
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
		models.NewID(), sc.tn.Org, withItem).Error)

	assertStructureField(t, sc.send(http.MethodDelete, "/folders/"+child, map[string]any{}), "revision", "field.required")
	assertStructureField(t, sc.send(http.MethodDelete, "/folders/"+child, nil), "revision", "field.required")
	stale := sc.send(http.MethodDelete, "/folders/"+child, map[string]any{"revision": 2})
	assert.Equal(t, http.StatusConflict, stale.Code)
	assert.Equal(t, kit.CodeRevisionConflict, stale.ErrorCode())

	for _, id := range []string{parent, withItem} {
		res := sc.send(http.MethodDelete, "/folders/"+id, map[string]any{"revision": 1})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
		assert.Equal(t, models.ErrFolderNotEmpty.Code, res.ErrorCode())
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
