package kit

import (
	"context"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/work"
)

// Request is the pipeline's state of one request: one typed value on the
// gin context, filled as the request passes the pipeline's steps.
type Request struct {
	ID         string
	Locale     i18n.Locale
	Operation  *Operation
	Credential *access.Credential // nil before authentication
	Work       *work.Unit         // writes only
	Body       []byte             // the JSON body, read once by the pipeline
	// Form is the fingerprint of a multipart form that ReadUpload read
	// whole (formFingerprint); the pipeline fingerprints an upload by it as
	// it does a JSON write by its Body. Nil until the form is read whole.
	Form []byte
	// AnswerStored is set by the pipeline when an upload's Idempotency-Key
	// has a stored answer: ReadUpload then reads the form only to
	// fingerprint it, storing nothing, and the pipeline replays the stored
	// answer or refuses the key's reuse.
	AnswerStored bool
	BaseURL      string // the API's external base URL, for links
	page         page
	upload       *Upload // the form's stored file, until the write commits
}

// stateKey keys the request's state on its context.
type stateKey struct{}

// Start gives the request a new state on ctx, a context of its own: the
// pipeline's first step. The state lives on the request's context, where
// State finds it without the lock and the map of gin's keys, which every
// step of the pipeline consulted.
func Start(c *gin.Context, ctx context.Context) *Request {
	r := &Request{Locale: i18n.Default}
	c.Request = c.Request.WithContext(context.WithValue(ctx, stateKey{}, r))
	return r
}

// State is the request's state; every request has one from its first
// middleware on.
func State(c *gin.Context) *Request {
	if r, ok := c.Request.Context().Value(stateKey{}).(*Request); ok {
		return r
	}
	return Start(c, c.Request.Context())
}

// Credential is the authenticated key's credential.
func Credential(c *gin.Context) *access.Credential { return State(c).Credential }

// OrgID is the organization of the request's key.
func OrgID(c *gin.Context) uuid.UUID { return State(c).Credential.OrganizationID }

// Work is the write's unit of work.
func Work(c *gin.Context) *work.Unit { return State(c).Work }

// PathID parses a path id; a malformed one is simply not found.
func PathID(c *gin.Context, name string) (uuid.UUID, error) {
	id, err := uuid.Parse(c.Param(name))
	if err != nil || len(c.Param(name)) != 36 {
		return uuid.Nil, NotFound()
	}
	return id, nil
}
