package domain_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/testenv"
)

// progressJob is a job record of the test's own table, with the columns
// migration 0035 gives every job table.
type progressJob struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Status         string
	Progress       domain.Progress `gorm:"embedded"`
}

var jobStages = domain.Stages{domain.StageQueued, "reading", "writing"}

func progressTable(t *testing.T) *gorm.DB {
	t.Helper()
	db := testenv.DB(t)
	require.NoError(t, db.Exec(`CREATE TABLE IF NOT EXISTS progress_jobs (id uuid PRIMARY KEY, organization_id uuid NOT NULL, status text NOT NULL,
		progress_stage text NOT NULL DEFAULT 'queued', progress_done bigint NOT NULL DEFAULT 0 CHECK (progress_done >= 0),
		progress_total bigint CHECK (progress_total >= 0), progress_updated_at timestamptz NOT NULL DEFAULT now())`).Error)
	return db
}

func readJob(t *testing.T, db *gorm.DB, id uuid.UUID) domain.Progress {
	t.Helper()
	var job progressJob
	require.NoError(t, db.Where("id = ?", id).Take(&job).Error)
	return job.Progress
}

// Progress moves forward only, through the stages in order and, within a
// stage, to more done; a write of an earlier stage or of less done (an
// activity retried from the start, batches committed out of order)
// changes nothing, and the last write of a stage leaves done at its total.
func TestProgressNeverDecreasesAndEndsAtTotal(t *testing.T) {
	ctx := context.Background()
	db := progressTable(t)
	job := &progressJob{ID: domain.NewID(), OrganizationID: uuid.New(), Status: "running", Progress: jobStages.Queued()}
	require.NoError(t, db.Create(job).Error)
	assert.Equal(t, "queued", readJob(t, db, job.ID).Stage)

	advance := func(stage string, done int64, total *int64) bool {
		moved, err := jobStages.Advance(ctx, db, &progressJob{}, job.OrganizationID, job.ID, stage, done, total)
		require.NoError(t, err)
		return moved
	}
	assert.True(t, advance("reading", 40, nil))
	assert.False(t, advance("reading", 39, nil), "less done in the same stage")
	assert.False(t, advance(domain.StageQueued, 100, nil), "an earlier stage")
	assert.True(t, advance("reading", 40, domain.Known(40)), "the total becomes known")
	assert.True(t, advance("writing", 0, domain.Known(40)), "a later stage starts from nothing")
	assert.False(t, advance("reading", 40, domain.Known(40)), "never back to an earlier stage")
	p := readJob(t, db, job.ID)
	assert.Equal(t, "writing", p.Stage)
	assert.Equal(t, int64(0), p.Done)

	other, err := jobStages.Advance(ctx, db, &progressJob{}, uuid.New(), job.ID, "writing", 40, domain.Known(40))
	require.NoError(t, err)
	assert.False(t, other, "another organization's job is not found")

	// Many writers, in any order, as the concurrent apply's batches
	// commit: the stored done only grows, and the end is the total.
	tracker := jobStages.Track(db, &progressJob{}, job.OrganizationID, job.ID)
	var wg sync.WaitGroup
	for i := int64(1); i <= 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, tracker.Move(ctx, "writing", i, domain.Known(40)))
		}()
	}
	wg.Wait()
	require.NoError(t, tracker.Reach(ctx, "writing", 40, domain.Known(40)))
	last := readJob(t, db, job.ID)
	assert.Equal(t, int64(40), last.Done)
	assert.Equal(t, int64(40), *last.Total)
	assert.False(t, last.MovedAt.Before(p.MovedAt), "updated_at moves with the progress")

	// A save of the whole record, from a read made before the progress
	// moved, leaves the progress alone.
	stale := &progressJob{ID: job.ID, OrganizationID: job.OrganizationID, Status: "done", Progress: jobStages.Queued()}
	require.NoError(t, db.Save(stale).Error)
	assert.Equal(t, int64(40), readJob(t, db, job.ID).Done)
}
