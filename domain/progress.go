package domain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// Progress is how far a long job has come, as its record keeps it: the
// stage it is at, the units done of the stage's total (nil while the
// total is unknown, such as the rows of a file still being read) and
// when it last moved. A job record embeds it (gorm "embedded"). Its
// columns are written when the record is created and afterwards only by
// Stages.Advance, so a Save of the record, from a read made before an
// activity moved the progress, cannot move it back. A record created
// without one starts queued (the columns' defaults).
type Progress struct {
	Stage string `gorm:"column:progress_stage;<-:create;default:queued"`
	Done  int64  `gorm:"column:progress_done;<-:create"`
	Total *int64 `gorm:"column:progress_total;<-:create"`
	// MovedAt is not named UpdatedAt, which gorm would take for the
	// record's own.
	MovedAt time.Time `gorm:"column:progress_updated_at;<-:create;default:now()"`
}

// StageQueued is every job's first stage: recorded, not yet picked up.
const StageQueued = "queued"

// Stages are a job's progress stages in the order the job passes them,
// the first StageQueued. Progress moves forward in this order only.
type Stages []string

// Queued is the progress of a job just recorded.
func (s Stages) Queued() Progress {
	return Progress{Stage: s[0], MovedAt: Now()}
}

// rank is the position of stage in the job's order; a stage the job does
// not declare is a programming error.
func (s Stages) rank(stage string) int {
	i := slices.Index(s, stage)
	if i < 0 {
		panic(fmt.Sprintf("domain: progress stage %q is not one of %v", stage, s))
	}
	return i + 1
}

// Advance moves the progress of the organization's job record id (of
// model, such as &imports.Import{}) to done of total at stage, in db
// (a transaction or not). It never moves backwards: the row changes
// only when stage comes later in stages than the stored stage, or is
// the same with at least as much done, so a retried activity that starts
// over, or batches committed out of order, leave the furthest progress
// stored. It reports whether the row changed.
func (s Stages) Advance(ctx context.Context, db *gorm.DB, model any, org, id uuid.UUID, stage string, done int64, total *int64) (bool, error) {
	rank := s.rank(stage)
	stmt := &gorm.Statement{DB: db}
	if err := stmt.Parse(model); err != nil {
		return false, err
	}
	// Raw: gorm writes no column of Progress on an update ("<-:create").
	// Stage names hold no comma, so the order passes as one parameter.
	res := db.WithContext(ctx).Exec(`UPDATE `+stmt.Quote(stmt.Schema.Table)+`
		SET progress_stage = ?, progress_done = ?, progress_total = ?, progress_updated_at = ?
		WHERE organization_id = ? AND id = ?
		AND (array_position(string_to_array(?, ','), progress_stage), progress_done) <= (?, ?)`,
		stage, done, total, Now(), org, id, strings.Join(s, ","), rank, done)
	return res.RowsAffected > 0, res.Error
}

// End records that stage ended with all its n units done. Pass the
// transaction that records the job's outcome, so that no read sees the
// outcome before the progress that led to it.
func (s Stages) End(ctx context.Context, db *gorm.DB, model any, org, id uuid.UUID, stage string, n int64) error {
	_, err := s.Advance(ctx, db, model, org, id, stage, n, Known(n))
	return err
}

// progressEvery is how often a ProgressTracker writes while work moves:
// twice a second, so a client reading every second sees it move, while a
// loop over thousands of rows writes twice a second, not per row.
const progressEvery = 500 * time.Millisecond

// ProgressTracker advances one job's progress as an activity works,
// writing at most every progressEvery within a stage; safe for use by
// several goroutines. A job's activities make one per run of work.
type ProgressTracker struct {
	db      *gorm.DB
	model   any
	org, id uuid.UUID
	stages  Stages

	mu      sync.Mutex
	stage   string
	written time.Time
}

// Track is the tracker of the organization's job record id of model.
func (s Stages) Track(db *gorm.DB, model any, org, id uuid.UUID) *ProgressTracker {
	return &ProgressTracker{db: db, model: model, org: org, id: id, stages: s}
}

// Move records done of total at stage when the stage changed or
// progressEvery passed since the last write; otherwise it writes nothing.
func (t *ProgressTracker) Move(ctx context.Context, stage string, done int64, total *int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if stage == t.stage && time.Since(t.written) < progressEvery {
		return nil
	}
	return t.write(ctx, stage, done, total)
}

// Reach records done of total at stage whatever the time: the end of a
// stage, which a client must see as it is.
func (t *ProgressTracker) Reach(ctx context.Context, stage string, done int64, total *int64) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.write(ctx, stage, done, total)
}

func (t *ProgressTracker) write(ctx context.Context, stage string, done int64, total *int64) error {
	if _, err := t.stages.Advance(ctx, t.db, t.model, t.org, t.id, stage, done, total); err != nil {
		return err
	}
	t.stage, t.written = stage, time.Now()
	return nil
}

// Known is a total that is known: n.
func Known(n int64) *int64 { return &n }
