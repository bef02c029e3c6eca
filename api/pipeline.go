package api

import (
	"errors"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"ppwr/api/kit"
	"ppwr/domain/accounts"
	"ppwr/internal/access"
	"ppwr/internal/database"
	"ppwr/internal/i18n"
	"ppwr/internal/telemetry"
)

var pathParam = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// ginPath turns the spec path into a gin route with positional parameter
// names. The spec names the same path segment differently on different
// operations (/packaging-systems/{recordId}/items vs {systemId}/items), which
// gin's router rejects; positional names sidestep that and renameParams
// restores the spec's names before any handler runs.
func ginPath(op *kit.Operation) string {
	i := 0
	return kit.BasePath + pathParam.ReplaceAllStringFunc(op.Path, func(string) string {
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

// withoutBodyOnHead answers a HEAD request as its GET without the body (RFC
// 9110 §9.3.2): Engine routes every GET for HEAD too, with the same
// chain, and the chain writes its answer into a writer that drops the
// body. net/http would drop it on the wire as well, but only after the
// handler produced it (a download read whole from the object store), and
// an engine served without net/http would send it.
func withoutBodyOnHead(c *gin.Context) {
	if c.Request.Method == http.MethodHead {
		c.Writer = &headWriter{ResponseWriter: c.Writer}
	}
}

// headWriter is the writer of a HEAD answer: the status and headers go
// out, the body does not.
type headWriter struct{ gin.ResponseWriter }

func (w *headWriter) Write(p []byte) (int, error) {
	w.WriteHeaderNow()
	return len(p), nil
}

func (w *headWriter) WriteString(s string) (int, error) {
	w.WriteHeaderNow()
	return len(s), nil
}

// ReadFrom ends a streamed download (io.Copy into the writer) without
// reading its source.
func (w *headWriter) ReadFrom(io.Reader) (int64, error) {
	w.WriteHeaderNow()
	return 0, nil
}

// adapt turns a HandlerFunc into a gin handler that renders its error.
func adapt(h kit.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			kit.Fail(c, err)
		}
	}
}

// withRequestState starts the request's state: its id (a caller's
// X-Request-ID when it is a UUID, so that ERP logs correlate; else a fresh
// one) and its locale.
func (s *Server) withRequestState(c *gin.Context) {
	// Every wait of the request on PostgreSQL is bounded, so a server
	// that stops answering yields a 503 rather than a hung request.
	st := kit.Start(c, database.WithTimeout(c.Request.Context(), s.Config.DatabaseTimeout))
	// Spelled as net/http keys it, so the lookup makes no canonical copy.
	st.ID = c.GetHeader("X-Request-Id")
	if st.ID == "" || uuid.Validate(st.ID) != nil {
		st.ID = uuid.NewString()
	}
	st.Locale = i18n.Parse(c.GetHeader("X-Locale"))
	st.BaseURL = s.Config.PublicBaseURL
	h := c.Writer.Header()
	h["X-Request-Id"] = []string{st.ID}
	h["Content-Language"] = contentLanguage[st.Locale]
}

// contentLanguage is each locale's Content-Language value, shared by the
// answers rather than made per request (a Set or Add of the header
// replaces or copies it, never writes into it).
var contentLanguage = func() map[i18n.Locale][]string {
	out := make(map[i18n.Locale][]string, len(i18n.Locales))
	for _, l := range i18n.Locales {
		out[l] = []string{string(l)}
	}
	return out
}()

// logRequest writes one structured line per request, so operators can
// follow a request id from an ERP's log to ours and to the Temporal UI,
// and counts it in the request metrics under its operation id: the
// route's template for the probes and the document, which have none, and
// "unmatched" for a path no route serves, never the raw path, whose ids
// would make a series per record.
func logRequest(c *gin.Context) {
	start := time.Now()
	c.Next()
	elapsed := time.Since(start)
	st := kit.State(c)
	operation := c.FullPath()
	if st.Operation != nil {
		operation = st.Operation.ID
	} else if operation == "" {
		operation = "unmatched"
	}
	telemetry.ObserveRequest(operation, c.Writer.Status(), elapsed)
	logger := slog.Default()
	if !logger.Enabled(c, slog.LevelInfo) {
		return
	}
	// Typed attributes in an array on the stack: the line costs no boxing
	// of its values and no slice of its own.
	var buf [9]slog.Attr
	attrs := append(buf[:0], slog.String("request_id", st.ID), slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path), slog.Int("status", c.Writer.Status()),
		slog.Int64("duration_ms", elapsed.Milliseconds()))
	if st.Operation != nil {
		attrs = append(attrs, slog.String("operation", operation))
	}
	if cred := st.Credential; cred != nil {
		attrs = append(attrs, slog.Any("organization_id", cred.OrganizationID), slog.Any("api_key_id", cred.KeyID))
	}
	logger.LogAttrs(c, slog.LevelInfo, "request", attrs...)
}

// tracer makes the requests' spans; it is the global provider's, a no-op
// unless OTEL_EXPORTER_OTLP_ENDPOINT is set (telemetry.StartTracing).
var tracer = telemetry.Tracer("ppwr/api")

// serverSpan is every request span's kind, made once rather than per
// request.
var serverSpan = trace.WithSpanKind(trace.SpanKindServer)

// traceRequest makes the request a server span, continuing the caller's
// trace when it sends traceparent, named by the operation id once the
// chain has named it (the route's template until then), so that its SQL,
// its recorded workflow starts and their runs are its children.
func traceRequest(c *gin.Context) {
	// Untraced, the span would be a no-op's and the request's copy with
	// it made for nothing.
	if !telemetry.Recording() {
		c.Next()
		return
	}
	ctx := otel.GetTextMapPropagator().Extract(c.Request.Context(), propagation.HeaderCarrier(c.Request.Header))
	ctx, span := tracer.Start(ctx, c.Request.Method+" "+c.FullPath(), serverSpan)
	defer span.End()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
	if !span.IsRecording() {
		return
	}
	status := c.Writer.Status()
	if op := kit.State(c).Operation; op != nil {
		span.SetName(op.ID)
	}
	span.SetAttributes(attribute.String("http.request.method", c.Request.Method), attribute.String("http.route", c.FullPath()),
		attribute.Int("http.response.status_code", status), attribute.String("request_id", kit.State(c).ID))
	if status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
}

func withOperation(op *kit.Operation) gin.HandlerFunc {
	return func(c *gin.Context) { kit.State(c).Operation = op }
}

// recovery answers a panic with the 500 envelope instead of a closed socket.
func recovery(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if r == http.ErrAbortHandler {
				panic(r)
			}
			slog.ErrorContext(c.Request.Context(), "panic", "request_id", kit.State(c).ID, "panic", r, "stack", string(debug.Stack()))
			kit.Render(c, kit.NewProblem(http.StatusInternalServerError, kit.CodeInternal, "error.internal"))
		}
	}()
	c.Next()
}

// authenticate resolves the bearer key, from the credential cache when it
// can: 401 when the key is missing, malformed, unknown or revoked.
func (s *Server) authenticate(c *gin.Context) {
	unauthenticated := func() {
		p := kit.NewProblem(http.StatusUnauthorized, kit.CodeUnauthenticated, "error.unauthenticated")
		p.Headers = map[string]string{"WWW-Authenticate": `Bearer realm="ppwr"`}
		kit.Render(c, p)
	}
	scheme, token, ok := strings.Cut(c.GetHeader("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !accounts.WellFormedToken(token) {
		unauthenticated()
		return
	}
	hash := accounts.HashToken(token)
	cred, err := s.Credentials.Lookup(hash, func() (*access.Credential, error) {
		return accounts.LookupCredential(c.Request.Context(), s.DB, hash)
	})
	if errors.Is(err, accounts.ErrUnknownToken) || (err == nil && cred.Revoked) {
		unauthenticated()
		return
	}
	if err != nil {
		kit.Fail(c, err)
		return
	}
	kit.State(c).Credential = cred
}

// authorize enforces the organization scope (404) and then every condition
// of the spec's rule 3 at once (403). The owner role never bypasses the
// token's abilities.
func authorize(op *kit.Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		cred := kit.Credential(c)
		if op.OrgScoped() {
			if id, err := uuid.Parse(c.Param("organizationId")); err != nil || id != cred.OrganizationID {
				kit.Render(c, kit.NotFound())
				return
			}
		}
		switch {
		case op.Ability != "" && !cred.HasAbility(op.Ability):
			kit.Render(c, kit.Forbidden(kit.CodeMissingAbility))
		case !cred.OrganizationOK:
			kit.Render(c, kit.Forbidden(kit.CodeOrganizationSuspended))
		case !cred.HasMembership || !cred.MembershipActive:
			kit.Render(c, kit.Forbidden(kit.CodeMembershipInactive))
		case !cred.EmailVerified:
			kit.Render(c, kit.Forbidden(kit.CodeEmailUnverified))
		case cred.RequireMFA && !cred.UserMFA:
			kit.Render(c, kit.Forbidden(kit.CodeMFARequired))
		// ClientIP allocates its answer: asked only when there is a list.
		case len(cred.IPAllowList) > 0 && !cred.AllowsIP(c.ClientIP()):
			kit.Render(c, kit.Forbidden(kit.CodeIPNotAllowed))
		case op.Permission != "" && !cred.HasPermission(op.Permission):
			kit.Render(c, kit.Forbidden(kit.CodeMissingPermission))
		}
	}
}

// rateLimit charges the user's general bucket and, for the operations
// that have one, their extra bucket; state is shared by every replica
// through Postgres (internal/ratelimit).
func (s *Server) rateLimit(op *kit.Operation) gin.HandlerFunc {
	type bucket struct {
		suffix    string
		perMinute int
	}
	buckets := []bucket{{"", s.Config.RateLimitPerMinute}}
	if op.Rate == kit.RateRecommendations {
		buckets = append(buckets, bucket{":recommendations", s.Config.RecommendationRateLimitPerMinute})
	}
	return func(c *gin.Context) {
		user := "user:" + kit.Credential(c).UserID.String()
		for _, b := range buckets {
			ok, wait, err := s.limiter.Allow(c.Request.Context(), user+b.suffix, b.perMinute)
			if err != nil {
				kit.Fail(c, err)
				return
			}
			if !ok {
				p := kit.NewProblem(http.StatusTooManyRequests, kit.CodeRateLimited, "error.rate_limited", i18n.Seconds(wait))
				p.Headers = map[string]string{"Retry-After": strconv.Itoa(wait)}
				kit.Render(c, p)
				return
			}
		}
	}
}
