package kit

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"

	"github.com/gin-gonic/gin"

	"ppwr/domain"
	"ppwr/internal/bound"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

// Problem is an error with everything needed to render the error envelope:
// the HTTP status, a stable snake_case code and a message key that is
// localized only when rendered, so the same Problem serves pl and en.
type Problem struct {
	Status  int
	Code    string
	Key     string
	Args    []any
	Fields  []input.FieldError
	Headers map[string]string
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s", p.Status, p.Code) }

// Code is a stable error code with the status it is answered with and the
// response headers sent with it (Retry-After), for the OpenAPI document:
// each operation documents the codes its row implies and those it
// declares with Answers.
type Code struct {
	Code    string
	Status  int
	Headers []string
}

// Codes every area may answer.
const (
	CodeUnauthenticated       = "unauthenticated"
	CodeMissingAbility        = "missing_ability"
	CodeMissingPermission     = "missing_permission"
	CodeMembershipInactive    = "membership_inactive"
	CodeEmailUnverified       = "email_unverified"
	CodeMFARequired           = "mfa_required"
	CodeIPNotAllowed          = "ip_not_allowed"
	CodeOrganizationSuspended = "organization_suspended"
	CodeNotFound              = "not_found"
	CodeMethodNotAllowed      = "method_not_allowed"
	CodeValidationFailed      = "validation_failed"
	CodeInvalidJSON           = "invalid_json"
	CodeIdempotencyKeyInvalid = "idempotency_key_invalid"
	CodeIdempotencyKeyReused  = "idempotency_key_reused"
	CodeRevisionConflict      = "revision_conflict"
	CodePreconditionRequired  = "precondition_required"
	CodeRateLimited           = "rate_limited"
	CodeRequestTooLarge       = "request_too_large"
	CodeUnsupportedMediaType  = "unsupported_media_type"
	CodeInternal              = "internal_error"
	CodeServiceUnavailable    = "service_unavailable"
)

// unavailableRetryAfter is the Retry-After, in seconds, of a request a
// backing service failed: long enough for a restarted service to come
// back, short enough that a client does not wait on a healthy one.
const unavailableRetryAfter = "5"

// CommonCodes are the codes of the pipeline and the kernel, each with the
// one status it is answered with.
var CommonCodes = []Code{
	{CodeUnauthenticated, http.StatusUnauthorized, []string{"WWW-Authenticate"}},
	{CodeMissingAbility, http.StatusForbidden, nil},
	{CodeMissingPermission, http.StatusForbidden, nil},
	{CodeMembershipInactive, http.StatusForbidden, nil},
	{CodeEmailUnverified, http.StatusForbidden, nil},
	{CodeMFARequired, http.StatusForbidden, nil},
	{CodeIPNotAllowed, http.StatusForbidden, nil},
	{CodeOrganizationSuspended, http.StatusForbidden, nil},
	{CodeNotFound, http.StatusNotFound, nil},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed, []string{"Allow"}},
	{CodeIdempotencyKeyReused, http.StatusConflict, nil},
	{CodeRevisionConflict, http.StatusConflict, nil},
	{CodeRequestTooLarge, http.StatusRequestEntityTooLarge, nil},
	{CodeUnsupportedMediaType, http.StatusUnsupportedMediaType, nil},
	{CodeValidationFailed, http.StatusUnprocessableEntity, nil},
	{CodeInvalidJSON, http.StatusUnprocessableEntity, nil},
	{CodeIdempotencyKeyInvalid, http.StatusUnprocessableEntity, nil},
	{CodePreconditionRequired, http.StatusPreconditionRequired, nil},
	{CodeRateLimited, http.StatusTooManyRequests, []string{"Retry-After"}},
	{CodeInternal, http.StatusInternalServerError, nil},
	{CodeServiceUnavailable, http.StatusServiceUnavailable, []string{"Retry-After"}},
}

// CommonOf are the kernel's codes with the given names.
func CommonOf(names ...string) []Code {
	out := make([]Code, len(names))
	for i, name := range names {
		j := slices.IndexFunc(CommonCodes, func(c Code) bool { return c.Code == name })
		if j < 0 {
			panic("kit: no common code " + name)
		}
		out[i] = CommonCodes[j]
	}
	return out
}

// CodeOf is the code an error is answered with: its problem's code,
// status and headers, so a row declares the domain error it may return
// and the document cannot give it another status.
func CodeOf(err error) Code {
	p := ProblemOf(err)
	if p == nil {
		panic(fmt.Sprintf("kit: %v is answered as a server error, not a code", err))
	}
	headers := make([]string, 0, len(p.Headers))
	for h := range p.Headers {
		headers = append(headers, h)
	}
	sort.Strings(headers)
	return Code{Code: p.Code, Status: p.Status, Headers: headers}
}

// NewProblem builds a problem.
func NewProblem(status int, code, key string, args ...any) *Problem {
	return &Problem{Status: status, Code: code, Key: key, Args: args}
}

// NotFound hides whether a record exists in another organization.
func NotFound() *Problem { return NewProblem(http.StatusNotFound, CodeNotFound, "error.not_found") }

// Invalid is a 422 naming each bad field.
func Invalid(fields ...input.FieldError) *Problem {
	p := NewProblem(http.StatusUnprocessableEntity, CodeValidationFailed, "error.validation_failed")
	p.Fields = fields
	return p
}

// Field builds a field error.
func Field(name, key string, args ...any) input.FieldError {
	return input.FieldError{Field: name, Key: key, Args: args}
}

// Forbidden is a 403 with a specific code.
func Forbidden(code string) *Problem { return NewProblem(http.StatusForbidden, code, "error."+code) }

// ProblemOf maps an error onto its problem: a Problem as itself, the
// domain's errors (through domain.FromDatabase for the database's) onto
// their statuses, and anything else onto nil, a server error.
func ProblemOf(err error) *Problem {
	var p *Problem
	if errors.As(err, &p) {
		return p
	}
	err = domain.FromDatabase(err)
	var invalid *input.Invalid
	var rule *domain.RuleError
	var conflict *domain.ConflictError
	var forbidden *domain.ForbiddenError
	var unavailable *bound.UnavailableError
	switch {
	case errors.As(err, &unavailable):
		// Every wait on a backing service is bounded (internal/bound);
		// whatever the request had done rolls back with its unit of work,
		// and nothing is stored for its Idempotency-Key, so the client
		// retries the same request once the service is back.
		p := NewProblem(http.StatusServiceUnavailable, CodeServiceUnavailable, "error.service_unavailable", unavailable.Service, unavailableRetryAfter)
		p.Headers = map[string]string{"Retry-After": unavailableRetryAfter}
		return p
	case errors.As(err, &invalid):
		return Invalid(invalid.Fields...)
	case errors.As(err, &rule):
		p := NewProblem(http.StatusUnprocessableEntity, rule.Code, rule.Key)
		p.Fields = rule.Fields
		return p
	case errors.As(err, &conflict):
		return NewProblem(http.StatusConflict, conflict.Code, conflict.Key)
	case errors.As(err, &forbidden):
		return NewProblem(http.StatusForbidden, forbidden.Code, forbidden.Key)
	case errors.Is(err, domain.ErrNotFound):
		return NotFound()
	case errors.Is(err, domain.ErrRevisionConflict):
		return NewProblem(http.StatusConflict, CodeRevisionConflict, "error.revision_conflict")
	}
	return nil
}

// Fail renders err: its problem, or a logged 500 that reveals nothing
// internal.
func Fail(c *gin.Context, err error) {
	if p := ProblemOf(err); p != nil {
		Render(c, p)
		return
	}
	logFailure(c, err)
	Render(c, NewProblem(http.StatusInternalServerError, CodeInternal, "error.internal"))
}

// AbortStream ends on err a download whose status and first part went
// out already (one streamed page by page): no error can be answered any
// more, so err is logged and the connection cut, and the client sees an
// incomplete transfer rather than a file that looks complete.
func AbortStream(c *gin.Context, err error) {
	logFailure(c, err)
	panic(http.ErrAbortHandler)
}

func logFailure(c *gin.Context, err error) {
	slog.ErrorContext(c.Request.Context(), "request failed", "request_id", State(c).ID, "path", c.FullPath(), "error", err)
}

// errorBody is the error envelope.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code      string              `json:"code"`
	Message   string              `json:"message"`
	Fields    map[string][]string `json:"fields"`
	RequestID string              `json:"requestId" schema:"uuid"`
}

// Render writes p as the error envelope in the request's locale.
func Render(c *gin.Context, p *Problem) {
	st := State(c)
	fields := map[string][]string{}
	for _, f := range p.Fields {
		fields[f.Field] = append(fields[f.Field], i18n.T(st.Locale, f.Key, f.Args...))
	}
	for _, msgs := range fields {
		sort.Strings(msgs)
	}
	for k, v := range p.Headers {
		c.Header(k, v)
	}
	c.AbortWithStatusJSON(p.Status, errorBody{Error: errorDetail{
		Code:      p.Code,
		Message:   i18n.T(st.Locale, p.Key, p.Args...),
		Fields:    fields,
		RequestID: st.ID,
	}})
}
