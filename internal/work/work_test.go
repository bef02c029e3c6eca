package work_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
