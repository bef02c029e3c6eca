package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"ppwr/internal/temporalclient"
)

// newTestEnv is the SDK's test environment with a deadlock detector sized for
// a loaded CI machine: under -race on two cores a workflow task can stall past
// the SDK's one-second default while the code holds no lock at all. A real
// deadlock still fails the test, only later.
func newTestEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: time.Minute})
	return env
}

// outcomes collects the Outcome search attribute values env's run sets,
// in order: a run sets exactly one, as it ends its job.
func outcomes(env *testsuite.TestWorkflowEnvironment) *[]string {
	set := &[]string{}
	env.OnUpsertTypedSearchAttributes(mock.Anything).Run(func(args mock.Arguments) {
		if v, ok := args.Get(0).(temporal.SearchAttributes).GetKeyword(temporalclient.Outcome); ok {
			*set = append(*set, v)
		}
	}).Return(nil).Maybe()
	return set
}

// requireReplays replays the recorded history file of testdata (its
// README says how each was made) with the workflow fn registered as typ:
// a change to fn that would break the runs of that history still open
// when it is deployed fails here.
func requireReplays(t *testing.T, fn any, typ, file string) {
	t.Helper()
	replayer := worker.NewWorkflowReplayer()
	replayer.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: typ})
	require.NoError(t, replayer.ReplayWorkflowHistoryFromJSONFile(nil, "testdata/"+file))
}
