package kit

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

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
		op.location = splitPath(read.Path)
	}
	return nil
}

// pathPart is a piece of a path: literal text, or a path parameter.
type pathPart struct{ text, param string }

// splitPath cuts path into its literal text and its parameters, once per
// operation rather than with a regular expression on every answer.
func splitPath(path string) []pathPart {
	var parts []pathPart
	at := 0
	for _, m := range pathParam.FindAllStringSubmatchIndex(path, -1) {
		if m[0] > at {
			parts = append(parts, pathPart{text: path[at:m[0]]})
		}
		parts = append(parts, pathPart{param: path[m[2]:m[3]]})
		at = m[1]
	}
	if at < len(path) {
		parts = append(parts, pathPart{text: path[at:]})
	}
	return parts
}

// Location is the URL of the record id that the request's operation
// created (or queued): the path of the read its row names, with the
// organization and parent ids of the request's own path and id last.
func Location(c *gin.Context, id uuid.UUID) string {
	st := State(c)
	if st.Operation == nil || len(st.Operation.location) == 0 {
		// ResolveLocations refused to assemble such a server: only a row
		// whose success documents no Location gets here.
		panic("kit: Location answered by an operation that documents none")
	}
	parts := st.Operation.location
	last := len(parts) - 1
	for parts[last].param == "" {
		last--
	}
	var url strings.Builder
	url.WriteString(st.BaseURL + BasePath)
	for i, p := range parts {
		switch {
		case p.param == "":
			url.WriteString(p.text)
		case i == last:
			url.WriteString(id.String())
		case p.param == orgParam:
			url.WriteString(OrgID(c).String())
		default:
			// The handler has parsed its path ids before it created
			// anything; the canonical form is what the read's own answers
			// use.
			if parent, err := uuid.Parse(c.Param(p.param)); err == nil {
				url.WriteString(parent.String())
			} else {
				url.WriteString(c.Param(p.param))
			}
		}
	}
	return url.String()
}
