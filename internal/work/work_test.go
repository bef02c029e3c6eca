package work_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

func TestMain(m *testing.M) { testenv.Main(m) }

type note struct {
	ID   uuid.UUID `gorm:"type:uuid;primaryKey"`
	Body string
}

// A unit's transaction writes and its deferred rows commit together, or
// not at all.
func TestUnitCommitsOrRollsBackTogether(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec("CREATE TABLE notes (id uuid PRIMARY KEY, body text NOT NULL)").Error)
	count := func() (n int64) {
		require.NoError(t, db.Model(&note{}).Count(&n).Error)
		return n
	}
	actor := work.Actor{Kind: work.ActorSystem, OrganizationID: uuid.New(), Reference: "test"}

	w := work.New(context.Background(), db, actor)
	require.NoError(t, w.Tx().Create(&note{ID: uuid.New(), Body: "in the transaction"}).Error)
	require.NoError(t, w.Defer(&note{ID: uuid.New(), Body: "deferred"}))
	assert.Zero(t, count(), "nothing is visible before commit")
	require.NoError(t, w.Commit(&note{ID: uuid.New(), Body: "with the commit"}))
	assert.Equal(t, int64(3), count())

	w = work.New(context.Background(), db, actor)
	require.NoError(t, w.Tx().Create(&note{ID: uuid.New(), Body: "rolled back"}).Error)
	require.NoError(t, w.Defer(&note{ID: uuid.New(), Body: "dropped"}))
	w.Rollback()
	assert.Equal(t, int64(3), count())

	// A failing deferred row takes the transaction's writes with it.
	dup := uuid.New()
	w = work.New(context.Background(), db, actor)
	require.NoError(t, w.Tx().Create(&note{ID: dup, Body: "first"}).Error)
	require.NoError(t, w.Defer(&note{ID: dup, Body: "duplicate"}))
	assert.Error(t, w.Commit())
	assert.Equal(t, int64(3), count())

	// A unit that never needed a transaction commits its rows in one statement.
	w = work.New(context.Background(), db, actor)
	require.NoError(t, w.Commit(&note{ID: uuid.New(), Body: "alone"}))
	assert.Equal(t, int64(4), count())
	w.Touch("note", dup)
	assert.Equal(t, &work.Record{Type: "note", ID: dup}, w.Touched())
	assert.Equal(t, actor.OrganizationID, w.Organization())
}

// A last step runs after the deferred writes, in the transaction, so it
// sees them; its error rolls the whole unit back and is Commit's.
func TestUnitRunsItsLastStepsAfterTheDeferredWrites(t *testing.T) {
	db := testenv.DB(t)
	require.NoError(t, db.Exec("CREATE TABLE tallies (id uuid PRIMARY KEY, body text NOT NULL)").Error)
	actor := work.Actor{Kind: work.ActorSystem, OrganizationID: uuid.New(), Reference: "test"}
	count := func(q *gorm.DB) (n int64) {
		require.NoError(t, q.Table("tallies").Count(&n).Error)
		return n
	}

	w := work.New(context.Background(), db, actor)
	w.DeferExec("INSERT INTO tallies (id, body) VALUES ($1, $2)", uuid.New(), "deferred")
	var seen int64
	w.Last(func(tx *gorm.DB) error {
		seen = count(tx)
		return nil
	})
	require.NoError(t, w.Commit())
	assert.Equal(t, int64(1), seen, "the last step sees the deferred write")
	assert.Equal(t, int64(1), count(db))

	refused := errors.New("refused")
	w = work.New(context.Background(), db, actor)
	w.DeferExec("INSERT INTO tallies (id, body) VALUES ($1, $2)", uuid.New(), "rolled back")
	w.Last(func(*gorm.DB) error { return refused })
	assert.ErrorIs(t, w.Commit(), refused)
	assert.Equal(t, int64(1), count(db), "nothing of the unit is written")

	// A rolled-back unit forgets its last steps.
	w = work.New(context.Background(), db, actor)
	w.Last(func(*gorm.DB) error { return refused })
	w.Rollback()
	require.NoError(t, w.Commit())
}
