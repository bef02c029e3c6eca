package packing

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Commands of packing sets: the set's own fields and status, and its
// recipe lines. Every change locks the set and makes a new revision, so a
// client that packs by a revision it read knows nothing moved under it.

// PackagingSystemView is a set as its reads answer it: with the number of
// its recipe lines.
type PackagingSystemView struct {
	PackagingSystem
	LinesCount int `gorm:"->"`
}

// TableName maps the view onto the sets' table.
func (PackagingSystemView) TableName() string { return "packaging_systems" }

// PackagingSystems is the query of the organization's sets with their line
// counts.
func PackagingSystems(ctx context.Context, db *gorm.DB, org uuid.UUID) *gorm.DB {
	return domain.Tenant(ctx, db, org).Model(&PackagingSystemView{}).Select(`packaging_systems.*,
		(SELECT count(*) FROM packaging_system_lines l WHERE l.packaging_system_id = packaging_systems.id) AS lines_count`)
}

// FindPackagingSystem reads the organization's set id with its line count.
func FindPackagingSystem(ctx context.Context, db *gorm.DB, org, id uuid.UUID) (*PackagingSystemView, error) {
	return domain.Take[PackagingSystemView](PackagingSystems(ctx, db, org).Where("id = ?", id))
}

// PackagingSystemCreate is the body of a new set.
type PackagingSystemCreate struct {
	input.Errors
	PackagingSystemFields
}

// Declare names the create's fields: a name, and optionally a code and a
// description (null or blank is none).
func (in *PackagingSystemCreate) Declare(f *input.Fields) { in.declare(f, true) }

// PackagingSystemUpdate changes the fields it sends at the revision the
// client read; omitted fields are kept, and a null or blank code or
// description clears it.
type PackagingSystemUpdate struct {
	input.Errors
	Revision input.Opt[int]
	PackagingSystemFields
}

// Declare names the update's fields: the revision and at least one change.
func (in *PackagingSystemUpdate) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	in.declare(f, false)
	catalog.OneRequired(f, in.Name.Sent || in.Code.Sent || in.Description.Sent, "name", "code", "description")
}

// codeOf is the code a sent field sets: none for null or blank.
func codeOf(code input.Opt[string]) *string {
	if !code.Set() || code.Value == "" {
		return nil
	}
	return &code.Value
}

// checkSystemCodeFree fails code when another set of the organization uses
// it. A concurrent create that takes it first is caught by the unique
// index at commit (FromDatabase).
func checkSystemCodeFree(w *work.Unit, errs *input.Errors, code input.Opt[string], except uuid.UUID) error {
	c := codeOf(code)
	if c == nil || errs.Has("code") {
		return nil
	}
	var n int64
	err := domain.Tenant(w.Context(), w.Read(), w.Organization()).Model(&PackagingSystem{}).
		Where("code = ? AND id <> ?", *c, except).Count(&n).Error
	if n > 0 {
		errs.Fail("code", "field.taken")
	}
	return err
}

// CreatePackagingSystem creates an active set at revision 1, without lines.
func CreatePackagingSystem(w *work.Unit, in *PackagingSystemCreate) (*PackagingSystemView, error) {
	if err := checkSystemCodeFree(w, &in.Errors, in.Code, uuid.Nil); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	stamp := domain.Now()
	sys := &PackagingSystem{ID: domain.NewID(), OrganizationID: w.Organization(), Name: in.Name.Value, Code: codeOf(in.Code),
		Description: in.Description.Value, Status: SystemActive, Revision: 1, CreatedAt: stamp, UpdatedAt: stamp}
	if err := w.Defer(sys); err != nil {
		return nil, err
	}
	w.Touch("packaging_system", sys.ID)
	return &PackagingSystemView{PackagingSystem: *sys}, domain.Emit(w, PackagingSystemCreated{PackagingSystemID: sys.ID, Revision: 1})
}

// lockActiveSystem locks the organization's set for a change and refuses
// an archived one: it takes no new work, recipe changes included.
func lockActiveSystem(w *work.Unit, id uuid.UUID) (*PackagingSystem, error) {
	sys, err := lockSystem(w, id)
	if err != nil {
		return nil, err
	}
	if sys.Status == SystemArchived {
		return nil, ErrSystemArchived
	}
	return sys, nil
}

// UpdatePackagingSystem applies an update to an active set.
func UpdatePackagingSystem(w *work.Unit, id uuid.UUID, in *PackagingSystemUpdate) (*PackagingSystemView, error) {
	sys, err := lockActiveSystem(w, id)
	if err != nil {
		return nil, err
	}
	if err := checkSystemCodeFree(w, &in.Errors, in.Code, sys.ID); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	updates := map[string]any{}
	if in.Name.Set() {
		updates["name"] = in.Name.Value
	}
	if in.Code.Sent {
		updates["code"] = codeOf(in.Code)
	}
	if in.Description.Sent {
		updates["description"] = in.Description.Value
	}
	return reviseSystem(w, sys, in.Revision.Value, updates, systemUpdated)
}

// ArchivePackagingSystem archives a set; archiving an archived set answers
// it unchanged. A sent revision must be the current one.
func ArchivePackagingSystem(w *work.Unit, id uuid.UUID, in *domain.RevisionOptional) (*PackagingSystemView, error) {
	return setSystemStatus(w, id, SystemArchived, &in.Errors, in.Revision)
}

// RestorePackagingSystem makes an archived set active again, at the
// revision the client read.
func RestorePackagingSystem(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*PackagingSystemView, error) {
	return setSystemStatus(w, id, SystemActive, &in.Errors, in.Revision)
}

func setSystemStatus(w *work.Unit, id uuid.UUID, status string, errs *input.Errors, revision input.Opt[int]) (*PackagingSystemView, error) {
	sys, err := lockSystem(w, id)
	if err != nil {
		return nil, err
	}
	if errs.Failed() {
		return nil, errs.Err()
	}
	if revision.Set() && revision.Value != sys.Revision {
		return nil, domain.ErrRevisionConflict
	}
	if sys.Status == status {
		return FindPackagingSystem(w.Context(), w.Tx(), w.Organization(), sys.ID)
	}
	updates := map[string]any{"status": status, "archived_at": nil}
	event := systemRestored
	if status == SystemArchived {
		updates["archived_at"] = time.Now().UTC()
		event = systemArchived
	}
	return reviseSystem(w, sys, sys.Revision, updates, event)
}

// The events of a set's revisions, built from the revision made.
func systemUpdated(d PackagingSystemRevision) domain.Payload { return PackagingSystemUpdated(d) }

func systemArchived(d PackagingSystemRevision) domain.Payload { return PackagingSystemArchived(d) }

func systemRestored(d PackagingSystemRevision) domain.Payload { return PackagingSystemRestored(d) }

// reviseSystem writes updates as the set's next revision, if it is still
// at expected, with its event and audit entry.
func reviseSystem(w *work.Unit, sys *PackagingSystem, expected int, updates map[string]any, event func(PackagingSystemRevision) domain.Payload) (*PackagingSystemView, error) {
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	if err := domain.UpdateWithRevision(ctx, tx, &PackagingSystem{}, org, sys.ID, expected, updates); err != nil {
		return nil, err
	}
	view, err := FindPackagingSystem(ctx, tx, org, sys.ID)
	if err != nil {
		return nil, err
	}
	w.Touch("packaging_system", view.ID)
	return view, domain.Emit(w, event(PackagingSystemRevision{PackagingSystemID: view.ID, Revision: view.Revision}))
}

// PackagingSystemLineInput adds a recipe line, or changes the line it
// names: then omitted fields are kept.
type PackagingSystemLineInput struct {
	input.Errors
	Revision       input.Opt[int]
	Line           input.Opt[uuid.UUID]
	Item           input.Opt[uuid.UUID]
	Quantity       input.Opt[decimal.Decimal]
	Unit           input.Opt[string]
	Role           input.Opt[string]
	OuterPackaging input.Opt[bool]
}

// Declare names the line's fields. Item, quantity, unit and role are
// required when a line is added; the command says so, as it depends on
// line.
func (in *PackagingSystemLineInput) Declare(f *input.Fields) {
	revision := input.Revision(true)
	revision.Desc = "schema.packaging_system_revision"
	f.Int("revision", &in.Revision, revision)
	f.Ref("line", &in.Line, input.Ref{})
	f.Ref("item", &in.Item, input.Ref{})
	f.Decimal("quantity", &in.Quantity, input.Decimal{Positive: true})
	f.Enum("unit", &in.Unit, input.Enum{Values: catalog.StockUnits, Refused: catalog.RefusedStockUnits})
	f.Enum("role", &in.Role, input.Enum{Values: LineRoles})
	f.Bool("outer_packaging", &in.OuterPackaging, input.Bool{})
}

// UpsertPackagingSystemLine adds a line to an active set, or changes the
// line in.Line names, as the set's next revision. It answers the line, the
// set, and whether the line was added.
func UpsertPackagingSystemLine(w *work.Unit, systemID uuid.UUID, in *PackagingSystemLineInput) (*PackagingSystemLine, *PackagingSystemView, bool, error) {
	sys, err := lockActiveSystem(w, systemID)
	if err != nil {
		return nil, nil, false, err
	}
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	line := &PackagingSystemLine{ID: domain.NewID(), OrganizationID: org, PackagingSystemID: sys.ID}
	adding := !in.Line.Set()
	if !adding && !in.Errors.Has("line") {
		found, err := domain.Take[PackagingSystemLine](domain.Tenant(ctx, tx, org).Where("id = ? AND packaging_system_id = ?", in.Line.Value, sys.ID))
		switch {
		case errors.Is(err, domain.ErrNotFound):
			in.Fail("line", "field.not_found")
		case err != nil:
			return nil, nil, false, err
		default:
			line = found
		}
	}
	if adding {
		for name, sent := range map[string]bool{"item": in.Item.Sent, "quantity": in.Quantity.Sent, "unit": in.Unit.Sent, "role": in.Role.Sent} {
			if !sent {
				in.Fail(name, "field.required")
			}
		}
	}
	if in.Item.Set() {
		line.CatalogItemID = in.Item.Value
	}
	if in.Quantity.Set() {
		line.Quantity = in.Quantity.Value
	}
	if in.Unit.Set() {
		line.Unit = in.Unit.Value
	}
	if in.Role.Set() {
		line.Role = in.Role.Value
	}
	if in.OuterPackaging.Set() {
		line.OuterPackaging = in.OuterPackaging.Value
	}
	if err := checkLineItem(w, in, line); err != nil {
		return nil, nil, false, err
	}
	if in.Failed() {
		return nil, nil, false, in.Err()
	}
	if in.Revision.Value != sys.Revision {
		return nil, nil, false, domain.ErrRevisionConflict
	}
	stamp := domain.Now()
	line.UpdatedAt = stamp
	if adding {
		line.CreatedAt = stamp
		err = tx.Create(line).Error
	} else {
		err = tx.Model(line).Select("catalog_item_id", "quantity", "unit", "role", "outer_packaging", "updated_at").Updates(line).Error
	}
	if err != nil {
		return nil, nil, false, err
	}
	view, err := reviseSystem(w, sys, sys.Revision, map[string]any{}, systemUpdated)
	return line, view, adding, err
}

// checkLineItem fails the line's item when it is not an active item of the
// organization or is on another line of the set, and its unit when the
// item cannot convert from it.
func checkLineItem(w *work.Unit, in *PackagingSystemLineInput, line *PackagingSystemLine) error {
	if line.CatalogItemID == uuid.Nil || in.Has("item") || in.Has("line") {
		return nil
	}
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	item, err := domain.Find[catalog.CatalogItem](ctx, tx, org, line.CatalogItemID)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		in.Fail("item", "field.not_found")
		return nil
	case err != nil:
		return err
	case item.Status == catalog.ItemArchived:
		in.Fail("item", "field.archived")
	}
	var others int64
	if err := domain.Tenant(ctx, tx, org).Model(&PackagingSystemLine{}).
		Where("packaging_system_id = ? AND catalog_item_id = ? AND id <> ?", line.PackagingSystemID, item.ID, line.ID).
		Count(&others).Error; err != nil {
		return err
	}
	if others > 0 {
		in.Fail("item", "field.item_in_set")
	}
	catalog.UnitConverts(&in.Errors, "unit", item, line.Unit)
	return nil
}

// DeletePackagingSystemLine removes a line of an active set at the set's
// revision the client read, as the set's next revision.
func DeletePackagingSystemLine(w *work.Unit, systemID, lineID uuid.UUID, in *domain.RevisionRequired) (*PackagingSystemView, error) {
	sys, err := lockActiveSystem(w, systemID)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	line, err := domain.Take[PackagingSystemLine](domain.Tenant(w.Context(), w.Tx(), w.Organization()).
		Where("id = ? AND packaging_system_id = ?", lineID, sys.ID))
	if err != nil {
		return nil, err
	}
	if in.Revision.Value != sys.Revision {
		return nil, domain.ErrRevisionConflict
	}
	if err := w.Tx().Delete(line).Error; err != nil {
		return nil, err
	}
	return reviseSystem(w, sys, sys.Revision, map[string]any{}, systemUpdated)
}
