package kit

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"ppwr/internal/access"
)

// Operation is one row of the spec's endpoint tables. The router, the auth
// guard, the binding of bodies and queries, the idempotency and audit
// pipeline and the OpenAPI document are all built from these rows, so they
// cannot drift apart.
type Operation struct {
	ID     string // operationId, also the audit log's operation name
	Method string
	// Path is relative to /api/v1 in OpenAPI form ("/organizations/{organizationId}/folders").
	Path string
	Tag  string
	// Ability and Permission are required unless empty. Public operations
	// skip authentication altogether.
	Ability    access.Ability
	Permission access.Permission
	Public     bool
	Idempotent bool // Idempotency-Key required
	// ReadOnly is a write method that only computes its answer: it runs
	// without a unit of work, so it leaves no audit entry.
	ReadOnly bool
	Rate     RateClass
	// Extension marks an operation beyond the spec's table; the document
	// says so in its description and x-ppwr-extension.
	Beyond bool
	// Paginated operations accept cursor/per_page and answer the list envelope.
	Paginated bool
	Query     []Param // query parameters besides cursor/per_page
	Headers   []Param // request headers besides the common ones
	Request   *Body   // nil: no body
	Success   Response
	// Codes are the error codes the handler may answer besides those the
	// row implies (its access rules, parameters, body, idempotency): the
	// domain errors declared with Answers.
	Codes []Code
	// Handler serves the operation; the server refuses a row without one.
	Handler HandlerFunc
	// location is the path of the read its Location names, which
	// ResolveLocations resolves from Success.Read, in parts.
	location []pathPart
}

// RateClass selects the extra rate limits an operation is subject to; every
// operation also counts against the general per-user limit.
type RateClass int

const (
	RateGeneral RateClass = iota
	RateRecommendations
)

// Param documents a query parameter or header.
type Param struct {
	Name     string
	Required bool
	Schema   Schema
	DescKey  string // i18n key of the description
}

// Body is a request body: a content type, its schema and whether it may be
// left out. A named body's schema is a component of the document.
type Body struct {
	Name        string
	ContentType string
	Schema      Schema
	Required    bool
}

// HandlerFunc is an operation handler. A returned error is rendered by
// Fail.
type HandlerFunc func(c *gin.Context) error

// Org prefixes the organization-scoped paths.
const Org = "/organizations/{organizationId}"

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// PathParams returns the parameter names of the path in order.
func (op *Operation) PathParams() []string {
	var names []string
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		names = append(names, m[1])
	}
	return names
}

// PathShape is the path with its parameters unnamed, so that paths the
// spec spells with different parameter names compare equal.
func (op *Operation) PathShape() string { return pathParam.ReplaceAllString(op.Path, "{}") }

// OrgScoped reports whether the path carries an organization.
func (op *Operation) OrgScoped() bool { return strings.HasPrefix(op.Path, Org) }

// IsWrite reports whether the operation may change state and therefore runs
// in a unit of work with an audit entry.
func (op *Operation) IsWrite() bool { return op.Method != http.MethodGet }

// Get is a read of one resource.
func Get(id, path, tag string, ab access.Ability, perm access.Permission) Operation {
	return Operation{ID: id, Method: http.MethodGet, Path: path, Tag: tag, Ability: ab, Permission: perm}
}

// List is a paginated read.
func List(id, path, tag string, ab access.Ability, perm access.Permission) Operation {
	o := Get(id, path, tag, ab, perm)
	o.Paginated = true
	return o
}

// Write is an operation that requires an Idempotency-Key, as most writes in
// the spec do; the few exceptions call NotIdempotent.
func Write(method, id, path, tag string, ab access.Ability, perm access.Permission) Operation {
	return Operation{ID: id, Method: method, Path: path, Tag: tag, Ability: ab, Permission: perm, Idempotent: true}
}

// Post is an idempotent POST.
func Post(id, path, tag string, ab access.Ability, perm access.Permission) Operation {
	return Write(http.MethodPost, id, path, tag, ab, perm)
}

// NotIdempotent drops the Idempotency-Key requirement.
func (o Operation) NotIdempotent() Operation { o.Idempotent = false; return o }

// Computes marks a POST that writes nothing (a calculation whose input is
// too large for a query string): no Idempotency-Key, no unit of work, no
// audit entry.
func (o Operation) Computes() Operation { o.Idempotent, o.ReadOnly = false, true; return o }

// Extension marks the operation as one beyond the spec's table.
func (o Operation) Extension() Operation { o.Beyond = true; return o }

// WithQuery documents query parameters of an operation whose handler binds
// no typed query (unbuilt areas).
func (o Operation) WithQuery(params ...Param) Operation {
	o.Query = append(o.Query, params...)
	return o
}

// WithHeaders documents request headers.
func (o Operation) WithHeaders(params ...Param) Operation {
	o.Headers = append(o.Headers, params...)
	return o
}

// Answers declares the domain errors the operation's handler may return,
// each documented under the code and status ProblemOf answers it with.
func (o Operation) Answers(errs ...error) Operation {
	o.Codes = slices.Clone(o.Codes)
	for _, err := range errs {
		o.Codes = append(o.Codes, CodeOf(err))
	}
	return o
}

// WithRate puts the operation in a rate class.
func (o Operation) WithRate(r RateClass) Operation { o.Rate = r; return o }

// Handle sets the handler, its typed body and query, and the success
// response.
func (o Operation) Handle(h Handler, success Response) Operation {
	o.Handler, o.Success = h.run, success
	if h.body != nil {
		o.Request = h.body
	}
	o.Query = append(o.Query, h.query...)
	return o
}

// QueryParam documents a query parameter, described by "param.<name>".
func QueryParam(name string, schema Schema) Param {
	return Param{Name: name, Schema: schema, DescKey: "param." + name}
}

// Area is one spec area: its operation rows and the models of its
// answers.
type Area struct {
	Operations []Operation
	Models     []Model
}

// Join is one area built from parts, for an area whose features live in
// files of their own.
func Join(parts ...Area) Area {
	var out Area
	for _, p := range parts {
		out.Operations = append(out.Operations, p.Operations...)
		out.Models = append(out.Models, p.Models...)
	}
	return out
}

// RequiredQueryParam documents a required query parameter.
func RequiredQueryParam(name string, schema Schema) Param {
	p := QueryParam(name, schema)
	p.Required = true
	return p
}
