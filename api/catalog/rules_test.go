package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Answers an integrator found to disagree with the document, and bad
// input that once answered 500: each is a clear 4xx now and changes
// nothing.
func TestBadInputIsRefusedClearly(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	item := mustCreateItem(t, a, tn, "CONTRACT-1")
	path := tn.Path("/catalog-items/" + item["id"].(string))
	patch := func(ifMatch string, body any) *apitest.Response {
		return a.Do(apitest.Req{Method: http.MethodPatch, Path: path, Token: tn.Token, Body: body, Headers: map[string]string{"If-Match": ifMatch}})
	}
	for name, body := range map[string]map[string]any{
		"blank name":          {"name": "  "},
		"empty internal code": {"internalCode": ""},
		"null name":           {"name": nil},
		"NUL in a name":       {"name": "a\u0000b"},
		"mass with exponent":  {"massG": "1e400"},
		"mass with spaces":    {"massG": " 12.5 "},
		"nil folder":          {"folder": uuid.Nil.String()},
	} {
		res := patch(`"1"`, body)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s: %s", name, res.Body)
		assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode(), name)
	}
	got := a.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: tn.Token})
	assert.Equal(t, float64(1), got.JSON["revision"], "nothing changed")

	res := patch("*", map[string]any{"name": "Any revision"})
	require.Equal(t, http.StatusOK, res.Code, "If-Match: * matches the current revision (RFC 9110)")
	res = patch(`"7", "2"`, map[string]any{"name": "Listed"})
	require.Equal(t, http.StatusOK, res.Code, "a listed ETag matches")
	assert.Equal(t, `"3"`, res.Header().Get("ETag"))
	res = patch(`W/"3"`, map[string]any{"name": "Weak"})
	assert.Equal(t, http.StatusConflict, res.Code, "a weak tag never matches")

	folder := a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/folders"), Token: tn.Token, Body: map[string]any{"name": "F"},
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	require.Equal(t, http.StatusCreated, folder.Code)
	assert.NotEmpty(t, folder.Header().Get("Location"), "every create sends Location")
	res = a.Do(apitest.Req{Method: http.MethodPut, Path: tn.Path("/folders/" + folder.JSON["id"].(string)), Token: tn.Token,
		Body: `{"revision": 99999999999, "name": "x"}`, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a revision beyond 32 bits")
	assert.Contains(t, res.FieldErrors(), "revision")

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items?q=%00"), Token: tn.Token})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "NUL in a query parameter")
	assert.Contains(t, res.FieldErrors(), "q")

	res = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/families"), Token: tn.Token,
		Body: `{"name": "Ignored NUL", "\u0000": "\u0000"}`, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
	assert.Equal(t, http.StatusCreated, res.Code, "a NUL in an ignored field is stored safely in the audit summary: %s", res.Body)

	for name, key := range map[string]string{"not UTF-8": "\xff\xfe" + strings.Repeat("k", 20), "15 characters of 30 bytes": strings.Repeat("ż", 15)} {
		res = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/families"), Token: tn.Token, Body: map[string]any{"name": "K"},
			Headers: map[string]string{"Idempotency-Key": key}, Undocumented: true})
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Equal(t, kit.CodeIdempotencyKeyInvalid, res.ErrorCode(), name)
	}
	res = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/families"), Token: tn.Token, Body: map[string]any{"name": "K"},
		Headers: map[string]string{"Idempotency-Key": strings.Repeat("ż", 60)}})
	assert.Equal(t, http.StatusCreated, res.Code, "60 characters are a valid key, whatever their bytes")

	res = a.Do(apitest.Req{Method: http.MethodPost, Path: tn.Path("/families"), Token: tn.Token, Body: "name=x",
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey(), "Content-Type": "application/x-www-form-urlencoded"}, Undocumented: true})
	assert.Equal(t, http.StatusUnsupportedMediaType, res.Code)
	assert.Equal(t, kit.CodeUnsupportedMediaType, res.ErrorCode())

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: tn.Path("/catalog-items/"), Token: tn.Token, Undocumented: true})
	assert.Equal(t, http.StatusNotFound, res.Code, "a trailing slash is not redirected")

	res = a.Do(apitest.Req{Method: http.MethodGet, Path: "/openapi.json?locale=pl", Undocumented: true})
	assert.Equal(t, "pl", res.Header().Get("Content-Language"))
}

// messages renders a command's field errors as the API does.
func messages(t *testing.T, err error) map[string]any {
	t.Helper()
	var invalid *input.Invalid
	require.True(t, errors.As(err, &invalid), "a field error: %v", err)
	byField := map[string][]string{}
	for _, f := range invalid.Fields {
		byField[f.Field] = append(byField[f.Field], i18n.T(i18n.EN, f.Key, f.Args...))
	}
	out := map[string]any{}
	for field, msgs := range byField {
		sort.Strings(msgs)
		list := make([]any, len(msgs))
		for i, m := range msgs {
			list[i] = m
		}
		out[field] = list
	}
	return out
}

// systemWork is a unit of work of a caller outside HTTP, such as a
// workflow's activity acting for a record.
func systemWork(a *apitest.API, org uuid.UUID) *work.Unit {
	return work.New(context.Background(), a.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "import/test"})
}

// The catalogue's rules live in the domain, not in the handlers: the
// create command, called outside HTTP with the same values, gets the very
// field errors the API answers, whether the values come as JSON or as the
// text cells of an import row.
func TestCommandsApplyTheAPIsRules(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	mustCreateItem(t, a, tn, "TAKEN")
	bad := map[string]string{
		"internalCode": "TAKEN", "name": " ", "sourcingType": "stolen", "massG": "1e3", "mainMaterialCode": "NOPE",
		"stockUnit": "pcs", "foodContactStatus": "maybe", "reuseType": "single_use", "stockTracked": "yes",
		"folder": uuid.NewString(),
	}
	body := map[string]any{}
	for k, v := range bad {
		body[k] = v
	}
	res := createItem(t, a, tn, body)
	require.Equal(t, 422, res.Code, res.Body.String())
	want := res.FieldErrors()
	for _, field := range []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit", "foodContactStatus", "stockTracked", "folder"} {
		assert.Contains(t, want, field)
	}

	raw, err := json.Marshal(body)
	require.NoError(t, err)
	fromJSON := &catalog.CatalogItemCreate{}
	require.NoError(t, input.FromJSON(raw, fromJSON))
	w := systemWork(a, tn.Org)
	_, err = catalog.CreateCatalogItem(w, fromJSON)
	w.Rollback()
	assert.Equal(t, want, messages(t, err), "a non-HTTP caller gets the API's field errors")

	fromCells := &catalog.CatalogItemCreate{}
	input.FromCells(bad, fromCells)
	w = systemWork(a, tn.Org)
	_, err = catalog.CreateCatalogItem(w, fromCells)
	w.Rollback()
	assert.Equal(t, want, messages(t, err), "an import row gets the API's field errors")
}

// A valid import row creates the item like the API does, and its audit
// entry (acting for the system) and its event commit with it.
func TestImportRowCreatesAnItem(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	in := &catalog.CatalogItemCreate{}
	input.FromCells(map[string]string{
		"internalCode": "ROW-1", "name": "Carton", "sourcingType": "purchased", "massG": "120.5", "mainMaterialCode": "PAPER",
		"stockUnit": "piece", "stockTracked": "true", "foodContactStatus": "not_food_contact", "reuseType": "single_use",
	}, in)
	require.False(t, in.Failed(), "%v", in.Err())
	w := systemWork(a, tn.Org)
	item, err := catalog.CreateCatalogItem(w, in)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "applyImport"}))

	res := a.Do(apitest.Req{Method: "GET", Path: tn.Path("/catalog-items/" + item.ID.String()), Token: tn.Token})
	require.Equal(t, 200, res.Code)
	assert.Equal(t, "120.5", res.JSON["massG"])
	assert.Equal(t, true, res.JSON["stockTracked"])
	assert.Equal(t, []string{"catalog_item.created"}, a.EventTypes(tn.Org))
	entries := a.AuditEntries(tn.Org, "applyImport")
	require.Len(t, entries, 1)
	assert.Equal(t, domain.ActorSystem, entries[0].ActorKind)
	assert.Equal(t, "import/test", entries[0].RequestID)
	assert.Equal(t, item.ID, *entries[0].RecordID)
}
