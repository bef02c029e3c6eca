package kit

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
)

// pageRequest is a request of a paginated operation whose path names an
// item, as the router hands it to the handler.
func pageRequest(op *Operation, item, query string) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest(http.MethodGet, "/?"+query, nil)
	c.Params = gin.Params{{Key: "catalogItemId", Value: item}}
	State(c).Operation = op
	return c
}

// fieldKeys records the message keys of field errors.
type fieldKeys map[string][]string

func (f fieldKeys) Fail(field, key string, _ ...any) { f[field] = append(f[field], key) }

// The digest binding a cursor to its list covers the operation, the
// records of the path and the filters as binding reads them; nothing
// else (per_page, unknown parameters, the order of parameters, the case
// of a UUID) makes another list.
func TestListDigest(t *testing.T) {
	path := Org + "/catalog-items/{catalogItemId}/supply-events"
	events := &Operation{ID: "listSupplyEvents", Path: path, Paginated: true,
		Query: []Param{QueryParam("kind", Str()), QueryParam("from", Date())}}
	other := &Operation{ID: "listFlows", Path: path, Paginated: true, Query: events.Query}
	item := "0190c7a4-5d3c-7e1f-9a2b-3c4d5e6f7a8b"
	digest := func(op *Operation, item, query string) string { return listDigest(pageRequest(op, item, query)) }

	base := digest(events, item, "kind=used&from=2026-01-01")
	for name, query := range map[string]string{
		"reordered":       "from=2026-01-01&kind=used",
		"per_page":        "kind=used&from=2026-01-01&per_page=7",
		"unknown":         "kind=used&from=2026-01-01&utm=x",
		"a second value":  "kind=used&kind=placed&from=2026-01-01",
		"a cursor of its": "kind=used&from=2026-01-01&cursor=abc",
	} {
		assert.Equal(t, base, digest(events, item, query), name)
	}
	assert.Equal(t, base, digest(events, strings.ToUpper(item), "kind=used&from=2026-01-01"), "a UUID in capitals names the same item")
	assert.Equal(t, digest(events, item, "kind="), digest(events, item, ""), "an empty filter is no filter")

	for name, d := range map[string]string{
		"another operation": digest(other, item, "kind=used&from=2026-01-01"),
		"another item":      digest(events, "0190c7a4-5d3c-7e1f-9a2b-3c4d5e6f7a8c", "kind=used&from=2026-01-01"),
		"another filter":    digest(events, item, "kind=placed&from=2026-01-01"),
		"a filter left out": digest(events, item, "kind=used"),
		"the first value":   digest(events, item, "kind=placed&kind=used&from=2026-01-01"),
	} {
		assert.NotEqual(t, base, d, name)
	}
	assert.NotEqual(t, digest(events, item, "kind=used"), digest(events, item, "from=used"), "a value under another filter")

	// bindPage accepts a cursor on its list and refuses it elsewhere.
	cursor := encodeCursor(pageRequest(events, item, "kind=used"), [16]byte{1})
	bind := func(op *Operation, query string) fieldKeys {
		errs := fieldKeys{}
		bindPage(pageRequest(op, item, query+"&cursor="+cursor), errs)
		return errs
	}
	assert.Empty(t, bind(events, "kind=used&per_page=3"))
	assert.Equal(t, fieldKeys{"cursor": {"field.cursor_other_list"}}, bind(events, "kind=placed"))
	assert.Equal(t, fieldKeys{"cursor": {"field.cursor_other_list"}}, bind(other, "kind=used"))
	assert.Equal(t, fieldKeys{"cursor": {"field.cursor_invalid"}}, bind(events, "kind=used&cursor=garbage"), "not a cursor at all")
}

// A page rendered row by row fails with its first row that does not
// render, rather than answering the others.
func TestEachRowFailsWithTheFirstRowThatDoesNotRender(t *testing.T) {
	bad := errors.New("stored value does not decode")
	render := EachRow(func(n *int) (string, error) {
		if *n < 0 {
			return "", bad
		}
		return strconv.Itoa(*n), nil
	})
	data, err := render([]int{1, 2})
	assert.NoError(t, err)
	assert.Equal(t, []string{"1", "2"}, data)
	data, err = render([]int{1, -1, 2})
	assert.ErrorIs(t, err, bad)
	assert.Nil(t, data)
}
