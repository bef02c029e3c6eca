package temporalclient

import (
	"testing"

	"github.com/stretchr/testify/assert"
	enumspb "go.temporal.io/api/enums/v1"

	"ppwr/internal/config"
)

func TestRefOptions(t *testing.T) {
	r := Ref{WorkflowID: "import/abc", OrganizationID: "org-1", ResourceID: "abc", TaskQueue: "ppwr",
		Summary: "Import `katalog.csv`", Details: "Record: `abc`"}
	o := r.Options()
	assert.Equal(t, "Import `katalog.csv`", o.StaticSummary)
	assert.Equal(t, "Record: `abc`", o.StaticDetails)

	assert.Equal(t, "import/abc", o.ID)
	assert.Equal(t, "ppwr", o.TaskQueue)
	// Joining the open run is what keeps a retried API request from failing
	// or starting a second run.
	assert.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING, o.WorkflowIDConflictPolicy)
	// ...and a closed run's id is not reused by a late retry.
	assert.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, o.WorkflowIDReusePolicy)

	org, ok := o.TypedSearchAttributes.GetKeyword(OrganizationID)
	assert.True(t, ok)
	assert.Equal(t, "org-1", org)
	res, ok := o.TypedSearchAttributes.GetKeyword(ResourceID)
	assert.True(t, ok)
	assert.Equal(t, "abc", res)
	assert.Equal(t, 2, o.TypedSearchAttributes.Size())
}

func TestRedriveOptions(t *testing.T) {
	r := Ref{WorkflowID: "import/abc/apply", OrganizationID: "org-1", ResourceID: "abc", TaskQueue: "ppwr"}
	o := r.RedriveOptions()

	// A new run after a failed or terminated one...
	assert.Equal(t, enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE, o.WorkflowIDReusePolicy)
	// ...but never the open run passed off as a new one.
	assert.Equal(t, enumspb.WORKFLOW_ID_CONFLICT_POLICY_FAIL, o.WorkflowIDConflictPolicy)
	assert.True(t, o.WorkflowExecutionErrorWhenAlreadyStarted)

	// Found in the Temporal UI like the runs before it.
	base := r.Options()
	assert.Equal(t, base.ID, o.ID)
	assert.Equal(t, base.TaskQueue, o.TaskQueue)
	assert.Equal(t, base.TypedSearchAttributes, o.TypedSearchAttributes)
}

func TestDialIsLazy(t *testing.T) {
	// Nothing listens here: the API must still start and report not ready
	// instead of failing at boot.
	c, err := Dial(config.Config{TemporalAddress: "127.0.0.1:1", TemporalNamespace: "default"})
	assert.NoError(t, err)
	if c != nil {
		c.Close()
	}
}
