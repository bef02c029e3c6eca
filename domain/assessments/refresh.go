package assessments

import (
	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/work"
)

// MarkAssessmentsStale marks the item's assessments that are stale and
// not yet marked, announcing each; it returns how many. Running it again
// marks nothing twice.
func MarkAssessmentsStale(w *work.Unit, itemID uuid.UUID) (int, error) {
	var candidates []uuid.UUID
	if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&Assessment{}).
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
		res := w.Tx().Model(&Assessment{}).Where("id = ? AND stale_since IS NULL", id).Update("stale_since", domain.Now())
		if res.Error != nil {
			return marked, res.Error
		}
		if res.RowsAffected == 1 {
			marked++
			if err := domain.Emit(w, AssessmentStaleEvent{ID: id}); err != nil {
				return marked, err
			}
		}
	}
	return marked, nil
}
