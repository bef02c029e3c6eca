package attention

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/documents"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/suppliers"
	"ppwr/domain/webhooks"
)

// HistoryLimit is how many of a record's audit entries Find answers.
const HistoryLimit = 50

// Record is one record a kind names, whatever its state.
type Record struct {
	// Item is the record as List shows it. Unless Listed, the record
	// needs nobody now (a re-drive made it run again): its Reason is
	// empty, its At zero and its Kind the one asked for.
	Item
	Listed bool
	// Progress is its job's progress; nil for a record that keeps none.
	Progress *domain.Progress
	// History are its audit log's entries, newest first, at most
	// HistoryLimit.
	History []domain.AuditEntry
	// WorkflowIDs are the ids of its workflows, to look up in Temporal:
	// those of its record, then those its history names (a resend's).
	WorkflowIDs []string
	// Actions are what its state allows.
	Actions []Action
}

// recordType is a table whose rows kinds name, and how a row of it reads
// as a Record.
type recordType struct {
	read func(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error)
}

// The records the kinds name.
var (
	importRecord   = &recordType{read: readImport}
	deliveryRecord = &recordType{read: readDelivery}
	endpointRecord = &recordType{read: readEndpoint}
	documentRecord = &recordType{read: readDocument}
	supplierRecord = &recordType{read: readSupplierRequest}
	reportRecord   = &recordType{read: readReport}
	bdoRecord      = &recordType{read: readBDOReport}
	startRecord    = &recordType{read: readStart}
)

// Find is the record id of the kind, of any organization (a
// *domain.MissingError when there is none): its state, its history and
// what can be done about it.
func Find(ctx context.Context, db *gorm.DB, kind Kind, id uuid.UUID) (*Record, error) {
	src, ok := sourceOf(kind)
	if !ok {
		return nil, fmt.Errorf("attention: unknown kind %q", kind)
	}
	rec, err := src.record.read(ctx, db, id)
	if err != nil {
		return nil, err
	}
	rec.Kind, rec.ID = kind, id
	// The record's item, under whichever kind of its table it is now.
	var same []source
	for _, s := range sources {
		if s.record == src.record {
			same = append(same, s)
		}
	}
	items, err := query(ctx, db, same, uuid.Nil, nil, id, 1)
	if err != nil {
		return nil, err
	}
	if len(items) == 1 {
		rec.Item, rec.Listed = items[0], true
	} else if rec.OrganizationID != uuid.Nil {
		if err := db.WithContext(ctx).Table("organizations").Where("id = ?", rec.OrganizationID).
			Pluck("name", &rec.OrganizationName).Error; err != nil {
			return nil, err
		}
	}
	if rec.WorkflowID == "" && len(rec.WorkflowIDs) > 0 {
		rec.WorkflowID = rec.WorkflowIDs[0]
	}
	return rec, rec.readHistory(ctx, db)
}

// readHistory reads the audit entries of the record, or for a workflow
// start of the record it starts a workflow for, and adds the workflow
// ids they name (an operator's resend or re-drive records its run's).
func (rec *Record) readHistory(ctx context.Context, db *gorm.DB) error {
	of := rec.ID
	if rec.Kind == StartFailing {
		var s domain.WorkflowStart
		if err := db.WithContext(ctx).Select("resource_id").Take(&s, "id = ?", rec.ID).Error; err != nil {
			return err
		}
		resource, err := uuid.Parse(s.ResourceID)
		if err != nil {
			return nil // a start of no record has no history
		}
		of = resource
	}
	q := db.WithContext(ctx).Where("record_id = ?", of)
	if rec.OrganizationID != uuid.Nil {
		q = q.Where("organization_id = ?", rec.OrganizationID)
	}
	if err := q.Order("occurred_at DESC, id DESC").Limit(HistoryLimit).Find(&rec.History).Error; err != nil {
		return err
	}
	for _, e := range rec.History {
		var named struct {
			WorkflowID string `json:"workflow_id"`
		}
		if err := json.Unmarshal(e.Summary, &named); err != nil {
			return fmt.Errorf("attention: audit entry %s: summary: %w", e.ID, err)
		}
		if named.WorkflowID != "" && !slices.Contains(rec.WorkflowIDs, named.WorkflowID) {
			rec.WorkflowIDs = append(rec.WorkflowIDs, named.WorkflowID)
		}
	}
	return nil
}

// take reads the record id of T, of any organization.
func take[T any](ctx context.Context, db *gorm.DB, record string, id uuid.UUID) (*T, error) {
	row, err := domain.Take[T](db.WithContext(ctx).Where("id = ?", id))
	if errors.Is(err, domain.ErrNotFound) {
		return nil, &domain.MissingError{Record: record, ID: id}
	}
	return row, err
}

// recordOf is a Record of the organization's record in status.
func recordOf(org uuid.UUID, status string, progress *domain.Progress, workflowIDs ...string) *Record {
	return &Record{Item: Item{OrganizationID: org, Status: status}, Progress: progress, WorkflowIDs: workflowIDs}
}

func readImport(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	imp, err := take[imports.Import](ctx, db, "import", id)
	if err != nil {
		return nil, err
	}
	in := imp.WorkflowInput()
	rec := recordOf(imp.OrganizationID, imp.Status, &imp.Progress, imports.PreviewWorkflow.ID(in))
	if imp.Status == imports.ImportApplying || imp.Status == imports.ImportCompletedStatus || imp.Status == imports.ImportCompletedWithErrors {
		rec.WorkflowIDs = append(rec.WorkflowIDs, imports.ApplyWorkflow.ID(in))
	}
	if stage, requeue, err := imports.RedriveStageOf(imp); err == nil {
		rec.Actions = []Action{redriveAction(stage, requeue)}
	}
	return rec, nil
}

func readDelivery(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	d, e, err := webhooks.DeliveryOf(ctx, db, id)
	if err != nil {
		return nil, err
	}
	rec := recordOf(e.OrganizationID, d.Status, nil, webhooks.DeliveryWorkflow.ID(webhooks.DeliveryInput{EventID: d.EventID, EndpointID: e.ID}))
	if webhooks.ResendRefusal(d, e) == nil {
		rec.Actions = []Action{actionOf(ResendDelivery)}
	}
	return rec, nil
}

func readEndpoint(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	e, err := take[webhooks.WebhookEndpoint](ctx, db, "webhook endpoint", id)
	if err != nil {
		return nil, err
	}
	return recordOf(e.OrganizationID, e.Status, nil), nil
}

func readDocument(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	v, err := take[documents.DocumentVersion](ctx, db, "document version", id)
	if err != nil {
		return nil, err
	}
	in := documents.VersionInput{Org: domain.OrgOf(v.OrganizationID), VersionID: v.ID}
	rec := recordOf(v.OrganizationID, v.ProcessingStatus, &v.ProcessingProgress, documents.ProcessingWorkflow.ID(in))
	for in.Run = 1; in.Run <= v.AnalysisCount; in.Run++ {
		rec.WorkflowIDs = append(rec.WorkflowIDs, documents.AnalysisWorkflow.ID(in))
	}
	return rec, nil
}

func readSupplierRequest(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	r, err := take[suppliers.SupplierRequest](ctx, db, "supplier request", id)
	if err != nil {
		return nil, err
	}
	rec := recordOf(r.OrganizationID, r.DeliveryStatus, nil)
	in := suppliers.RequestInput{Org: domain.OrgOf(r.OrganizationID), RequestID: r.ID}
	for in.Send = 1; in.Send <= r.SendCount; in.Send++ {
		rec.WorkflowIDs = append(rec.WorkflowIDs, suppliers.RequestSendWorkflow.ID(in))
	}
	return rec, nil
}

func readReport(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	r, err := take[reports.Report](ctx, db, "report", id)
	if err != nil {
		return nil, err
	}
	rec := recordOf(r.OrganizationID, r.Status, &r.Progress, reports.ReportWorkflow.ID(reports.ReportInput{ReportID: r.ID}))
	if reports.RetryRefusal(r) == nil {
		rec.Actions = []Action{actionOf(RetryReport)}
	}
	return rec, nil
}

func readBDOReport(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	r, err := take[bdo.BDOReport](ctx, db, "bdo report", id)
	if err != nil {
		return nil, err
	}
	rec := recordOf(r.OrganizationID, r.ExportStatus, &r.ExportProgress, bdo.BDOReportWorkflow.ID(bdo.BDOReportInput{ReportID: r.ID}))
	if bdo.ExportRetryRefusal(r) == nil {
		rec.Actions = []Action{actionOf(RetryBDOExport)}
	}
	return rec, nil
}

// readStart reads a recorded start: the relay goes on trying it, so it
// allows no action.
func readStart(ctx context.Context, db *gorm.DB, id uuid.UUID) (*Record, error) {
	s, err := take[domain.WorkflowStart](ctx, db, "workflow start", id)
	if err != nil {
		return nil, err
	}
	status := StartWaiting
	if s.StartedAt != nil {
		status = StartMade
	}
	org, _ := uuid.Parse(s.OrganizationID) // uuid.Nil for a start of no organization
	return recordOf(org, status, nil, s.WorkflowID), nil
}
