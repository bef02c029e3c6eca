// Package api is the HTTP API: the Gin engine, the request pipeline, the
// operation table that drives routing, authorization and the OpenAPI
// document, and one file per area of the spec.
package api

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/internal/config"
	"ppwr/internal/credcache"
	"ppwr/internal/dictionaries"
	"ppwr/internal/ratelimit"
	"ppwr/internal/storage"
)

// Deps are the service's connections, shared by every handler.
type Deps struct {
	Config   config.Config
	DB       *gorm.DB
	Temporal client.Client
	Storage  *storage.Store
	// Credentials caches authentication while someone runs its Listen;
	// nil means a cache of the engine's own that never serves from memory.
	Credentials *credcache.Cache
}

// Server carries the dependencies and the operation table.
type Server struct {
	Deps
	credentials *credcache.Cache
	limiter     *ratelimit.Limiter
	operations  []Operation
	openapi     map[string][]byte // rendered document per locale
	dictJSON    map[string][]byte // dictionaries per locale, rendered once
}

// NewEngine builds the Gin engine with every operation of the spec.
func NewEngine(d Deps) (*gin.Engine, error) {
	_, engine, err := newServer(d, (*Server).table)
	return engine, err
}

// newServer builds the server from an operation table; tests pass the
// spec's table plus synthetic operations to exercise the pipeline.
func newServer(d Deps, table func(*Server) []Operation) (*Server, *gin.Engine, error) {
	s := &Server{Deps: d, credentials: d.Credentials, limiter: ratelimit.New(d.DB)}
	if s.credentials == nil {
		s.credentials = credcache.New()
	}
	s.operations = table(s)
	if err := s.renderOpenAPI(); err != nil {
		return nil, nil, err
	}
	if err := s.renderDictionaries(dictionaries.Default()); err != nil {
		return nil, nil, err
	}

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.HandleMethodNotAllowed = true
	r.ContextWithFallback = true
	if err := r.SetTrustedProxies(d.Config.TrustedProxies); err != nil {
		return nil, nil, err
	}
	r.Use(withRequestID, logRequest, recovery, withLocale)
	r.NoRoute(func(c *gin.Context) { render(c, NotFound()) })
	r.NoMethod(func(c *gin.Context) {
		render(c, newProblem(http.StatusMethodNotAllowed, CodeMethodNotAllowed, "error.method_not_allowed", c.Request.Method))
	})

	r.GET("/healthz", s.healthz)
	r.GET("/readyz", s.readyz)
	r.GET("/api/v1/openapi.json", s.serveOpenAPI)
	for i := range s.operations {
		op := &s.operations[i]
		r.Handle(op.Method, op.ginPath(), s.chain(op)...)
	}
	return s, r, nil
}

// chain is the request pipeline of one operation, in the order of
// ARCHITECTURE.md §5: (request id and locale are global) authentication,
// organization scope, authorization, rate limit, then the write transaction
// with idempotency and audit, then the handler.
func (s *Server) chain(op *Operation) []gin.HandlerFunc {
	h := op.Handler
	if h == nil {
		h = notImplemented
	}
	chain := []gin.HandlerFunc{renameParams(op.PathParams()), withOperation(op)}
	if !op.Public {
		chain = append(chain, s.authenticate, s.authorize(op), s.rateLimit(op))
	}
	if op.IsWrite() {
		chain = append(chain, s.writeTransaction(op))
	}
	return append(chain, adapt(h))
}

// Readiness is what /readyz checks; each probe answers within the request's
// deadline.
func (s *Server) readiness(ctx context.Context) map[string]error {
	out := map[string]error{}
	sqlDB, err := s.DB.DB()
	if err == nil {
		err = sqlDB.PingContext(ctx)
	}
	out["postgres"] = err
	if s.Temporal != nil {
		_, err = s.Temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
		out["temporal"] = err
	}
	if s.Storage != nil {
		out["s3"] = s.Storage.Ping(ctx)
	}
	return out
}
