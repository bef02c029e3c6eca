package database_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/gorm"

	"ppwr/internal/database"
	"ppwr/internal/testenv"
)

// A query planned for its values leaves the transaction's setting as it
// found it: the default, or PlanForValues' for the whole transaction.
func TestPlannedForValuesRestoresTheTransactionsSetting(t *testing.T) {
	db := testenv.DB(t)
	setting := func(tx *gorm.DB) string {
		var v string
		require.NoError(t, tx.Raw("SELECT current_setting('plan_cache_mode')").Scan(&v).Error)
		return v
	}
	rollback := errors.New("roll back")
	for _, whole := range []bool{false, true} {
		err := db.Transaction(func(tx *gorm.DB) error {
			if whole {
				require.NoError(t, database.PlanForValues(tx))
			}
			before := setting(tx)
			require.NoError(t, database.PlannedForValues(tx, func() error {
				assert.Equal(t, "force_custom_plan", setting(tx))
				return nil
			}))
			assert.Equal(t, before, setting(tx))
			return rollback
		})
		require.ErrorIs(t, err, rollback)
	}
	assert.Equal(t, "auto", setting(db), "SET LOCAL ends with the transaction")
}
