package domain

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/propagation"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/internal/work"
)

// WorkflowStart is a workflow start recorded in the transaction of the
// change that needs the workflow, so it exists if and only if that change
// committed. Starting the workflow from the handler instead would either
// run it for a change that then rolls back (start before commit) or lose it
// when the process dies between commit and start (start after commit). The
// worker's relay (worker.Relay.StartWorkflows) starts the workflow from the
// row, with the record-derived workflow id and a duplicate-rejecting id
// policy, and marks it started; a crash anywhere in between only delays the
// workflow.
//
// Every column has a Go value and no database default is relied upon, so
// database.Insert renders the row like any other deferred row.
type WorkflowStart struct {
	ID uuid.UUID `gorm:"type:uuid;primaryKey"`
	// WorkflowID is derived from the record (e.g. "import/<id>"): the
	// relay may start a row more than once, and the id makes every start
	// after the first join the existing run.
	WorkflowID string
	// WorkflowType is the workflow's registered type name (the function's
	// name unless registered under another).
	WorkflowType string
	// OrganizationID is a uuid, or "system" (temporalclient.
	// SystemOrganization) for workflows of no tenant; a string, not a
	// uuid.UUID, for that reason.
	OrganizationID string
	ResourceID     string
	// Summary says in words what the run does for which record (an
	// import's file, kind and rows), written when the record's change is,
	// from the record as it then is: the Temporal UI shows it (Describe)
	// where it would otherwise show only ids.
	Summary string
	// TraceParent is the W3C traceparent of the context that recorded the
	// start ('' if untraced), so the relay's start continues its trace.
	TraceParent string
	// Input is the workflow's argument as JSON.
	Input     datatypes.JSON `gorm:"type:jsonb"`
	CreatedAt time.Time
	// StartedAt and RunID are set by the relay in the transaction that
	// started the workflow; nil until then.
	StartedAt *time.Time
	RunID     *string
	// Attempts counts the relay's start attempts, and LastError is the
	// error of the last one ("" when it succeeded).
	Attempts  int
	LastError string
}

// TableName maps the model onto its table.
func (WorkflowStart) TableName() string { return "workflow_starts" }

// systemOrganization is temporalclient.SystemOrganization, the
// OrganizationId of workflows that belong to no tenant (models does not
// import the Temporal client).
const systemOrganization = "system"

// NewWorkflowStart builds the row that has the relay start workflowType
// with id workflowID and argument input, with the OrganizationId and
// ResourceId search attributes organizationID and resourceID. The caller
// writes it in the transaction of the change that needs the workflow (a
// domain command, through Start, defers it into its unit of work), so the
// workflow starts if and only if the change commits.
//
// input is marshalled now, with encoding/json as Temporal's default data
// converter would, and the workflow receives it decoded into its
// parameter's type: it must survive a JSON round trip (exported fields,
// JSON-encodable values). A nil input starts the workflow without
// arguments.
func NewWorkflowStart(workflowID, workflowType, organizationID, resourceID string, input any) (*WorkflowStart, error) {
	switch {
	case workflowID == "":
		return nil, errors.New("workflow start: empty workflow id")
	case workflowType == "":
		return nil, fmt.Errorf("workflow start %s: empty workflow type", workflowID)
	case resourceID == "":
		return nil, fmt.Errorf("workflow start %s: empty resource id", workflowID)
	}
	if organizationID != systemOrganization {
		if _, err := uuid.Parse(organizationID); err != nil {
			return nil, fmt.Errorf("workflow start %s: organization %q is neither a uuid nor %q", workflowID, organizationID, systemOrganization)
		}
	}
	body, err := json.Marshal(input)
	if err != nil {
		return nil, fmt.Errorf("workflow start %s: input: %w", workflowID, err)
	}
	return &WorkflowStart{
		ID:             NewID(),
		WorkflowID:     workflowID,
		WorkflowType:   workflowType,
		OrganizationID: organizationID,
		ResourceID:     resourceID,
		Input:          datatypes.JSON(body),
		CreatedAt:      time.Now().UTC().Truncate(time.Microsecond),
	}, nil
}

// Args are the workflow arguments of the stored input: none for JSON null
// (NewWorkflowStart's nil input), else the JSON itself. It is passed as a
// json.RawMessage, which Temporal's JSON payload converter writes out
// byte for byte (json.Marshal honours its MarshalJSON), so the workflow
// decodes exactly what NewWorkflowStart marshalled into its parameter's
// type: no float64 rounding of numbers, no intermediate map.
func (s *WorkflowStart) Args() []any {
	input := bytes.TrimSpace(s.Input)
	if len(input) == 0 || bytes.Equal(input, []byte("null")) {
		return nil
	}
	return []any{json.RawMessage(input)}
}

// Workflow declares a workflow once, beside the record that starts it:
// its registered type name, and how its input names the run (ID, derived
// from the record, so the input carries whatever the id needs) and the
// record it works on (Resource, the ResourceId search attribute). In ties
// the declaration, its recorded starts (Start) and its code
// (workflows.Define) to one input type, so a start or a workflow function
// with another input does not compile.
type Workflow[In WorkflowInput] struct {
	Type     string
	ID       func(In) string
	Resource func(In) uuid.UUID
}

// WorkflowInput is the input of a declared workflow. It names the
// organization the run acts for, so that its activities read the records
// they are given through the tenant scope, like a request does.
type WorkflowInput interface {
	Organization() uuid.UUID
}

// Org is embedded in every workflow input to carry its organization.
// Runs started before an input carried it decode it as uuid.Nil
// (workflows read their OrganizationId search attribute instead).
type Org struct {
	OrganizationID uuid.UUID `json:"organization_id"`
}

// OrgOf is the Org of organization id.
func OrgOf(id uuid.UUID) Org { return Org{OrganizationID: id} }

// Organization is the organization the run acts for.
func (o Org) Organization() uuid.UUID { return o.OrganizationID }

// NewStart builds the row that has the relay start wf with in, for the
// input's organization (NewWorkflowStart), with summary as the run's
// summary (WorkflowStart.Summary), which every declared workflow states.
// Commands record it with Start; NewStart is for the few that write in a
// bare transaction.
func NewStart[In WorkflowInput](wf Workflow[In], in In, summary string) (*WorkflowStart, error) {
	switch {
	case in.Organization() == uuid.Nil:
		return nil, fmt.Errorf("workflow start %s: the input names no organization", wf.ID(in))
	case strings.TrimSpace(summary) == "":
		return nil, fmt.Errorf("workflow start %s: empty summary", wf.ID(in))
	}
	start, err := NewWorkflowStart(wf.ID(in), wf.Type, in.Organization().String(), wf.Resource(in).String(), in)
	if err != nil {
		return nil, err
	}
	start.Summary = summary
	return start, nil
}

// Start records in w that wf must run with in, summarized as summary
// (WorkflowStart.Summary), once w commits: the relay
// starts it with the record-derived id and a duplicate-rejecting id
// policy, so a crash between commit and start delays it but never loses
// it. The domain command that decides the workflow calls it, in its unit
// of work. An input of another organization than w's is refused: the run
// would act for a tenant the change did not.
func Start[In WorkflowInput](w *work.Unit, wf Workflow[In], in In, summary string) error {
	if in.Organization() != w.Organization() {
		return fmt.Errorf("workflow start %s: input of organization %s in a unit of organization %s", wf.ID(in), in.Organization(), w.Organization())
	}
	start, err := NewStart(wf, in, summary)
	if err != nil {
		return err
	}
	carrier := propagation.MapCarrier{}
	traceContext.Inject(w.Context(), carrier)
	start.TraceParent = carrier.Get(traceParentHeader)
	return w.Defer(start)
}

// traceContext carries a start's trace across the table as W3C
// traceparent, the one header the relay needs to resume it.
var traceContext = propagation.TraceContext{}

const traceParentHeader = "traceparent"

// Traced is ctx continuing the trace that recorded s, if any: the relay
// starts s's workflow in it, so the start and the run join the request's
// trace rather than begin their own.
func (s *WorkflowStart) Traced(ctx context.Context) context.Context {
	if s.TraceParent == "" {
		return ctx
	}
	return traceContext.Extract(ctx, propagation.MapCarrier{traceParentHeader: s.TraceParent})
}

// summaryBytes is the Temporal server's default limit on a run's static
// summary (limit.workflowUserMetadataSummarySize): a longer one fails the
// start, so Describe clips it rather than hold up the run.
const summaryBytes = 400

// Describe is the run's static summary and details for the Temporal UI:
// the recorded summary with the name of the organization it runs for,
// and the ids an operator looks up next. The name is the organization's
// at start time, given by the caller (OrganizationNames), and "" for a
// run of no tenant.
func (s *WorkflowStart) Describe(organization string) (summary, details string) {
	summary = s.Summary
	if organization != "" {
		summary += " · " + organization
	}
	details = fmt.Sprintf("Organization: **%s** (`%s`)\nRecord: `%s`\nRecorded: %s",
		organization, s.OrganizationID, s.ResourceID, s.CreatedAt.UTC().Format(time.RFC3339))
	return clip(summary, summaryBytes), details
}

// clip cuts s to at most n bytes on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	cut := n - len(mark)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + mark
}

// OrganizationNames maps the organization ids of starts to their names,
// in one query for a batch; ids of no organization (SystemOrganization)
// are left out.
func OrganizationNames(ctx context.Context, db *gorm.DB, starts []WorkflowStart) (map[string]string, error) {
	var ids []uuid.UUID
	for _, s := range starts {
		if id, err := uuid.Parse(s.OrganizationID); err == nil {
			ids = append(ids, id)
		}
	}
	names := map[string]string{}
	if len(ids) == 0 {
		return names, nil
	}
	var rows []struct {
		ID   uuid.UUID
		Name string
	}
	if err := db.WithContext(ctx).Table("organizations").Select("id, name").Where("id IN ?", ids).Scan(&rows).Error; err != nil {
		return nil, err
	}
	for _, r := range rows {
		names[r.ID.String()] = r.Name
	}
	return names, nil
}

// Count writes a number of things with its thousands grouped, as a
// summary shows it ("100,000 rows").
func Count(n int64) string {
	digits := strconv.FormatInt(n, 10)
	sign := ""
	if n < 0 {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return sign + b.String()
}

// StartRetention is how long a started row is kept: long enough for
// support staff to trace a run back to the change that recorded it.
const StartRetention = 7 * 24 * time.Hour

// PurgeStartedWorkflowStarts deletes rows started longer ago than
// StartRetention; unstarted rows are kept, whatever their age.
func PurgeStartedWorkflowStarts(ctx context.Context, db *gorm.DB) (int64, error) {
	res := db.WithContext(ctx).Where("started_at < ?", time.Now().UTC().Add(-StartRetention)).Delete(&WorkflowStart{})
	return res.RowsAffected, res.Error
}
