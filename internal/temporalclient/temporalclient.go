// Package temporalclient connects to Temporal and starts workflows the way
// every area must: with an id derived from the record and with the
// OrganizationId and ResourceId search attributes, so operators find any
// run in the Temporal UI by organization or record.
package temporalclient

import (
	"context"
	"fmt"
	"log/slog"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
)

// Search attribute keys registered on the namespace (make run and the test
// harness register them on the dev server).
var (
	OrganizationID = temporal.NewSearchAttributeKeyKeyword("OrganizationId")
	ResourceID     = temporal.NewSearchAttributeKeyKeyword("ResourceId")
)

// SystemOrganization is the OrganizationId of workflows that belong to no
// tenant (housekeeping).
const SystemOrganization = "system"

// Dial returns a client that connects on first use, so the API starts (and
// reports not ready) while Temporal is still coming up.
func Dial(hostPort, namespace string) (client.Client, error) {
	c, err := client.NewLazyClient(client.Options{
		HostPort:  hostPort,
		Namespace: namespace,
		Logger:    log.NewStructuredLogger(slog.Default()),
	})
	if err != nil {
		return nil, fmt.Errorf("temporal: dial %s: %w", hostPort, err)
	}
	return c, nil
}

// Ref identifies the run of a workflow for one record.
type Ref struct {
	WorkflowID     string // derived from the record, e.g. "import/<id>"
	OrganizationID string
	ResourceID     string
	TaskQueue      string
}

// SearchAttributes are the attributes every ppwr workflow carries.
func (r Ref) SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(OrganizationID.ValueSet(r.OrganizationID), ResourceID.ValueSet(r.ResourceID))
}

// Options are the start options for r. A second start for the same record
// while a run is open returns that run instead of failing or duplicating,
// so a retried API request never starts two.
func (r Ref) Options() client.StartWorkflowOptions {
	return client.StartWorkflowOptions{
		ID:                       r.WorkflowID,
		TaskQueue:                r.TaskQueue,
		TypedSearchAttributes:    r.SearchAttributes(),
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}
}

// Start starts (or joins the open run of) the workflow for r.
func Start(ctx context.Context, c client.Client, r Ref, workflow any, args ...any) (client.WorkflowRun, error) {
	run, err := c.ExecuteWorkflow(ctx, r.Options(), workflow, args...)
	if err != nil {
		return nil, fmt.Errorf("temporal: start %s: %w", r.WorkflowID, err)
	}
	return run, nil
}
