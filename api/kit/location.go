package kit

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
)

// BasePath is where the API's operations are served; operation paths are
// relative to it.
const BasePath = "/api/v1"

// orgParam is the path parameter of the organization-scoped paths.
const orgParam = "organizationId"

// locationHeader documents the Location of a record an answer names.
var locationHeader = Param{Name: "Location", Schema: Schema{"type": "string", "format": "uri"}, DescKey: "header.location"}

// ResolveLocations links every operation whose success answers a Location
// to the read it names (Response.Read): a GET of the operations whose last
// path parameter is the record's id and whose other parameters the
// operation's own path carries (the organization, a parent record), so
// that kit can fill its path for every answer. A server is not assembled
// with a Location that names no such read: a Location that does not
// resolve cannot ship.
func ResolveLocations(ops []Operation) error {
	byID := make(map[string]*Operation, len(ops))
	for i := range ops {
		byID[ops[i].ID] = &ops[i]
	}
	for i := range ops {
		op := &ops[i]
		if !slices.ContainsFunc(op.Success.Headers, func(p Param) bool { return p.Name == locationHeader.Name }) {
			continue
		}
		read := byID[op.Success.Read]
		switch {
		case op.Success.Read == "":
			return fmt.Errorf("api: operation %s answers a Location but names no read of the record", op.ID)
		case read == nil || read.Method != http.MethodGet:
			return fmt.Errorf("api: the Location of operation %s names %q, which is no GET operation", op.ID, op.Success.Read)
		}
		params := read.PathParams()
		if len(params) == 0 {
			return fmt.Errorf("api: the Location of operation %s names %s, whose path has no record id", op.ID, read.ID)
		}
		for _, p := range params[:len(params)-1] {
			if !slices.Contains(op.PathParams(), p) {
				return fmt.Errorf("api: the Location of operation %s names %s, whose parameter %s the operation's path lacks", op.ID, read.ID, p)
			}
		}
		op.location = read.Path
	}
	return nil
}

// Location is the URL of the record id that the request's operation
// created (or queued): the path of the read its row names, with the
// organization and parent ids of the request's own path and id last.
func Location(c *gin.Context, id uuid.UUID) string {
	st := State(c)
	if st.Operation == nil || st.Operation.location == "" {
		// ResolveLocations refused to assemble such a server: only a row
		// whose success documents no Location gets here.
		panic("kit: Location answered by an operation that documents none")
	}
	template := st.Operation.location
	last := len(pathParam.FindAllStringIndex(template, -1))
	n := 0
	path := pathParam.ReplaceAllStringFunc(template, func(m string) string {
		n++
		name := m[1 : len(m)-1]
		switch {
		case n == last:
			return id.String()
		case name == orgParam:
			return OrgID(c).String()
		}
		// The handler has parsed its path ids before it created anything;
		// the canonical form is what the read's own answers use.
		if parent, err := uuid.Parse(c.Param(name)); err == nil {
			return parent.String()
		}
		return c.Param(name)
	})
	return st.BaseURL + BasePath + path
}
