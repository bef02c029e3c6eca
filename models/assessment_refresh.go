package models

import (
	"time"

	"github.com/google/uuid"

	"ppwr/internal/work"
)

// Assessment refresh. A change to what an item's assessments read (a new
// item revision, a register entry created or reviewed, evidence decided)
// records, in the change's unit of work, the start of the item's refresh
// workflow. Changes within one RefreshWindow share a run, whose id names
// the item and the window; the run waits out the window and then marks
// the item's assessments that became stale and announces each with
// assessment.stale. The domain records these starts itself, from the
// commands that make the changes, so no caller can forget one; the
// workflow package registers the workflow under AssessmentRefreshType.

// AssessmentRefreshType is the registered type name of the refresh
// workflow.
const AssessmentRefreshType = "AssessmentRefresh"

// RefreshWindow is the debounce window of an item's refresh.
const RefreshWindow = time.Minute

// AssessmentRefreshInput names the item to refresh.
type AssessmentRefreshInput struct {
	OrganizationID uuid.UUID `json:"organization_id"`
	ItemID         uuid.UUID `json:"item_id"`
}

// AssessmentRefreshWorkflowID is the refresh run of the item for the
// window that holds at.
func AssessmentRefreshWorkflowID(itemID uuid.UUID, at time.Time) string {
	return "assessment/" + itemID.String() + "/refresh/" + at.UTC().Truncate(RefreshWindow).Format("20060102T1504Z")
}

// refreshAssessments records the item's refresh when it has an assessment
// not yet marked stale; an item never assessed needs none.
func refreshAssessments(w *work.Unit, itemID uuid.UUID) error {
	var pending bool
	if err := w.Tx().Raw(`SELECT EXISTS (SELECT 1 FROM assessments WHERE organization_id = ? AND catalog_item_id = ? AND stale_since IS NULL)`,
		w.Organization(), itemID).Scan(&pending).Error; err != nil || !pending {
		return err
	}
	return StartWorkflow(w, AssessmentRefreshWorkflowID(itemID, now()), AssessmentRefreshType, itemID, AssessmentRefreshInput{OrganizationID: w.Organization(), ItemID: itemID})
}

// MarkAssessmentsStale marks the item's assessments that are stale and
// not yet marked, announcing each; it returns how many. Running it again
// marks nothing twice.
func MarkAssessmentsStale(w *work.Unit, itemID uuid.UUID) (int, error) {
	var candidates []uuid.UUID
	if err := Tenant(w.Context(), w.Tx(), w.Organization()).Model(&Assessment{}).
		Where("catalog_item_id = ? AND stale_since IS NULL", itemID).Pluck("id", &candidates).Error; err != nil || len(candidates) == 0 {
		return 0, err
	}
	stale, err := AssessmentStale(w.Context(), w.Tx(), w.Organization(), candidates)
	if err != nil {
		return 0, err
	}
	marked := 0
	for _, id := range candidates {
		if !stale[id] {
			continue
		}
		res := w.Tx().Model(&Assessment{}).Where("id = ? AND stale_since IS NULL", id).Update("stale_since", now())
		if res.Error != nil {
			return marked, res.Error
		}
		if res.RowsAffected == 1 {
			marked++
			if err := Emit(w, AssessmentStaleEvent{ID: id}); err != nil {
				return marked, err
			}
		}
	}
	return marked, nil
}
