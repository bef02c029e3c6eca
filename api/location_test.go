package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

// TestEveryLocationResolves creates a record through every operation
// whose answer carries a Location, follows each Location and reads the
// same record. An operation that answers a Location and that
// seedOrganization does not create through fails the test, so none ships
// a Location nobody followed.
func TestEveryLocationResolves(t *testing.T) {
	a := apitest.New(t, apitest.WithStorage())
	c := seedOrganization(t, a)
	org := c.tn.Org

	followed := 0
	for _, op := range a.Server.Operations() {
		if op.Success.Read == "" { // no Location (assembly refuses one without its read)
			continue
		}
		followed++
		t.Run(op.ID, func(t *testing.T) {
			created, ok := c.answers[op.ID]
			require.True(t, ok, "seedOrganization creates no record through %s: add one", op.ID)
			location := created.Header().Get("Location")
			require.True(t, strings.HasPrefix(location, apitest.Base+"/organizations/"+org.String()+"/"), "an absolute URL of the API: %s", location)
			res := a.Do(apitest.Req{Method: http.MethodGet, Path: strings.TrimPrefix(location, apitest.Base), Token: c.tn.Token})
			require.Equal(t, http.StatusOK, res.Code, "GET %s: %s", location, res.Body.String())
			id := recordID(created.JSON)
			require.NotEmpty(t, id)
			assert.Equal(t, id, recordID(res.JSON), "the Location reads the record created")
		})
	}
	assert.GreaterOrEqual(t, followed, 40, "the creates of the spec answer a Location")
}
