package catalog

import (
	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/work"
)

// LockItemShared reads the organization's item and keeps it from changing
// (a new revision, an archive) until the unit commits, so a record citing
// its revision and data version stays true.
func LockItemShared(w *work.Unit, id uuid.UUID) (*CatalogItem, error) {
	return domain.LockFor[CatalogItem](w.Context(), w.Tx(), w.Organization(), id, "SHARE")
}
