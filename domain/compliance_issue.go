package domain

import (
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm/clause"

	"ppwr/internal/database"
	"ppwr/internal/work"
)

// Compliance issues are the service's own list of problems that need a
// person: a rejected supplier line, an overdue request, withdrawn
// evidence. The service opens and resolves them; the API only reads
// them. Any area opens one through OpenIssue.

// Kinds of issues.
const (
	IssueSupplierLineRejected      = "supplier_line_rejected"
	IssueSupplierRequestOverdue    = "supplier_request_overdue"
	IssueEvidenceDocumentWithdrawn = "evidence_document_withdrawn"
	IssueDocumentExpired           = "document_expired"
	IssueRegisterEntryRejected     = "register_entry_rejected"
	IssueRuleFinding               = "ppwr_rule_finding"
	IssueAuthorityRequestDue       = "authority_request_due"
)

// IssueKinds are every kind, in their order.
var IssueKinds = []string{IssueSupplierLineRejected, IssueSupplierRequestOverdue, IssueEvidenceDocumentWithdrawn, IssueDocumentExpired,
	IssueRegisterEntryRejected, IssueRuleFinding,
	IssueAuthorityRequestDue,
}

// Issue severities and statuses.
const (
	SeverityLow    = "low"
	SeverityMedium = "medium"
	SeverityHigh   = "high"
	IssueOpen      = "open"
	IssueResolved  = "resolved"
)

// IssueSeverities and IssueStatuses are the values of those fields.
var (
	IssueSeverities = []string{SeverityLow, SeverityMedium, SeverityHigh}
	IssueStatuses   = []string{IssueOpen, IssueResolved}
)

// ComplianceIssue is one problem, open or resolved.
type ComplianceIssue struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Kind           string
	Severity       string
	Status         string
	SubjectType    string
	SubjectID      uuid.UUID  `gorm:"type:uuid"`
	CatalogItemID  *uuid.UUID `gorm:"type:uuid"`
	MessageKey     string
	MessageArgs    datatypes.JSONSlice[any] `gorm:"type:jsonb"`
	ResolutionKey  *string
	OpenedAt       time.Time
	ResolvedAt     *time.Time
}

// OpenIssue opens an issue in the unit's organization unless the same
// kind of problem is already open for the subject; it reports whether it
// opened one.
func OpenIssue(w *work.Unit, issue ComplianceIssue) (bool, error) {
	issue.ID, issue.OrganizationID, issue.Status, issue.OpenedAt = NewID(), w.Organization(), IssueOpen, Now()
	if issue.MessageArgs == nil {
		issue.MessageArgs = datatypes.JSONSlice[any]{}
	}
	res := w.Tx().Clauses(clause.OnConflict{DoNothing: true}).Create(&issue)
	if res.Error != nil || res.RowsAffected == 0 {
		return false, res.Error
	}
	return true, Emit(w, ComplianceIssueOpened{ID: issue.ID, Kind: issue.Kind})
}

// RestateIssues opens each issue, or restates the open one's severity
// and message, in one statement: what closes a problem may change while
// the problem stays, and an assessment restates one issue per rule it
// finds open. Each issue it opens is announced.
func RestateIssues(w *work.Unit, issues []ComplianceIssue) error {
	if len(issues) == 0 {
		return nil
	}
	rows := make([]string, len(issues))
	args := make([]any, 0, len(issues)*10)
	at := Now()
	for i, is := range issues {
		if is.MessageArgs == nil {
			is.MessageArgs = datatypes.JSONSlice[any]{}
		}
		rows[i] = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?)"
		args = append(args, NewID(), w.Organization(), is.Kind, is.Severity, IssueOpen, is.SubjectType, is.SubjectID, is.CatalogItemID,
			is.MessageKey, is.MessageArgs, at)
	}
	var returned []struct {
		ID     uuid.UUID
		Kind   string
		Opened bool
	}
	err := w.Tx().Raw(`INSERT INTO compliance_issues AS c (id, organization_id, kind, severity, status, subject_type, subject_id, catalog_item_id,
			message_key, message_args, opened_at)
		VALUES `+strings.Join(rows, ", ")+`
		ON CONFLICT (organization_id, kind, subject_id) WHERE status = 'open' DO UPDATE
			SET severity = EXCLUDED.severity, message_key = EXCLUDED.message_key, message_args = EXCLUDED.message_args
			WHERE (c.severity, c.message_key, c.message_args) IS DISTINCT FROM (EXCLUDED.severity, EXCLUDED.message_key, EXCLUDED.message_args)
		RETURNING c.id, c.kind, (xmax = 0) AS opened`, args...).Scan(&returned).Error
	if err != nil {
		return err
	}
	for _, r := range returned {
		if r.Opened { // xmax is 0 for a row this statement inserted
			if err := Emit(w, ComplianceIssueOpened{ID: r.ID, Kind: r.Kind}); err != nil {
				return err
			}
		}
	}
	return nil
}

// ResolveIssues resolves the open issues of a kind about a subject,
// saying why (a message key).
func ResolveIssues(w *work.Unit, kind string, subject uuid.UUID, resolution string) error {
	return ResolveIssuesOf(w, kind, []uuid.UUID{subject}, resolution)
}

// resolveOpenIssues resolves the open issues of an organization, a kind
// and a list of subjects. status = 'open' is written out, not bound: only
// then may PostgreSQL use the partial index of open issues once it plans
// the statement generically, instead of reading every issue of the
// organization.
const resolveOpenIssues = `UPDATE compliance_issues SET status = ?, resolved_at = ?, resolution_key = ?
	WHERE organization_id = ? AND kind = ? AND subject_id IN ? AND status = 'open' RETURNING id`

// ResolveIssuesOf resolves the open issues of a kind about any of the
// subjects, in one statement.
func ResolveIssuesOf(w *work.Unit, kind string, subjects []uuid.UUID, resolution string) error {
	if len(subjects) == 0 {
		return nil
	}
	// Planned for its subjects on each run: the pool's prepared statement
	// settled on a generic plan while the table was small (a bulk run's
	// first items), which probed the organization's index and read every
	// open issue of the organization, ever more as the run went on.
	tx := w.Tx()
	var resolved []uuid.UUID
	err := database.PlannedForValues(tx, func() error {
		return tx.Raw(resolveOpenIssues, IssueResolved, Now(), resolution, w.Organization(), kind, subjects).Scan(&resolved).Error
	})
	if err != nil {
		return err
	}
	for _, id := range resolved {
		if err := Emit(w, ComplianceIssueResolved{ID: id, Kind: kind}); err != nil {
			return err
		}
	}
	return nil
}

// IssueChange is the data of the events of a compliance issue.
type IssueChange struct {
	ID   uuid.UUID `json:"id"`
	Kind string    `json:"kind"`
}

type ComplianceIssueOpened IssueChange

type ComplianceIssueResolved IssueChange

func (ComplianceIssueOpened) EventType() string { return "compliance_issue.opened" }

func (ComplianceIssueResolved) EventType() string { return "compliance_issue.resolved" }
