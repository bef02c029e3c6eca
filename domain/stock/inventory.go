package stock

import (
	"encoding/json"
	"errors"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Inventory is an item's stock in its stock unit, on one data version: the
// current one (the balance), or a historical one (the sums of the
// movements that cited it). No FIFO is assumed: stock is not split into
// lots, and a historical version's quantities are only what was recorded
// on it.
type Inventory struct {
	Item         uuid.UUID
	StockUnit    string
	StockTracked bool
	Revision     int
	DataVersion  uuid.UUID
	Physical     decimal.Decimal
	Reserved     decimal.Decimal
	Units        []catalog.UnitConversion
}

// Available is the stock neither used nor held by a reservation.
func (i *Inventory) Available() decimal.Decimal { return i.Physical.Sub(i.Reserved) }

// ReadInventory reads the organization's item's inventory, on the data
// version version when it is set (a version of another item is a 422 on
// field).
func ReadInventory(w *work.Unit, itemID uuid.UUID, version input.Opt[uuid.UUID], field string) (*Inventory, error) {
	ctx, db, org := w.Context(), w.Read(), w.Organization()
	item, err := domain.Find[catalog.CatalogItem](ctx, db, org, itemID)
	if err != nil {
		return nil, err
	}
	if !version.Set() {
		id, err := catalog.CurrentDataVersion(w, item)
		if err != nil {
			return nil, err
		}
		b, err := Balance(w, item.ID)
		if err != nil {
			return nil, err
		}
		return &Inventory{Item: item.ID, StockUnit: item.StockUnit, StockTracked: item.StockTracked, Revision: item.Revision,
			DataVersion: id, Physical: b.Physical, Reserved: b.Reserved, Units: item.Conversions()}, nil
	}
	v, err := domain.FindOfItem[catalog.DataVersion](ctx, db, org, item.ID, version.Value)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, input.Invalidf(field, "field.not_item_data_version")
	}
	if err != nil {
		return nil, err
	}
	// The version's own unit and mass: its movements were recorded in
	// them, whatever the item says now.
	var spec catalog.ItemSpecifications
	if err := json.Unmarshal(v.Specifications, &spec); err != nil {
		return nil, err
	}
	then := catalog.CatalogItem{StockUnit: spec.StockUnit, MassG: spec.MassG}
	var sums struct{ Physical, Reserved decimal.Decimal }
	if err := domain.Tenant(ctx, db, org).Model(&StockMovement{}).
		Select("COALESCE(SUM(physical_delta), 0) AS physical, COALESCE(SUM(reserved_delta), 0) AS reserved").
		Where("catalog_item_id = ? AND data_version_id = ?", item.ID, v.ID).Scan(&sums).Error; err != nil {
		return nil, err
	}
	return &Inventory{Item: item.ID, StockUnit: spec.StockUnit, StockTracked: spec.StockTracked, Revision: v.Revision,
		DataVersion: v.ID, Physical: sums.Physical, Reserved: sums.Reserved, Units: then.Conversions()}, nil
}
