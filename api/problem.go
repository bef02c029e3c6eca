package api

import (
	"errors"
	"fmt"
	"net/http"
	"sort"

	"github.com/gin-gonic/gin"
	"gorm.io/gorm"

	"ppwr/internal/i18n"
	"ppwr/models"
)

// Problem is an error with everything needed to render the error envelope:
// the HTTP status, a stable snake_case code and a message key that is
// localized only when rendered, so the same Problem serves pl and en.
type Problem struct {
	Status  int
	Code    string
	Key     string
	Args    []any
	Fields  []FieldError
	Headers map[string]string
}

// FieldError is one message about one request field.
type FieldError struct {
	Field string
	Key   string
	Args  []any
}

func (p *Problem) Error() string { return fmt.Sprintf("%d %s", p.Status, p.Code) }

// Stable error codes. Clients branch on these, never on messages.
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
	CodeNotImplemented        = "not_implemented"
	CodeInternal              = "internal_error"
	CodeItemArchived          = "item_archived"
	CodeFolderNotEmpty        = "folder_not_empty"
)

// ErrorCodes lists every code with its status, for the OpenAPI document.
var ErrorCodes = []struct {
	Code   string
	Status int
}{
	{CodeUnauthenticated, http.StatusUnauthorized},
	{CodeMissingAbility, http.StatusForbidden},
	{CodeMissingPermission, http.StatusForbidden},
	{CodeMembershipInactive, http.StatusForbidden},
	{CodeEmailUnverified, http.StatusForbidden},
	{CodeMFARequired, http.StatusForbidden},
	{CodeIPNotAllowed, http.StatusForbidden},
	{CodeOrganizationSuspended, http.StatusForbidden},
	{CodeNotFound, http.StatusNotFound},
	{CodeMethodNotAllowed, http.StatusMethodNotAllowed},
	{CodeIdempotencyKeyReused, http.StatusConflict},
	{CodeRevisionConflict, http.StatusConflict},
	{CodeRequestTooLarge, http.StatusRequestEntityTooLarge},
	{CodeValidationFailed, http.StatusUnprocessableEntity},
	{CodeInvalidJSON, http.StatusUnprocessableEntity},
	{CodeIdempotencyKeyInvalid, http.StatusUnprocessableEntity},
	{CodeItemArchived, http.StatusUnprocessableEntity},
	{CodeFolderNotEmpty, http.StatusUnprocessableEntity},
	{CodePreconditionRequired, http.StatusPreconditionRequired},
	{CodeRateLimited, http.StatusTooManyRequests},
	{CodeInternal, http.StatusInternalServerError},
	{CodeNotImplemented, http.StatusNotImplemented},
}

func newProblem(status int, code, key string, args ...any) *Problem {
	return &Problem{Status: status, Code: code, Key: key, Args: args}
}

// NotFound hides whether a record exists in another organization.
func NotFound() *Problem {
	return newProblem(http.StatusNotFound, CodeNotFound, "error.not_found")
}

// Invalid is a 422 naming each bad field.
func Invalid(fields ...FieldError) *Problem {
	p := newProblem(http.StatusUnprocessableEntity, CodeValidationFailed, "error.validation_failed")
	p.Fields = fields
	return p
}

// Field builds a FieldError.
func Field(name, key string, args ...any) FieldError {
	return FieldError{Field: name, Key: key, Args: args}
}

// RevisionConflict is the 409 of a stale revision or ETag.
func RevisionConflict() *Problem {
	return newProblem(http.StatusConflict, CodeRevisionConflict, "error.revision_conflict")
}

// fromModel maps the models' sentinel errors onto problems, leaving other
// errors for the 500 path.
func fromModel(err error) error {
	switch {
	case errors.Is(err, models.ErrNotFound), errors.Is(err, gorm.ErrRecordNotFound):
		return NotFound()
	case errors.Is(err, models.ErrRevisionConflict):
		return RevisionConflict()
	}
	return err
}

// Forbidden is a 403 with a specific code.
func Forbidden(code string) *Problem {
	return newProblem(http.StatusForbidden, code, "error."+code)
}

// errorBody is the error envelope.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code      string              `json:"code"`
	Message   string              `json:"message"`
	Fields    map[string][]string `json:"fields"`
	RequestID string              `json:"requestId"`
}

// render writes p as the error envelope in the request's locale.
func render(c *gin.Context, p *Problem) {
	loc := localeOf(c)
	fields := map[string][]string{}
	for _, f := range p.Fields {
		fields[f.Field] = append(fields[f.Field], i18n.T(loc, f.Key, f.Args...))
	}
	for _, msgs := range fields {
		sort.Strings(msgs)
	}
	for k, v := range p.Headers {
		c.Header(k, v)
	}
	c.AbortWithStatusJSON(p.Status, errorBody{Error: errorDetail{
		Code:      p.Code,
		Message:   i18n.T(loc, p.Key, p.Args...),
		Fields:    fields,
		RequestID: requestIDOf(c),
	}})
}
