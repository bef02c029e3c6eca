package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/domain"
	"ppwr/domain/assessments"
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
