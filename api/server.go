// Package api is the HTTP API: the Gin engine, the request pipeline and
// the assembly of the OpenAPI document, over the areas of the spec. Each
// area is a package of its own (api/catalog, api/start, ...) that declares
// its operation rows on the kernel, api/kit; this package only puts them
// together.
package api

import (
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"ppwr/api/assessments"
	"ppwr/api/audit"
	"ppwr/api/bdo"
	"ppwr/api/carbon"
	"ppwr/api/catalog"
	"ppwr/api/documents"
	"ppwr/api/imports"
	"ppwr/api/kit"
	"ppwr/api/movements"
	"ppwr/api/packing"
	"ppwr/api/passports"
	"ppwr/api/ppwr"
	"ppwr/api/profiles"
	"ppwr/api/registers"
	"ppwr/api/reports"
	"ppwr/api/start"
	"ppwr/api/suppliers"
	"ppwr/api/webhooks"
	"ppwr/internal/bound"
	"ppwr/internal/credcache"
	"ppwr/internal/health"
	"ppwr/internal/ratelimit"
	"ppwr/internal/telemetry"
)

// Areas are the spec's areas, in the order of its endpoint tables. A new
// area adds its line here.
var Areas = []func(kit.Deps) kit.Area{
	start.Area, catalog.Area, packing.Area, movements.Area, documents.Area, suppliers.Area, imports.Area,
	assessments.Area, registers.Area, ppwr.Area, passports.Area, reports.Area, bdo.Area, carbon.Area, audit.Area,
	webhooks.Area, // beyond the spec: the events feed and self-service endpoints
	profiles.Area, // beyond the spec: the organization's compliance profile (issue 27)
}

// Deps are the service's connections, shared by every handler.
type Deps struct {
	kit.Deps
	// Credentials caches authentication while someone runs its Listen;
	// nil means a cache of the engine's own that never serves from memory.
	Credentials *credcache.Cache
}

// Server carries the dependencies and the assembled areas.
type Server struct {
	Deps
	limiter    *ratelimit.Limiter
	operations []kit.Operation
	// schemas are the component schemas of the answers, each derived
	// from the Go type that is encoded (kit.Model).
	schemas map[string]kit.Schema
	codes   []kit.Code
	openapi map[string][]byte // rendered document per locale
}

// NewEngine builds the Gin engine with every operation of the spec.
func NewEngine(d Deps) (*gin.Engine, error) {
	s, err := NewServer(d, Areas...)
	if err != nil {
		return nil, err
	}
	return s.Engine()
}

// NewServer assembles areas into a server; tests add synthetic areas to
// exercise the pipeline.
func NewServer(d Deps, areas ...func(kit.Deps) kit.Area) (*Server, error) {
	s := &Server{Deps: d, limiter: ratelimit.New(d.DB)}
	if s.Credentials == nil {
		s.Credentials = credcache.New()
	}
	models := kit.Models()
	for _, area := range buildAreas(d.Deps, areas) {
		models = append(models, area.Models...)
		for _, op := range area.Operations {
			if op.Handler == nil {
				return nil, fmt.Errorf("api: operation %s has no handler", op.ID)
			}
			telemetry.ExpectOperation(op.ID)
		}
		s.operations = append(s.operations, area.Operations...)
	}
	// Areas share domain rules (a shortage of stock, an archived item): a
	// code is listed once, and always with one status.
	status := map[string]int{}
	for i := range s.operations {
		for _, c := range errorCodes(&s.operations[i]) {
			if known, dup := status[c.Code]; dup {
				if known != c.Status {
					return nil, fmt.Errorf("api: code %s is answered with %d and %d", c.Code, known, c.Status)
				}
				continue
			}
			status[c.Code] = c.Status
			s.codes = append(s.codes, c)
		}
	}
	s.schemas = kit.Schemas(append(models, kit.ErrorEnvelope(slices.Sorted(maps.Keys(status)))))
	for _, op := range s.operations {
		if item := op.Success.List; item != "" {
			if _, dup := s.schemas[kit.ListName(item)]; dup {
				return nil, fmt.Errorf("api: schema %s is the list of %s, which the document derives", kit.ListName(item), item)
			}
		}
	}
	if err := kit.ResolveLocations(s.operations); err != nil {
		return nil, err
	}
	if err := s.renderOpenAPI(); err != nil {
		return nil, err
	}
	return s, nil
}

func buildAreas(d kit.Deps, builds []func(kit.Deps) kit.Area) []kit.Area {
	out := make([]kit.Area, len(builds))
	for i, build := range builds {
		out[i] = build(d)
	}
	return out
}

// Operations are the assembled operation rows.
func (s *Server) Operations() []kit.Operation { return s.operations }

// Engine is the Gin engine serving the operations.
func (s *Server) Engine() (*gin.Engine, error) {
	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	// A trailing slash is not found rather than redirected, so every answer
	// passes the pipeline and carries X-Request-ID.
	r.RedirectTrailingSlash = false
	if err := r.SetTrustedProxies(s.Config.TrustedProxies); err != nil {
		return nil, err
	}
	r.Use(withoutBodyOnHead, s.withRequestState, traceRequest, logRequest, recovery)
	r.NoRoute(func(c *gin.Context) { kit.Render(c, kit.NotFound()) })
	r.NoMethod(func(c *gin.Context) {
		kit.Render(c, kit.NewProblem(http.StatusMethodNotAllowed, kit.CodeMethodNotAllowed, "error.method_not_allowed", c.Request.Method))
	})
	// Every GET answers HEAD as well (withoutBodyOnHead), so Gin's 405
	// lists HEAD in Allow wherever it lists GET.
	route := func(method, path string, handlers ...gin.HandlerFunc) {
		r.Handle(method, path, handlers...)
		if method == http.MethodGet {
			r.Handle(http.MethodHead, path, handlers...)
		}
	}
	route(http.MethodGet, "/healthz", s.healthz)
	route(http.MethodGet, "/readyz", s.readyz)
	route(http.MethodGet, kit.BasePath+"/openapi.json", s.serveOpenAPI)
	for i := range s.operations {
		op := &s.operations[i]
		route(op.Method, ginPath(op), s.chain(op)...)
	}
	return r, nil
}

// chain is the request pipeline of one operation, in the order of
// ARCHITECTURE.md §5: (request id and locale are global) authentication,
// organization scope, authorization, rate limit, the body's media type
// and syntax, then the unit of work with idempotency and audit, then the
// handler (which binds the typed body and query).
func (s *Server) chain(op *kit.Operation) []gin.HandlerFunc {
	chain := []gin.HandlerFunc{renameParams(op.PathParams()), withOperation(op)}
	if !op.Public {
		chain = append(chain, s.authenticate, authorize(op), s.rateLimit(op))
	}
	if op.IsWrite() {
		chain = append(chain, readBody(op))
	}
	if op.IsWrite() && !op.ReadOnly {
		chain = append(chain, s.unitOfWork(op))
	}
	return append(chain, adapt(op.Handler))
}

// errorCodes are the codes op can answer: those of the steps chain gives
// it, read from its row, then those its handler declares (Answers). The
// OpenAPI document lists them per status, so they follow chain.
func errorCodes(op *kit.Operation) []kit.Code {
	// Gin answers 405 on every path for the methods it has no row for;
	// OpenAPI has no responses per path, so each operation lists it.
	// Every operation reads PostgreSQL (a public one too), so every one
	// may find a backing service not answering.
	codes := []string{kit.CodeMethodNotAllowed, kit.CodeInternal, kit.CodeServiceUnavailable}
	if !op.Public {
		codes = append(codes, kit.CodeUnauthenticated, kit.CodeOrganizationSuspended, kit.CodeMembershipInactive,
			kit.CodeEmailUnverified, kit.CodeMFARequired, kit.CodeIPNotAllowed, kit.CodeRateLimited)
		if op.Ability != "" {
			codes = append(codes, kit.CodeMissingAbility)
		}
		if op.Permission != "" {
			codes = append(codes, kit.CodeMissingPermission)
		}
	}
	// A path id that names nothing of the organization, or another
	// organization, is not found.
	if op.OrgScoped() || len(op.PathParams()) > 0 {
		codes = append(codes, kit.CodeNotFound)
	}
	if op.IsWrite() {
		codes = append(codes, kit.CodeRequestTooLarge, kit.CodeUnsupportedMediaType)
		if op.Request == nil || op.Request.ContentType != multipartForm {
			codes = append(codes, kit.CodeInvalidJSON)
		}
	}
	if op.Request != nil || op.Paginated || len(op.Query) > 0 {
		codes = append(codes, kit.CodeValidationFailed)
	}
	if op.Idempotent {
		codes = append(codes, kit.CodeIdempotencyKeyReused, kit.CodeIdempotencyKeyInvalid)
	}
	for _, h := range op.Headers {
		if h.Name == kit.IfMatchHeader.Name {
			codes = append(codes, kit.CodePreconditionRequired, kit.CodeRevisionConflict)
		}
	}
	out := make([]kit.Code, 0, len(codes)+len(op.Codes))
	seen := map[string]bool{}
	for _, c := range append(kit.CommonOf(codes...), op.Codes...) {
		if !seen[c.Code] {
			seen[c.Code] = true
			out = append(out, c)
		}
	}
	return out
}

// readiness is what /readyz checks.
func (s *Server) readiness() health.Checks {
	checks := health.Checks{bound.Postgres: health.Postgres(s.DB)}
	if s.Temporal != nil {
		checks[bound.Temporal] = health.Advisory(health.Temporal(s.Temporal))
	}
	if s.Storage != nil {
		checks[bound.S3] = s.Storage.Ping
	}
	return checks
}
