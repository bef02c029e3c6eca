package main

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/records"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// pendingAuthorityRequest stores a request of org received on received,
// as the API records it, with its reminder issue open.
func pendingAuthorityRequest(t *testing.T, db *gorm.DB, org string, received time.Time) string {
	t.Helper()
	at := time.Now().UTC()
	r := records.AuthorityRequest{ID: domain.NewID(), OrganizationID: uuid.MustParse(org), AuthorityName: "WIOŚ Kraków",
		AuthorityCountry: "PL", AuthorityReference: "WI.7021.1.2026", Items: datatypes.JSONSlice[uuid.UUID]{uuid.New()},
		ReceivedOn: received, DueOn: received.AddDate(0, 0, records.AuthorityAnswerDays), BundleStatus: records.BundleBuilding,
		CreatedAt: at, UpdatedAt: at}
	require.NoError(t, db.Create(&r).Error)
	w := work.New(context.Background(), db, work.Actor{Kind: work.ActorSystem, OrganizationID: r.OrganizationID, Reference: "test"})
	opened, err := records.OpenAuthorityRequestDueIssue(w, r.ID)
	require.NoError(t, err)
	require.True(t, opened)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "test.remind"}))
	return r.ID.String()
}

func TestAdminAuthorityRequestAnsweredEndsTheDeadline(t *testing.T) {
	db := testenv.DB(t)
	org := str(t, mustAdmin(t, "org", "create", "--name", "Authority"), "id")
	today := time.Now().UTC().Truncate(24 * time.Hour)
	id := pendingAuthorityRequest(t, db, org, today.AddDate(0, 0, -8))
	yesterday := today.AddDate(0, 0, -1).Format(time.DateOnly)

	obj := mustAdmin(t, "authority-requests", "answered", "--org", org, "--id", id, "--on", yesterday)
	assert.Equal(t, id, obj["id"])
	assert.Equal(t, yesterday, obj["answeredOn"])
	assert.Equal(t, records.DeadlineAnsweredInTime, obj["deadlineStatus"])
	assert.Equal(t, "authority-request/"+id+"/answered", obj["workflowId"])

	var r records.AuthorityRequest
	require.NoError(t, db.Take(&r, "id = ?", id).Error)
	require.NotNil(t, r.AnsweredOn)
	assert.Equal(t, yesterday, r.AnsweredOn.Format(time.DateOnly))
	var issue domain.ComplianceIssue
	require.NoError(t, db.Take(&issue, "subject_id = ? AND kind = ?", id, domain.IssueAuthorityRequestDue).Error)
	assert.Equal(t, domain.IssueResolved, issue.Status, "the reminder is resolved by the answer")
	var start domain.WorkflowStart
	require.NoError(t, db.Take(&start, "workflow_id = ?", obj["workflowId"]).Error)
	assert.Equal(t, records.AuthorityRequestAnsweredWorkflow.Type, start.WorkflowType, "the signal to the deadline's timer is started durably")
	assert.Equal(t, org, start.OrganizationID)
	assert.Equal(t, 1, operatorAudits(t, db, org, "admin.authority-requests.answered", id))
	var events []string
	require.NoError(t, db.Model(&domain.Event{}).Where("organization_id = ?", org).Order("id").Pluck("type", &events).Error)
	assert.Contains(t, events, "authority_request.answered")

	_, err := admin(t, "authority-requests", "answered", "--org", org, "--id", id)
	assert.ErrorContains(t, err, "already marked answered", "a request is answered once")

	other := pendingAuthorityRequest(t, db, org, today)
	_, err = admin(t, "authority-requests", "answered", "--org", org, "--id", other, "--on", today.AddDate(0, 0, 1).Format(time.DateOnly))
	assert.ErrorContains(t, err, "in the future")
	_, err = admin(t, "authority-requests", "answered", "--org", org, "--id", other, "--on", today.AddDate(0, 0, -1).Format(time.DateOnly))
	assert.ErrorContains(t, err, "before the request was received")
	_, err = admin(t, "authority-requests", "answered", "--org", org, "--id", other, "--on", "1.5.2026")
	assert.ErrorContains(t, err, "--on must be a date")
	stranger := str(t, mustAdmin(t, "org", "create", "--name", "Stranger"), "id")
	_, err = admin(t, "authority-requests", "answered", "--org", stranger, "--id", other)
	assert.ErrorContains(t, err, "does not exist", "another organization's request is not found")
	var unchanged records.AuthorityRequest
	require.NoError(t, db.Take(&unchanged, "id = ?", other).Error)
	assert.Nil(t, unchanged.AnsweredOn, "a refused command changes nothing")
}
