package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
)

// A cursor belongs to the list that issued it: the same operation, the
// same records in its path and the same filters. Sent anywhere else it is
// a 422 on cursor, and changes nothing; on its own list it reads the next
// page, whatever per_page says.
func TestCursorIsBoundToItsList(t *testing.T) {
	a := apitest.New(t)
	tn := a.NewTenant(apitest.TenantSpec{})
	send := func(tn apitest.Tenant, method, path string, body any) *apitest.Response {
		t.Helper()
		headers := map[string]string{}
		if method != http.MethodGet {
			headers["Idempotency-Key"] = apitest.IdemKey()
		}
		return a.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body, Headers: headers})
	}
	create := func(path string, body any) string {
		t.Helper()
		res := send(tn, http.MethodPost, path, body)
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		return res.JSON["id"].(string)
	}
	parent := create("/folders", map[string]any{"name": "Parent"})
	other := create("/folders", map[string]any{"name": "Other"})
	var children []string
	for _, name := range []string{"A", "B", "C"} {
		children = append(children, create("/folders", map[string]any{"name": name, "parent": parent}))
	}
	create("/families", map[string]any{"name": "Family 1"})
	create("/families", map[string]any{"name": "Family 2"})

	first := send(tn, http.MethodGet, "/folders?per_page=1&parent="+parent, nil)
	require.Equal(t, http.StatusOK, first.Code, first.Body.String())
	assert.Equal(t, children[0], first.JSON["data"].([]any)[0].(map[string]any)["id"])
	next, err := url.Parse(first.JSON["links"].(map[string]any)["next"].(string))
	require.NoError(t, err)
	cursor := next.Query().Get("cursor")
	require.NotEmpty(t, cursor)

	refused := map[string]struct {
		tn   apitest.Tenant
		path string
	}{
		"another list":                 {tn, "/families?cursor=" + cursor},
		"the list without the filter":  {tn, "/folders?cursor=" + cursor},
		"the list with another filter": {tn, "/folders?parent=" + other + "&cursor=" + cursor},
		"another organization's list":  {a.NewTenant(apitest.TenantSpec{}), "/folders?parent=" + parent + "&cursor=" + cursor},
	}
	for name, c := range refused {
		res := send(c.tn, http.MethodGet, c.path, nil)
		assert.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Equal(t, kit.CodeValidationFailed, res.ErrorCode(), name)
		assert.Equal(t, []any{"belongs to another list or to other filters; start again without a cursor"}, res.FieldErrors()["cursor"], name)
	}

	// The link itself, and the same list with the filters in another
	// order, unknown parameters or another page size, read on.
	for name, path := range map[string]string{
		"links.next":         strings.TrimPrefix(next.Path, "/api/v1/organizations/"+tn.Org.String()) + "?" + next.RawQuery,
		"reordered filters":  "/folders?cursor=" + cursor + "&per_page=1&parent=" + parent,
		"unknown parameters": "/folders?per_page=1&parent=" + parent + "&utm_source=erp&cursor=" + cursor,
		"another page size":  "/folders?per_page=5&parent=" + parent + "&cursor=" + cursor,
	} {
		res := send(tn, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, res.Code, name+": "+res.Body.String())
		assert.Equal(t, children[1], res.JSON["data"].([]any)[0].(map[string]any)["id"], name)
	}
	last := send(tn, http.MethodGet, "/folders?per_page=5&parent="+parent+"&cursor="+cursor, nil)
	assert.Len(t, last.JSON["data"], 2, "the page after the first child holds the other two")
	assert.Nil(t, last.JSON["links"].(map[string]any)["next"])
}
