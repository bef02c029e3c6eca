package kit

import (
	"context"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"go.temporal.io/sdk/client"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/config"
	"ppwr/internal/i18n"
	"ppwr/internal/storage"
	"ppwr/internal/work"
)

// Deps are the service's connections, shared by every area's handlers.
type Deps struct {
	Config   config.Config
	DB       *gorm.DB
	Temporal client.Client
	Storage  *storage.Store
}

// Show answers the organization's record of type T named by the path
// parameter param.
func Show[T any, R any](c *gin.Context, db *gorm.DB, param string, render func(*T) R) error {
	return ShowChecked(c, db, param, Infallible(render))
}

// ShowChecked is Show of a record whose rendering can fail, as a stored
// value that does not decode does (see EachRow).
func ShowChecked[T any, R any](c *gin.Context, db *gorm.DB, param string, render func(*T) (R, error)) error {
	id, err := PathID(c, param)
	if err != nil {
		return err
	}
	row, err := domain.Find[T](c.Request.Context(), db, OrgID(c), id)
	if err != nil {
		return err
	}
	body, err := render(row)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, body)
	return nil
}

// ShowOf answers the organization's record named by the path parameter
// param that belongs to the record the path parameter parent names, as
// find reads it: a record under another parent is not found.
func ShowOf[T any, R any](c *gin.Context, db *gorm.DB, parent, param string,
	find func(ctx context.Context, db *gorm.DB, orgID, parentID, id uuid.UUID) (*T, error), render func(*T) R) error {
	parentID, err := PathID(c, parent)
	if err != nil {
		return err
	}
	id, err := PathID(c, param)
	if err != nil {
		return err
	}
	row, err := find(c.Request.Context(), db, OrgID(c), parentID, id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, render(row))
	return nil
}

// Created answers 201 with a new record and its Location.
func Created(c *gin.Context, id uuid.UUID, body any) error {
	c.Header("Location", Location(c, id))
	c.JSON(http.StatusCreated, body)
	return nil
}

// ETag is the entity tag of a revision: the revision, quoted.
func ETag(revision int) string { return `"` + strconv.Itoa(revision) + `"` }

// IfMatchHeader documents the If-Match precondition of a write that
// reads it with IfMatch; such a row answers 428 and 409 revision_conflict.
var IfMatchHeader = Param{Name: "If-Match", Required: true, Schema: Str(), DescKey: "param.if_match"}

// IfMatch reads the If-Match precondition of a write: 428 when it is
// missing; "*" matches any revision (RFC 9110); otherwise the revisions of
// the strong entity tags listed. A weak or foreign tag matches nothing.
func IfMatch(c *gin.Context) (domain.Expected, error) {
	header := strings.TrimSpace(c.GetHeader("If-Match"))
	if header == "" {
		return domain.Expected{}, NewProblem(http.StatusPreconditionRequired, CodePreconditionRequired, "error.precondition_required")
	}
	if header == "*" {
		return domain.Expected{Any: true}, nil
	}
	var out domain.Expected
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if len(tag) < 2 || tag[0] != '"' || tag[len(tag)-1] != '"' {
			continue
		}
		if n, err := strconv.Atoi(tag[1 : len(tag)-1]); err == nil {
			out.Revisions = append(out.Revisions, n)
		}
	}
	return out, nil
}

// UTC is an optional time in UTC, as answers give times.
func UTC(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Day is an optional date as YYYY-MM-DD.
func Day(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

// CodeFileNotReady answers a download asked for before the workflow that
// builds the file finished; the rows of such downloads declare it with
// Answers(FileNotReady("")).
const CodeFileNotReady = "file_not_ready"

// fileRetrySeconds is how long a download of a file being built is asked
// to wait: building one takes seconds.
const fileRetrySeconds = 5

// FileNotReady is the 409 of such a download, with the file's state and
// how long to wait.
func FileNotReady(state string) *Problem {
	p := NewProblem(http.StatusConflict, CodeFileNotReady, "error.file_not_ready", state, i18n.Seconds(fileRetrySeconds))
	p.Headers = map[string]string{"Retry-After": strconv.Itoa(fileRetrySeconds)}
	return p
}

// Attachment streams an object of the store as a download named name.
func Attachment(c *gin.Context, store *storage.Store, key, name, contentType string) error {
	obj, err := store.Get(c.Request.Context(), key)
	if err != nil {
		return err
	}
	defer obj.Body.Close()
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	c.DataFromReader(http.StatusOK, obj.Size, contentType, obj.Body, nil)
	return nil
}

// Change is the handler of a command on the record a path parameter
// names: it runs the command in the request's unit of work and answers
// 200 with the changed record rendered.
func Change[B any, T any, R any](param string, command func(*work.Unit, uuid.UUID, B) (*T, error), render func(*T) R) func(*gin.Context, B) error {
	return func(c *gin.Context, in B) error {
		id, err := PathID(c, param)
		if err != nil {
			return err
		}
		row, err := command(Work(c), id, in)
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, render(row))
		return nil
	}
}
