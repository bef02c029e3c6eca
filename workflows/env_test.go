package workflows

import (
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

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
