package workflows

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/bdo"
)

func TestARenderIsRetriedUntilItSucceeds(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.BDO{})
	in := bdo.BDOReportInput{Org: domain.OrgOf(uuid.New()), ReportID: uuid.New()}
	attempts := 0
	env.OnActivity((*activities.BDO)(nil).RenderBDOReport, mock.Anything, in).Return(func(context.Context, bdo.BDOReportInput) error {
		attempts++
		if attempts < 3 {
			return errors.New("object store unavailable")
		}
		return nil
	})
	set := outcomes(env)
	env.ExecuteWorkflow(BDOReport, in)
	require.NoError(t, env.GetWorkflowError())
	assert.Equal(t, 3, attempts)
	assert.Equal(t, []string{OutcomeCompleted}, *set, "retried attempts are no outcome")
}

func TestARenderThatGivesUpMarksTheExportsFailed(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.BDO{})
	in := bdo.BDOReportInput{Org: domain.OrgOf(uuid.New()), ReportID: uuid.New()}
	env.OnActivity((*activities.BDO)(nil).RenderBDOReport, mock.Anything, in).Return(errors.New("disk full"))
	env.OnActivity((*activities.BDO)(nil).FailBDOExport, mock.Anything, in, mock.Anything).Return(nil).Once()
	set := outcomes(env)
	env.ExecuteWorkflow(BDOReport, in)
	require.Error(t, env.GetWorkflowError())
	assert.Equal(t, []string{OutcomeFailed}, *set)
	env.AssertExpectations(t)
}
