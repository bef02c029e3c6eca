package catalog

import (
	"time"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/work"
)

// Assessment refresh. A change to what an item's assessments read (a new
// item revision, a register entry created or reviewed, evidence decided,
// or a record about the item: a deposit scheme accepted, an authority
// request, a re-use system, a supplier's answer or document, a supply
// record) records, in the change's unit of work, the start of the item's
// refresh workflow. Changes within one RefreshWindow share a run, whose
// id names the item and the window; the run waits out the window and
// then marks the item's assessments that became stale and announces each
// with assessment.stale. The domain records these starts itself, from the
// commands that make the changes, so no caller can forget one; the
// workflow package registers the workflow under AssessmentRefreshType.
// A change to what the organization's assessments all read (its
// compliance profile, EPR reports, refill stations, flows of a closed
// year) records none: it would refresh every item assessed, so reads
// compute `stale` (assessments.AssessmentStale) without an event.

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

// RefreshAssessments records the refresh of each item that has an
// assessment not yet marked stale, in one query; an item never assessed
// needs none. A record naming many items (a deposit scheme, an authority
// request) records their refreshes at once.
func RefreshAssessments(w *work.Unit, itemIDs ...uuid.UUID) error {
	if len(itemIDs) == 0 {
		return nil
	}
	var pending []uuid.UUID
	if err := w.Tx().Raw(`SELECT DISTINCT catalog_item_id FROM assessments WHERE organization_id = ? AND catalog_item_id IN ? AND stale_since IS NULL
		ORDER BY catalog_item_id`, w.Organization(), itemIDs).Scan(&pending).Error; err != nil {
		return err
	}
	window := domain.Now().Truncate(RefreshWindow)
	for _, itemID := range pending {
		if err := domain.Start(w, AssessmentRefreshWorkflow,
			AssessmentRefreshInput{Org: domain.OrgOf(w.Organization()), ItemID: itemID, Window: window},
			"Mark the assessments of catalogue item `"+itemID.String()+"` outdated after its changes from "+window.UTC().Format("15:04 UTC")); err != nil {
			return err
		}
	}
	return nil
}
