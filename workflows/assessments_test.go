package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
)

func TestARefreshWaitsOutItsWindowThenMarksOnce(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.Assessments{})
	in := catalog.AssessmentRefreshInput{Org: domain.OrgOf(uuid.New()), ItemID: uuid.New()}
	start := env.Now()
	var calledAt time.Time
	env.OnActivity((*activities.Assessments)(nil).MarkStale, mock.Anything, in).Return(func(context.Context, catalog.AssessmentRefreshInput) (int, error) {
		calledAt = env.Now()
		return 2, nil
	}).Once()
	env.ExecuteWorkflow(AssessmentRefresh, in)
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var marked int
	require.NoError(t, env.GetWorkflowResult(&marked))
	assert.Equal(t, 2, marked)
	assert.GreaterOrEqual(t, calledAt.Sub(start), catalog.RefreshWindow, "changes made within the window are seen together")
	env.AssertExpectations(t)
}

func TestChangesInOneWindowShareARun(t *testing.T) {
	item := uuid.New()
	at := time.Date(2026, 11, 26, 12, 0, 5, 0, time.UTC)
	id := func(at time.Time) string {
		return catalog.AssessmentRefreshWorkflow.ID(catalog.AssessmentRefreshInput{ItemID: item, Window: at})
	}
	assert.Equal(t, id(at), id(at.Add(50*time.Second)))
	assert.NotEqual(t, id(at), id(at.Add(time.Minute)))
	assert.Equal(t, "assessment/"+item.String()+"/refresh/20261126T1200Z", id(at))
}

func TestARunAssessesBatchesUntilNoneIsLeft(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.Assessments{})
	in := assessments.AssessmentRunInput{Org: domain.OrgOf(uuid.New()), RunID: uuid.New()}
	batches := []int{200, 200, 37, 0}
	env.OnActivity((*activities.Assessments)(nil).AssessBatch, mock.Anything, in).Return(func(context.Context, assessments.AssessmentRunInput) (int, error) {
		n := batches[0]
		batches = batches[1:]
		return n, nil
	}).Times(4)
	env.OnActivity((*activities.Assessments)(nil).FinishRun, mock.Anything, in).Return(nil).Once()
	env.ExecuteWorkflow(AssessmentRun, in)
	require.NoError(t, env.GetWorkflowError())
	var total int
	require.NoError(t, env.GetWorkflowResult(&total))
	assert.Equal(t, 437, total)
	env.AssertExpectations(t)
}

func TestALongRunContinuesAsNew(t *testing.T) {
	env := newTestEnv()
	env.RegisterActivity(&activities.Assessments{})
	in := assessments.AssessmentRunInput{Org: domain.OrgOf(uuid.New()), RunID: uuid.New()}
	env.OnActivity((*activities.Assessments)(nil).AssessBatch, mock.Anything, in).Return(1, nil)
	env.ExecuteWorkflow(AssessmentRun, in)
	require.True(t, env.IsWorkflowCompleted())
	var cont *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &cont, "the history stays bounded")
}
