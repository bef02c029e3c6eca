package catalog

import (
	"time"

	"github.com/google/uuid"

	"ppwr/domain"
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

// RefreshWindow is the debounce window of an item's refresh.
const RefreshWindow = time.Minute

// AssessmentRefreshInput names the item to refresh and the window of the
// change (its id names the window).
type AssessmentRefreshInput struct {
	domain.Org
	ItemID uuid.UUID `json:"item_id"`
	Window time.Time `json:"window"`
}

// AssessmentRefreshWorkflow is the refresh run of an item for the window
// that holds the change: the changes of one window share the run.
var AssessmentRefreshWorkflow = domain.Workflow[AssessmentRefreshInput]{
	Type: "AssessmentRefresh",
	ID: func(in AssessmentRefreshInput) string {
		return "assessment/" + in.ItemID.String() + "/refresh/" + in.Window.UTC().Truncate(RefreshWindow).Format("20060102T1504Z")
	},
	Resource: func(in AssessmentRefreshInput) uuid.UUID { return in.ItemID },
}

// RefreshAssessments records the item's refresh when it has an assessment
// not yet marked stale; an item never assessed needs none.
func RefreshAssessments(w *work.Unit, itemID uuid.UUID) error {
	var pending bool
	if err := w.Tx().Raw(`SELECT EXISTS (SELECT 1 FROM assessments WHERE organization_id = ? AND catalog_item_id = ? AND stale_since IS NULL)`,
		w.Organization(), itemID).Scan(&pending).Error; err != nil || !pending {
		return err
	}
	window := domain.Now().Truncate(RefreshWindow)
	return domain.Start(w, AssessmentRefreshWorkflow,
		AssessmentRefreshInput{Org: domain.OrgOf(w.Organization()), ItemID: itemID, Window: window},
		"Mark the assessments of catalogue item `"+itemID.String()+"` outdated after its changes from "+window.UTC().Format("15:04 UTC"))
}
