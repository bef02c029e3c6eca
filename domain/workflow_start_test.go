package domain_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/database"
	"ppwr/internal/temporalclient"
)

type importInput struct {
	ImportID uuid.UUID `json:"import_id"`
	Rows     int       `json:"rows"`
}

func TestNewWorkflowStartRecordsTheStart(t *testing.T) {
	org, id := uuid.New(), uuid.New()
	in := importInput{ImportID: id, Rows: 7}
	s, err := domain.NewWorkflowStart("import/"+id.String(), "ImportWorkflow", org.String(), id.String(), in)
	require.NoError(t, err)
	assert.NotEqual(t, uuid.Nil, s.ID)
	assert.Equal(t, "import/"+id.String(), s.WorkflowID)
	assert.Equal(t, "ImportWorkflow", s.WorkflowType)
	assert.Equal(t, org.String(), s.OrganizationID)
	assert.Equal(t, id.String(), s.ResourceID)
	assert.False(t, s.CreatedAt.IsZero())
	assert.Nil(t, s.StartedAt, "not started: the relay starts it")
	assert.Nil(t, s.RunID)
	assert.Zero(t, s.Attempts)
	assert.Empty(t, s.LastError)
	var back importInput
	require.NoError(t, json.Unmarshal(s.Input, &back))
	assert.Equal(t, in, back)

	none, err := domain.NewWorkflowStart("housekeeping", "Housekeeping", temporalclient.SystemOrganization, "housekeeping", nil)
	require.NoError(t, err, "system workflows belong to no organization")
	assert.JSONEq(t, `null`, string(none.Input), "a nil input starts the workflow without arguments")
}

func TestNewWorkflowStartRefusesIncompleteStarts(t *testing.T) {
	org := uuid.NewString()
	for name, args := range map[string][4]string{
		"no workflow id":     {"", "T", org, "r"},
		"no workflow type":   {"w", "", org, "r"},
		"no resource":        {"w", "T", org, ""},
		"bad organization":   {"w", "T", "acme", "r"},
		"empty organization": {"w", "T", "", "r"},
	} {
		_, err := domain.NewWorkflowStart(args[0], args[1], args[2], args[3], nil)
		assert.Error(t, err, name)
	}
	_, err := domain.NewWorkflowStart("w", "T", org, "r", func() {})
	assert.Error(t, err, "an input JSON cannot carry")
}

// The unit of work renders deferred rows with database.Insert: a start row
// must be a plain model whose every column is written.
func TestWorkflowStartRendersForDeferredInsert(t *testing.T) {
	db, err := gorm.Open(postgres.New(postgres.Config{DSN: "host=127.0.0.1 dbname=unused"}), &gorm.Config{DryRun: true, DisableAutomaticPing: true})
	require.NoError(t, err)
	s, err := domain.NewWorkflowStart("w/1", "T", uuid.NewString(), "1", importInput{Rows: 1})
	require.NoError(t, err)
	stmt, err := database.Insert(db, s)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(stmt.SQL, `INSERT INTO "workflow_starts" (`), stmt.SQL)
	for _, col := range []string{"id", "workflow_id", "workflow_type", "organization_id", "resource_id", "input",
		"created_at", "started_at", "run_id", "attempts", "last_error"} {
		assert.Contains(t, stmt.SQL, `"`+col+`"`)
	}
	assert.Len(t, stmt.Vars, 11, "every column has a value; none is left to a database default")
}
