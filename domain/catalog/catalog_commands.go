package catalog

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// CreateCatalogItem creates an item at revision 1 with its first data
// version. A taken internalCode is named beside the other bad fields;
// a create that is otherwise valid learns of it from the unique index, at
// commit (FromDatabase).
func CreateCatalogItem(w *work.Unit, in *CatalogItemCreate) (*CatalogItem, error) {
	var refs domain.References
	in.References(&refs, &in.Errors)
	if err := refs.Check(w); err != nil {
		return nil, err
	}
	if in.Failed() {
		if err := checkCodeFree(w, &in.Errors, in.InternalCode, uuid.Nil); err != nil {
			return nil, err
		}
		return nil, in.Err()
	}
	item := &CatalogItem{
		ID: domain.NewID(), OrganizationID: w.Organization(), InternalCode: in.InternalCode.Value, Name: in.Name.Value,
		SourcingType: in.SourcingType.Value, MassG: in.MassG.Value, MainMaterialCode: in.MainMaterialCode.Value,
		StockUnit: in.StockUnit.Value, StockTracked: in.StockTracked.Value, FoodContactStatus: in.FoodContactStatus.Value,
		ReuseType: in.ReuseType.Value, InnerLengthMm: domain.Optional(in.InnerLengthMm), InnerWidthMm: domain.Optional(in.InnerWidthMm),
		InnerHeightMm: domain.Optional(in.InnerHeightMm), FolderID: domain.Optional(in.Folder), FamilyID: domain.Optional(in.Family),
		Status: ItemActive, Revision: 1,
	}
	if err := w.Defer(item); err != nil {
		return nil, err
	}
	return item, itemRevised(w, item, CatalogItemCreated{CatalogItemID: item.ID, Revision: 1})
}

// UpdateCatalogItem changes the fields in sends, as a new revision, if the
// item is active and at an expected revision.
func UpdateCatalogItem(w *work.Unit, id uuid.UUID, expected domain.Expected, in *CatalogItemPatch) (*CatalogItem, error) {
	item, err := lockActiveItem(w, id)
	if err != nil {
		return nil, err
	}
	if !expected.Matches(item.Revision) {
		return nil, domain.ErrRevisionConflict
	}
	var refs domain.References
	in.References(&refs, &in.Errors)
	if err := refs.Check(w); err != nil {
		return nil, err
	}
	if err := checkCodeFree(w, &in.Errors, in.InternalCode, item.ID); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	set := in.columns()
	if len(set) == 0 {
		return item, nil
	}
	if err := bumpItem(w, item, set); err != nil {
		return nil, err
	}
	return item, itemRevised(w, item, CatalogItemUpdated{CatalogItemID: item.ID, Revision: item.Revision})
}

// ArchiveCatalogItem archives an item; archiving an archived item answers
// it unchanged. A sent revision must be the current one.
func ArchiveCatalogItem(w *work.Unit, id uuid.UUID, in *domain.RevisionOptional) (*CatalogItem, error) {
	return setItemStatus(w, id, ItemArchived, &in.Errors, in.Revision)
}

// RestoreCatalogItem makes an archived item active again, at the revision
// the client read.
func RestoreCatalogItem(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*CatalogItem, error) {
	return setItemStatus(w, id, ItemActive, &in.Errors, in.Revision)
}

func setItemStatus(w *work.Unit, id uuid.UUID, status string, errs *input.Errors, revision input.Opt[int]) (*CatalogItem, error) {
	item, err := LockItem(w, id)
	if err != nil {
		return nil, err
	}
	if errs.Failed() {
		return nil, errs.Err()
	}
	if revision.Set() && revision.Value != item.Revision {
		return nil, domain.ErrRevisionConflict
	}
	if item.Status == status {
		return item, nil
	}
	updates := map[string]any{"status": status, "archived_at": nil}
	if status == ItemArchived {
		updates["archived_at"] = time.Now().UTC()
	}
	if err := bumpItem(w, item, updates); err != nil {
		return nil, err
	}
	var event domain.Payload = CatalogItemRestored{CatalogItemID: item.ID, Revision: item.Revision}
	if status == ItemArchived {
		event = CatalogItemArchived{CatalogItemID: item.ID, Revision: item.Revision}
	}
	return item, itemRevised(w, item, event)
}

// CreateComponent adds a component: the item gets a new revision (and data
// version) and its assessments become stale. A sent revision guards
// against adding to an item that changed since it was read.
func CreateComponent(w *work.Unit, itemID uuid.UUID, in *ComponentCreate) (*Component, error) {
	item, err := lockActiveItem(w, itemID)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if in.Revision.Set() && in.Revision.Value != item.Revision {
		return nil, domain.ErrRevisionConflict
	}
	comp := &Component{ID: domain.NewID(), OrganizationID: item.OrganizationID, CatalogItemID: item.ID,
		Name: in.Name.Value, Role: in.Role.Value, MaterialCode: in.MaterialCode.Value, MassG: in.MassG.Value, CreatedAt: domain.Now()}
	if err := w.Tx().Create(comp).Error; err != nil {
		return nil, err
	}
	if err := bumpItem(w, item, map[string]any{"assessments_stale_since": time.Now().UTC()}); err != nil {
		return nil, err
	}
	if err := itemRevised(w, item, ComponentCreated{CatalogItemID: item.ID, Revision: item.Revision}); err != nil {
		return nil, err
	}
	w.Touch("component", comp.ID)
	return comp, nil
}

// ReplaceMarkets makes the item's active scenarios exactly the listed
// countries with their details. Scenarios are immutable: an unchanged
// country keeps its scenario, a changed or removed one is deactivated, and
// a changed or new one gets a new scenario. Any change is a new revision.
// It returns the item's revision and its active scenarios.
func ReplaceMarkets(w *work.Unit, itemID uuid.UUID, in *MarketsReplace) (int, []MarketScenario, error) {
	item, err := lockActiveItem(w, itemID)
	if err != nil {
		return 0, nil, err
	}
	if in.Failed() {
		return 0, nil, in.Err()
	}
	if in.MarketRevision.Value != item.Revision {
		return 0, nil, domain.ErrRevisionConflict
	}
	ctx, tx := w.Context(), w.Tx()
	active, err := activeMarkets(ctx, tx, item)
	if err != nil {
		return 0, nil, err
	}
	countries := in.Markets.Value
	stamp := time.Now().UTC()
	changed := false
	kept := map[string]bool{}
	for i := range active {
		m := &active[i]
		if slices.Contains(countries, m.CountryCode) && in.Details[m.CountryCode].matches(m) {
			kept[m.CountryCode] = true
			continue
		}
		if err := tx.Model(m).Updates(map[string]any{"active": false, "deactivated_at": stamp}).Error; err != nil {
			return 0, nil, err
		}
		changed = true
	}
	for _, country := range countries {
		if kept[country] {
			continue
		}
		d := in.Details[country]
		if d == nil {
			d = &MarketDetail{}
		}
		m := &MarketScenario{ID: domain.NewID(), OrganizationID: item.OrganizationID, CatalogItemID: item.ID, CountryCode: country,
			OriginCountry: domain.Optional(d.OriginCountry), EconomicRole: domain.Optional(d.EconomicRole), AssessmentDate: domain.Optional(d.AssessmentDate), Active: true}
		if err := tx.Create(m).Error; err != nil {
			return 0, nil, err
		}
		changed = true
	}
	if changed {
		if err := bumpItem(w, item, map[string]any{}); err != nil {
			return 0, nil, err
		}
		if err := itemRevised(w, item, MarketsChanged{CatalogItemID: item.ID, Revision: item.Revision}); err != nil {
			return 0, nil, err
		}
	}
	current, err := activeMarkets(ctx, tx, item)
	return item.Revision, current, err
}

// LockItem reads the unit's organization's item for update.
func LockItem(w *work.Unit, id uuid.UUID) (*CatalogItem, error) {
	return domain.LockFor[CatalogItem](w.Context(), w.Tx(), w.Organization(), id, "UPDATE")
}

// lockActiveItem locks the item for a change that new work makes and
// refuses archived items.
func lockActiveItem(w *work.Unit, id uuid.UUID) (*CatalogItem, error) {
	item, err := LockItem(w, id)
	if err != nil {
		return nil, err
	}
	if item.Status == ItemArchived {
		return nil, domain.ErrItemArchived
	}
	return item, nil
}

// checkCodeFree fails internalCode when another item of the organization
// uses it.
func checkCodeFree(w *work.Unit, errs *input.Errors, code input.Opt[string], except uuid.UUID) error {
	if !code.Set() || errs.Has("internalCode") {
		return nil
	}
	var n int64
	err := domain.Tenant(w.Context(), w.Read(), w.Organization()).Model(&CatalogItem{}).
		Where("internal_code = ? AND id <> ?", code.Value, except).Count(&n).Error
	if n > 0 {
		errs.Fail("internalCode", "field.taken")
	}
	return err
}

// bumpItem applies updates with the next revision and reloads the item.
func bumpItem(w *work.Unit, item *CatalogItem, updates map[string]any) error {
	if err := domain.UpdateWithRevision(w.Context(), w.Tx(), &CatalogItem{}, item.OrganizationID, item.ID, item.Revision, updates); err != nil {
		return err
	}
	// A fresh value: GORM leaves a pointer field untouched when it scans
	// NULL into a reused struct, so a cleared archivedAt would survive.
	fresh, err := domain.Find[CatalogItem](w.Context(), w.Tx(), item.OrganizationID, item.ID)
	if err != nil {
		return err
	}
	*item = *fresh
	return nil
}

// itemRevised records a new revision of item: its data version, the event
// and the audit record, all in the unit of work.
func itemRevised(w *work.Unit, item *CatalogItem, event domain.Payload) error {
	var (
		comps   []Component
		markets []MarketScenario
		err     error
	)
	// Components and markets each make a new revision, so the first
	// revision has neither and a create needs no reads (nor a transaction).
	if item.Revision > 1 {
		if comps, markets, err = itemContents(w.Context(), w.Tx(), item); err != nil {
			return err
		}
	}
	version, err := NewDataVersion(item, comps, markets)
	if err != nil {
		return err
	}
	if err := w.Defer(version); err != nil {
		return err
	}
	if item.Revision > 1 {
		if err := RefreshAssessments(w, item.ID); err != nil {
			return err
		}
	}
	w.Touch("catalog_item", item.ID)
	return domain.Emit(w, event)
}

// itemContents reads what a data version holds besides the item's own
// fields: its components and its active market scenarios.
func itemContents(ctx context.Context, tx *gorm.DB, item *CatalogItem) ([]Component, []MarketScenario, error) {
	var comps []Component
	if err := domain.Tenant(ctx, tx, item.OrganizationID).Where("catalog_item_id = ?", item.ID).Order("id").Find(&comps).Error; err != nil {
		return nil, nil, err
	}
	markets, err := activeMarkets(ctx, tx, item)
	return comps, markets, err
}

func activeMarkets(ctx context.Context, tx *gorm.DB, item *CatalogItem) ([]MarketScenario, error) {
	var markets []MarketScenario
	err := domain.Tenant(ctx, tx, item.OrganizationID).Where("catalog_item_id = ? AND active", item.ID).Order("country_code").Find(&markets).Error
	return markets, err
}
