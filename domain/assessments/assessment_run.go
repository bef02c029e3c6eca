package assessments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/registers"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Bulk assessment runs assess every active item of an organization, for
// all published rule sets or one (after a new version is published). The
// workflow works in batches of items in id order, several items of a
// batch at once; an assessment names its run, once per item, so a batch
// retried after a crash skips what is done and never repeats an item.

// Run statuses.
const (
	RunRunning   = "running"
	RunCompleted = "completed"
)

// AssessmentRunWorkflow assesses the organization's active items for a
// run.
var AssessmentRunWorkflow = domain.Workflow[AssessmentRunInput]{
	Type:     "AssessmentRun",
	ID:       func(in AssessmentRunInput) string { return "assessment-run/" + in.RunID.String() },
	Resource: func(in AssessmentRunInput) uuid.UUID { return in.RunID },
}

// AssessmentRun is one bulk run.
type AssessmentRun struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	RuleSet        *string
	AssessedOn     time.Time `gorm:"type:date"`
	Status         string
	Total          int
	Done           int
	LastItem       *uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
	FinishedAt     *time.Time
	Progress       domain.Progress `gorm:"embedded"`
}

// StageAssessing is a run's stage of assessing its items, of the active
// items counted when it started.
const StageAssessing = "assessing"

// RunStages are a run's progress stages in order.
var RunStages = domain.Stages{domain.StageQueued, StageAssessing}

// Running reports whether the run goes on.
func (r *AssessmentRun) Running() bool { return r.Status == RunRunning }

// TrackRun is the progress tracker of the run.
func TrackRun(db *gorm.DB, r *AssessmentRun) *domain.ProgressTracker {
	return RunStages.Track(db, &AssessmentRun{}, r.OrganizationID, r.ID)
}

// AssessmentRunInput names the run a workflow drives.
type AssessmentRunInput struct {
	domain.Org
	RunID uuid.UUID `json:"run_id"`
}

// StartAssessmentRun records, in tx, a run over the organization's active
// items and the start of its workflow, which the relay makes once tx
// commits.
func StartAssessmentRun(ctx context.Context, tx *gorm.DB, org uuid.UUID, ruleSet string) (*AssessmentRun, error) {
	if ruleSet != "" && !registers.PublishedRuleSet(ruleSet) {
		return nil, fmt.Errorf("rule set %q is not published (see the dictionaries' rule_sets)", ruleSet)
	}
	run := &AssessmentRun{ID: domain.NewID(), OrganizationID: org, AssessedOn: domain.Today(), Status: RunRunning, CreatedAt: domain.Now(),
		Progress: RunStages.Queued()}
	if ruleSet != "" {
		run.RuleSet = &ruleSet
	}
	var total int64
	if err := domain.Tenant(ctx, tx, org).Model(&catalog.CatalogItem{}).Where("status = ?", catalog.ItemActive).Count(&total).Error; err != nil {
		return nil, err
	}
	run.Total = int(total)
	if err := tx.WithContext(ctx).Create(run).Error; err != nil {
		return nil, err
	}
	summary := fmt.Sprintf("Assessment run over %s active items", domain.Count(total))
	if ruleSet != "" {
		summary += ", rule set " + ruleSet
	}
	start, err := domain.NewStart(AssessmentRunWorkflow, run.workflowInput(), summary)
	if err != nil {
		return nil, err
	}
	return run, tx.WithContext(ctx).Create(start).Error
}

func (r *AssessmentRun) workflowInput() AssessmentRunInput {
	return AssessmentRunInput{Org: domain.OrgOf(r.OrganizationID), RunID: r.ID}
}

// WorkflowID is the id of the run's workflow, for operators to find it.
func (r *AssessmentRun) WorkflowID() string { return AssessmentRunWorkflow.ID(r.workflowInput()) }

// OperatorStartAssessmentRun is StartAssessmentRun of an operator, with
// its audit entry, in one transaction.
func OperatorStartAssessmentRun(ctx context.Context, db *gorm.DB, org uuid.UUID, ruleSet string) (*AssessmentRun, error) {
	var run *AssessmentRun
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := accounts.RequireOrganization(ctx, tx, org); err != nil {
			return err
		}
		var err error
		if run, err = StartAssessmentRun(ctx, tx, org, ruleSet); err != nil {
			return err
		}
		return domain.AuditOperator(ctx, tx, org, "admin.assessments.run", "assessment_run", run.ID, map[string]any{
			"workflow_id": run.WorkflowID(), "rule_set": ruleSet,
		})
	})
	if err != nil {
		return nil, err
	}
	return run, nil
}

// NextRunItems are up to limit active items of the run's organization
// after the last batch it finished.
func NextRunItems(ctx context.Context, db *gorm.DB, run *AssessmentRun, limit int) ([]uuid.UUID, error) {
	q := domain.Tenant(ctx, db, run.OrganizationID).Model(&catalog.CatalogItem{}).Where("status = ?", catalog.ItemActive).Order("id").Limit(limit)
	if run.LastItem != nil {
		q = q.Where("id > ?", *run.LastItem)
	}
	var ids []uuid.UUID
	return ids, q.Pluck("id", &ids).Error
}

// RunItemsDone are the items of ids the run has assessed already, in
// one query for a batch: a batch retried after a crash skips them.
func RunItemsDone(ctx context.Context, db *gorm.DB, run *AssessmentRun, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	var found []uuid.UUID
	if err := db.WithContext(ctx).Raw(`SELECT catalog_item_id FROM assessments WHERE run_id = ? AND catalog_item_id IN ?`, run.ID, ids).
		Scan(&found).Error; err != nil {
		return nil, err
	}
	done := make(map[uuid.UUID]bool, len(found))
	for _, id := range found {
		done[id] = true
	}
	return done, nil
}

// AssessRunItem assesses one item for the run, one RunItemsDone did not
// find. The items of a batch share statistics.
func AssessRunItem(w *work.Unit, run *AssessmentRun, itemID uuid.UUID, statistics *ReuseStatisticsCache) error {
	in := &AssessmentCreate{Item: input.Of(itemID), Date: input.Of(run.AssessedOn), run: &run.ID, statistics: statistics}
	if run.RuleSet != nil {
		in.RuleSets = input.Of([]string{*run.RuleSet})
	}
	_, err := CreateAssessment(w, in)
	return err
}

// RunItemDone tells a failed commit of AssessRunItem that only found the
// item assessed by a concurrent attempt, which is no failure.
func RunItemDone(err error) bool { return errors.Is(domain.FromDatabase(err), domain.ErrRunItemDone) }

// FinishRunBatch moves the run past a batch that ended with item last and
// counts what it has assessed.
func FinishRunBatch(ctx context.Context, db *gorm.DB, runID, last uuid.UUID) error {
	return db.WithContext(ctx).Exec(`UPDATE assessment_runs SET last_item = ?,
		done = (SELECT count(*) FROM assessments WHERE run_id = ?) WHERE id = ?`, last, runID, runID).Error
}

// FinishAssessmentRun marks the organization's run completed, with every
// item it assessed done: the total becomes what it assessed, which the
// count at its start is not when items were added or archived meanwhile.
func FinishAssessmentRun(ctx context.Context, db *gorm.DB, org, runID uuid.UUID) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		run, err := domain.LockFor[AssessmentRun](ctx, tx, org, runID, "UPDATE")
		if err != nil || run.Status != RunRunning {
			return err
		}
		if err := tx.Model(run).Updates(map[string]any{"status": RunCompleted, "finished_at": domain.Now()}).Error; err != nil {
			return err
		}
		return RunStages.End(ctx, tx, &AssessmentRun{}, org, runID, StageAssessing, int64(run.Done))
	})
}
