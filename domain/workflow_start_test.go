package domain_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/internal/database"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
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
		"created_at", "started_at", "run_id", "attempts", "last_error", "summary", "trace_parent"} {
		assert.Contains(t, stmt.SQL, `"`+col+`"`)
	}
	assert.Len(t, stmt.Vars, 13, "every column has a value; none is left to a database default")
}

// typedInput is a declared workflow's input: the id needs the batch too.
type typedInput struct {
	domain.Org
	ImportID uuid.UUID `json:"import_id"`
	Batch    int       `json:"batch"`
}

var typedWorkflow = domain.Workflow[typedInput]{
	Type:     "TypedImport",
	ID:       func(in typedInput) string { return "import/" + in.ImportID.String() + "/" + strconv.Itoa(in.Batch) },
	Resource: func(in typedInput) uuid.UUID { return in.ImportID },
}

func TestStartRecordsTheTypedInputUnderTheDeclaredIDAndType(t *testing.T) {
	ctx := context.Background()
	db := testenv.DB(t)
	org := uuid.New()
	in := typedInput{Org: domain.OrgOf(org), ImportID: uuid.New(), Batch: 3}
	w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org})
	require.NoError(t, domain.Start(w, typedWorkflow, in, "Import `katalog.csv`: catalog, 100,000 rows"))
	require.NoError(t, w.Commit())

	var s domain.WorkflowStart
	require.NoError(t, db.Take(&s, "workflow_id = ?", "import/"+in.ImportID.String()+"/3").Error)
	assert.Equal(t, "TypedImport", s.WorkflowType)
	assert.Equal(t, org.String(), s.OrganizationID)
	assert.Equal(t, in.ImportID.String(), s.ResourceID)
	assert.Equal(t, "Import `katalog.csv`: catalog, 100,000 rows", s.Summary, "the run's summary is recorded with it")
	assert.JSONEq(t, `{"organization_id":"`+org.String()+`","import_id":"`+in.ImportID.String()+`","batch":3}`, string(s.Input))
	var back typedInput
	require.NoError(t, json.Unmarshal(s.Input, &back))
	assert.Equal(t, in, back)
}

func TestStartRefusesAnInputOfAnotherOrganization(t *testing.T) {
	w := work.New(context.Background(), testenv.DB(t), work.Actor{Kind: work.ActorSystem, OrganizationID: uuid.New()})
	defer w.Rollback()
	assert.Error(t, domain.Start(w, typedWorkflow, typedInput{Org: domain.OrgOf(uuid.New()), ImportID: uuid.New()}, "Import"))
	_, err := domain.NewStart(typedWorkflow, typedInput{ImportID: uuid.New()}, "Import")
	assert.Error(t, err, "an input that names no organization")
	_, err = domain.NewStart(typedWorkflow, typedInput{Org: domain.OrgOf(uuid.New()), ImportID: uuid.New()}, " ")
	assert.Error(t, err, "a run without a summary")
}

// The Temporal UI shows the recorded summary with the organization's
// name, within the server's limit on a summary, and the ids in details.
func TestDescribeNamesTheOrganization(t *testing.T) {
	org := uuid.New()
	s, err := domain.NewStart(typedWorkflow, typedInput{Org: domain.OrgOf(org), ImportID: uuid.New()}, "Import `katalog.csv`")
	require.NoError(t, err)
	summary, details := s.Describe("Acme Sp. z o.o.")
	assert.Equal(t, "Import `katalog.csv` · Acme Sp. z o.o.", summary)
	assert.Contains(t, details, org.String())
	assert.Contains(t, details, s.ResourceID)

	s.Summary = strings.Repeat("ż", 300)
	summary, _ = s.Describe("Acme")
	assert.LessOrEqual(t, len(summary), 400)
	assert.True(t, strings.HasSuffix(summary, "…"))
	assert.True(t, utf8.ValidString(summary), "cut on a character boundary")
}

func TestCountGroupsThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 100000: "100,000", 1234567: "1,234,567", -1500: "-1,500"} {
		assert.Equal(t, want, domain.Count(n))
	}
}

// The relay reads the names of a batch's organizations at once; a run of
// no tenant has none.
func TestOrganizationNames(t *testing.T) {
	ctx, db := context.Background(), testenv.DB(t)
	org, err := accounts.CreateOrganization(ctx, db, "Names Test", "names-"+uuid.NewString()[:8])
	require.NoError(t, err)
	s, err := domain.NewStart(typedWorkflow, typedInput{Org: domain.OrgOf(org.ID), ImportID: uuid.New()}, "Import")
	require.NoError(t, err)
	system, err := domain.NewWorkflowStart("housekeeping", "Housekeeping", temporalclient.SystemOrganization, "housekeeping", nil)
	require.NoError(t, err)
	names, err := domain.OrganizationNames(ctx, db, []domain.WorkflowStart{*s, *system})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{org.ID.String(): "Names Test"}, names)
}
