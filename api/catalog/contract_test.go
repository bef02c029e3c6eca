package catalog_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
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
