package api

import (
	"errors"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/internal/i18n"
	"ppwr/models"
)

// Context keys of the request pipeline.
const (
	ctxRequestID  = "ppwr.requestID"
	ctxLocale     = "ppwr.locale"
	ctxOperation  = "ppwr.operation"
	ctxCredential = "ppwr.credential"
)

func requestIDOf(c *gin.Context) string { return c.GetString(ctxRequestID) }

func localeOf(c *gin.Context) i18n.Locale {
	if l, ok := c.Get(ctxLocale); ok {
		return l.(i18n.Locale)
	}
	return i18n.Default
}

func credentialOf(c *gin.Context) *models.Credential {
	return c.MustGet(ctxCredential).(*models.Credential)
}

func operationOf(c *gin.Context) *Operation {
	if op, ok := c.Get(ctxOperation); ok {
		return op.(*Operation)
	}
	return nil
}

// withRequestID echoes a caller's X-Request-ID when it is a UUID (so that
// ERP logs correlate) and otherwise assigns a fresh one.
func withRequestID(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if _, err := uuid.Parse(id); err != nil {
		id = uuid.NewString()
	}
	c.Set(ctxRequestID, id)
	c.Header("X-Request-ID", id)
}

// logRequest writes one structured line per request, so operators can
// follow a request id from an ERP's log to ours and to the Temporal UI.
func logRequest(c *gin.Context) {
	start := time.Now()
	c.Next()
	attrs := []any{
		"request_id", requestIDOf(c), "method", c.Request.Method, "path", c.Request.URL.Path,
		"status", c.Writer.Status(), "duration_ms", time.Since(start).Milliseconds(),
	}
	if op := operationOf(c); op != nil {
		attrs = append(attrs, "operation", op.ID)
	}
	if cred, ok := c.Get(ctxCredential); ok {
		attrs = append(attrs, "organization_id", cred.(*models.Credential).OrganizationID, "api_key_id", cred.(*models.Credential).KeyID)
	}
	slog.InfoContext(c, "request", attrs...)
}

func withLocale(c *gin.Context) {
	c.Set(ctxLocale, i18n.Parse(c.GetHeader("X-Locale")))
	c.Header("Content-Language", string(localeOf(c)))
}

func withOperation(op *Operation) gin.HandlerFunc {
	return func(c *gin.Context) { c.Set(ctxOperation, op) }
}

// recovery answers a panic with the 500 envelope instead of a closed socket.
func recovery(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			slog.ErrorContext(c.Request.Context(), "panic", "request_id", requestIDOf(c), "panic", r, "stack", string(debug.Stack()))
			render(c, newProblem(http.StatusInternalServerError, CodeInternal, "error.internal"))
		}
	}()
	c.Next()
}

// authenticate resolves the bearer key, from the credential cache when it
// can: 401 when the key is missing, malformed, unknown or revoked.
func (s *Server) authenticate(c *gin.Context) {
	unauthenticated := func() {
		p := newProblem(http.StatusUnauthorized, CodeUnauthenticated, "error.unauthenticated")
		p.Headers = map[string]string{"WWW-Authenticate": `Bearer realm="ppwr"`}
		render(c, p)
	}
	scheme, token, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !models.WellFormedToken(token) {
		unauthenticated()
		return
	}
	hash := models.HashToken(token)
	cred, err := s.credentials.Lookup(hash, func() (*models.Credential, error) {
		return models.LookupCredential(c.Request.Context(), s.DB, hash)
	})
	if errors.Is(err, models.ErrUnknownToken) || (err == nil && cred.Revoked) {
		unauthenticated()
		return
	}
	if err != nil {
		fail(c, err)
		return
	}
	c.Set(ctxCredential, cred)
}

// authorize enforces the organization scope (404) and then every condition
// of the spec's rule 3 at once (403). The owner role never bypasses the
// token's abilities.
func (s *Server) authorize(op *Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		cred := credentialOf(c)
		if op.OrgScoped() {
			if id, err := uuid.Parse(c.Param("organizationId")); err != nil || id != cred.OrganizationID {
				render(c, NotFound())
				return
			}
		}
		switch {
		case op.Ability != "" && !cred.HasAbility(op.Ability):
			render(c, Forbidden(CodeMissingAbility))
		case !cred.OrganizationOK:
			render(c, Forbidden(CodeOrganizationSuspended))
		case !cred.HasMembership || !cred.MembershipActive:
			render(c, Forbidden(CodeMembershipInactive))
		case !cred.EmailVerified:
			render(c, Forbidden(CodeEmailUnverified))
		case cred.RequireMFA && !cred.UserMFA:
			render(c, Forbidden(CodeMFARequired))
		case !cred.AllowsIP(c.ClientIP()):
			render(c, Forbidden(CodeIPNotAllowed))
		case op.Permission != "" && !cred.HasPermission(op.Permission):
			render(c, Forbidden(CodeMissingPermission))
		}
	}
}

// rateLimit charges the user's general bucket and, for the operations
// that have one, their extra bucket; state is shared by every replica
// through Postgres (internal/ratelimit).
func (s *Server) rateLimit(op *Operation) gin.HandlerFunc {
	type bucket struct {
		suffix    string
		perMinute int
	}
	buckets := []bucket{{"", s.Config.RateLimitPerMinute}}
	if op.Rate == RateRecommendations {
		buckets = append(buckets, bucket{":recommendations", s.Config.RecommendationRateLimitPerMinute})
	}
	return func(c *gin.Context) {
		user := "user:" + credentialOf(c).UserID.String()
		for _, b := range buckets {
			ok, wait, err := s.limiter.Allow(c.Request.Context(), user+b.suffix, b.perMinute)
			if err != nil {
				fail(c, err)
				return
			}
			if !ok {
				p := newProblem(http.StatusTooManyRequests, CodeRateLimited, "error.rate_limited", wait)
				p.Headers = map[string]string{"Retry-After": strconv.Itoa(wait)}
				render(c, p)
				return
			}
		}
	}
}
