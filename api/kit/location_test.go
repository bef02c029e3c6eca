package kit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/access"
)

func locationRows(create Operation) []Operation {
	return []Operation{
		create,
		Get("getLine", Org+"/sets/{recordId}/items/{lineId}", "t", "", ""),
		Get("getVersion", Org+"/versions/{recordId}", "t", "", ""),
		Post("archiveSet", Org+"/sets/{recordId}/archive", "t", "", ""),
	}
}

// A server is not assembled with a Location that names no read of the
// record, or a read whose path the create cannot fill.
func TestResolveLocationsRefusesAReadItCannotFill(t *testing.T) {
	post := Post("addLine", Org+"/sets/{recordId}/items", "t", "", "")
	for name, success := range map[string]Response{
		"no read":        {Status: http.StatusCreated, Headers: []Param{locationHeader}},
		"unknown read":   CreatedResponse(Str(), "getNothing"),
		"not a GET":      CreatedResponse(Str(), "archiveSet"),
		"missing parent": CreatedResponse(Str(), "getLine"),
	} {
		create := post
		if name == "missing parent" {
			create.Path = Org + "/items"
		}
		create.Success = success
		assert.Error(t, ResolveLocations(locationRows(create)), name)
	}
	create := post
	create.Success = OK(Str())
	assert.NoError(t, ResolveLocations(locationRows(create)), "an answer without a Location names no read")
}

// Location fills the read's path: the organization, the parents the
// request's path names, and the new id last, even where the create's own
// path spells the same name for a parent.
func TestLocationFillsTheReadsPath(t *testing.T) {
	org, parent, id := uuid.New(), uuid.New(), uuid.New()
	location := func(create Operation, read string, params gin.Params) string {
		create.Success = CreatedResponse(Str(), read)
		ops := locationRows(create)
		require.NoError(t, ResolveLocations(ops))
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodPost, "/", nil)
		c.Params = params
		st := State(c)
		st.Operation, st.Credential, st.BaseURL = &ops[0], &access.Credential{OrganizationID: org}, "https://ppwr.example"
		return Location(c, id)
	}
	base := "https://ppwr.example/api/v1/organizations/" + org.String()
	assert.Equal(t, base+"/sets/"+parent.String()+"/items/"+id.String(),
		location(Post("addLine", Org+"/sets/{recordId}/items", "t", "", ""), "getLine", gin.Params{{Key: "recordId", Value: parent.String()}}))
	assert.Equal(t, base+"/versions/"+id.String(),
		location(Post("addVersion", Org+"/documents/{recordId}/versions", "t", "", ""), "getVersion", gin.Params{{Key: "recordId", Value: parent.String()}}),
		"the record's id, not the parent's that the create's path calls recordId")
}
