package workflows

import (
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
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
