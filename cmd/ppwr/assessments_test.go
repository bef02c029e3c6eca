package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/imports"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

func TestAdminAssessmentsRunRecordsTheRunAndItsWorkflow(t *testing.T) {
	db := testenv.DB(t)
	org := str(t, mustAdmin(t, "org", "create", "--name", "Bulk"), "id")
	obj := mustAdmin(t, "assessments", "run", "--org", org, "--rule-set", "marking")
	id := str(t, obj, "id")
	assert.Equal(t, "assessment-run/"+id, obj["workflowId"])
	assert.Equal(t, float64(0), obj["items"])

	var start domain.WorkflowStart
	require.NoError(t, db.Take(&start, "workflow_id = ?", obj["workflowId"]).Error)
	assert.Equal(t, assessments.AssessmentRunWorkflow.Type, start.WorkflowType)
	assert.Equal(t, org, start.OrganizationID, "the run is found in the Temporal UI by organization")
	assert.Equal(t, id, start.ResourceID)
	assert.Equal(t, 1, operatorAudits(t, db, org, "admin.assessments.run", id))

	_, err := admin(t, "assessments", "run", "--org", org, "--rule-set", "no_such_set")
	assert.ErrorContains(t, err, "not published")
	_, err = admin(t, "assessments", "run", "--org", "00000000-0000-7000-8000-000000000000")
	assert.Error(t, err)
}

// With --wait --json, a bulk run prints its progress as it moves, one
// line per change, then the object it prints without --wait.
func TestAdminAssessmentsRunWaits(t *testing.T) {
	f := newRedriveFixture(t)
	const items = 250 // two batches
	imp := f.applying(t, items)
	_, n, err := imports.ApplyImportBatch(f.applyUnit(), imp, 0, items)
	require.NoError(t, err)
	require.Equal(t, items, n)
	f.startWorker(t)
	// The relay's part, for this run alone: other tests' recorded starts
	// stay unstarted.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan error, 1)
	go func() {
		var run assessments.AssessmentRun
		for f.db.WithContext(ctx).Take(&run, "organization_id = ?", f.org).Error != nil {
			if ctx.Err() != nil {
				started <- ctx.Err()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		in := assessments.AssessmentRunInput{Org: domain.OrgOf(f.org), RunID: run.ID}
		ref := temporalclient.Ref{WorkflowID: run.WorkflowID(), OrganizationID: f.org.String(), ResourceID: run.ID.String(), TaskQueue: f.queue}
		_, err := temporalclient.Start(ctx, f.temporal, ref, assessments.AssessmentRunWorkflow.Type, in)
		started <- err
	}()

	lines, err := waitLines(t, "assessments", "run", "--org", f.org.String(), "--rule-set", "marking")
	require.NoError(t, err)
	require.NoError(t, <-started)
	result := requireProgress(t, lines, assessments.RunStages, assessments.StageAssessing, items)
	assert.Equal(t, assessments.RunCompleted, lines[len(lines)-2]["status"])
	assert.Equal(t, assessments.RunRunning, lines[0]["status"])
	id := str(t, result, "id")
	assert.Equal(t, map[string]any{"id": id, "workflowId": "assessment-run/" + id, "organizationId": f.org.String(), "items": float64(items)}, result)
}
