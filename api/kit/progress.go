package kit

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// PollSeconds is the Retry-After of every 202 and of every read of a job
// still running: a job's progress moves at least once a second while it
// works, so a client reading every two seconds sees it move without
// reading twice what did not change. Fixed, so clients may rely on it.
const PollSeconds = 2

// Progress is a job's progress as answered; a job's answer holds it as
// "progress" and declares its stages with s.Enum("progress.stage", …).
type Progress struct {
	Stage     string    `json:"stage" schema:"desc=progress.stage"`
	Done      int64     `json:"done" schema:"min=0,desc=progress.done"`
	Total     *int64    `json:"total" schema:"min=0,desc=progress.total"`
	UpdatedAt time.Time `json:"updated_at" schema:"desc=progress.updated_at"`
}

// ProgressOf renders a job's stored progress.
func ProgressOf(p domain.Progress) Progress {
	return Progress{Stage: p.Stage, Done: p.Done, Total: p.Total, UpdatedAt: p.MovedAt.UTC()}
}

// ExampleAt is when the document's examples happen.
var ExampleAt = time.Date(2026, time.March, 2, 9, 30, 0, 0, time.UTC)

// ExampleProgress is the progress of a running job in the document's
// examples: done of total (nil while unknown) at stage, moved at
// ExampleAt.
func ExampleProgress(stage string, done int64, total *int64) Progress {
	return Progress{Stage: stage, Done: done, Total: total, UpdatedAt: ExampleAt}
}

// Job is a record of long-running work that clients poll.
type Job interface {
	// Running reports whether the work goes on by itself, so a new read
	// may answer something else.
	Running() bool
}

// pollHeader documents the Retry-After of a job's answer.
var pollHeader = Param{Name: "Retry-After", Schema: Schema{"type": "integer", "const": PollSeconds}, DescKey: "header.poll_after"}

// Polled documents an answer of a job, which carries Retry-After while
// the job runs: a read of it (ShowJob), or its create (CreatedJob).
func (r Response) Polled() Response {
	r.Headers = append(append([]Param(nil), r.Headers...), pollHeader)
	return r
}

// pollAfter asks the client to read the job again in PollSeconds.
func pollAfter(c *gin.Context) { c.Header("Retry-After", strconv.Itoa(PollSeconds)) }

// Poll asks the client to read job again in PollSeconds while it runs,
// for a read that answers a job otherwise than ShowJob does.
func Poll(c *gin.Context, job Job) {
	if job.Running() {
		pollAfter(c)
	}
}

// Accepted answers 202 with body: the work was queued, and the record
// body names is read again in PollSeconds.
func Accepted(c *gin.Context, body any) error {
	pollAfter(c)
	c.JSON(http.StatusAccepted, body)
	return nil
}

// CreatedJob is Created of a record whose work starts with it: while the
// work runs, the answer carries Retry-After, as a read of the record
// would (ShowJob); a job already final is not polled.
func CreatedJob(c *gin.Context, id uuid.UUID, job Job, body any) error {
	Poll(c, job)
	return Created(c, id, body)
}

// ShowJob is ShowChecked of a job: while it runs, the answer carries
// Retry-After.
func ShowJob[T any, PT interface {
	*T
	Job
}, R any](c *gin.Context, db *gorm.DB, param string, render func(*T) (R, error)) error {
	return ShowChecked(c, db, param, func(row *T) (R, error) {
		Poll(c, PT(row))
		return render(row)
	})
}
