package api

import (
	"errors"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"ppwr/internal/access"
)

// Operation is one row of the spec's endpoint tables. The router, the auth
// guard, the idempotency and audit pipeline and the OpenAPI document are all
// built from these rows, so they cannot drift apart.
type Operation struct {
	ID     string // operationId, also the audit log's operation name
	Method string
	// Path is relative to /api/v1 in OpenAPI form ("/organizations/{organizationId}/folders").
	Path string
	Tag  string
	// Ability and Permission are required unless empty. Public operations
	// (Public: true) skip authentication altogether.
	Ability    access.Ability
	Permission access.Permission
	Public     bool
	Idempotent bool // Idempotency-Key required
	Rate       RateClass
	// Paginated operations accept cursor/per_page and answer the list envelope.
	Paginated bool
	Query     []Param // documented query parameters besides cursor/per_page
	Headers   []Param // documented request headers besides the common ones
	// Request is the request body (nil: none). Success is the success
	// status and response body; a nil Handler means the area is not built
	// yet and the operation answers 501 after authentication.
	Request *Body
	Success Response
	Handler HandlerFunc
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

// Body is a request body: a content type and a schema.
type Body struct {
	ContentType string
	Schema      Schema
}

// Response is the documented success response.
type Response struct {
	Status      int
	ContentType string // default application/json
	Schema      Schema // nil: no body
	Headers     []Param
}

// HandlerFunc is an operation handler. Returning a *Problem renders the error
// envelope; any other error is logged and answered with 500.
type HandlerFunc func(c *gin.Context) error

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// PathParams returns the parameter names of the path in order.
func (op *Operation) PathParams() []string {
	var names []string
	for _, m := range pathParam.FindAllStringSubmatch(op.Path, -1) {
		names = append(names, m[1])
	}
	return names
}

// OrgScoped reports whether the path carries an organization.
func (op *Operation) OrgScoped() bool {
	return strings.HasPrefix(op.Path, "/organizations/{organizationId}")
}

// IsWrite reports whether the operation may change state and therefore runs
// in a transaction with an audit entry.
func (op *Operation) IsWrite() bool { return op.Method != http.MethodGet }

// ginPath turns the spec path into a gin route with positional parameter
// names. The spec names the same path segment differently on different
// operations (/packaging-systems/{recordId}/items vs {systemId}/items), which
// gin's router rejects; positional names sidestep that and renameParams
// restores the spec's names before any handler runs.
func (op *Operation) ginPath() string {
	i := 0
	return "/api/v1" + pathParam.ReplaceAllStringFunc(op.Path, func(string) string {
		i++
		return ":p" + strconv.Itoa(i)
	})
}

func renameParams(names []string) gin.HandlerFunc {
	return func(c *gin.Context) {
		for i := range c.Params {
			if idx, err := strconv.Atoi(strings.TrimPrefix(c.Params[i].Key, "p")); err == nil && idx >= 1 && idx <= len(names) {
				c.Params[i].Key = names[idx-1]
			}
		}
	}
}

// adapt turns a HandlerFunc into a gin handler that renders its error.
func adapt(h HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			fail(c, err)
		}
	}
}

// fail renders err: a Problem as itself, anything else as a logged 500 that
// reveals nothing internal.
func fail(c *gin.Context, err error) {
	var p *Problem
	if errors.As(err, &p) {
		render(c, p)
		return
	}
	slog.ErrorContext(c.Request.Context(), "request failed", "request_id", requestIDOf(c), "path", c.FullPath(), "error", err)
	render(c, newProblem(http.StatusInternalServerError, CodeInternal, "error.internal"))
}

func notImplemented(c *gin.Context) error {
	return newProblem(http.StatusNotImplemented, CodeNotImplemented, "error.not_implemented")
}
