package stock

import (
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/database"
	"ppwr/internal/work"
)

// The stock ledger. Every stock change appends a movement citing the
// item's data version, and changes the item's balance row under a row
// lock taken in item order, so concurrent requests take the same stock one
// after another and never deadlock. A balance always equals the sums of
// its movements; an item's available stock is physical minus reserved.
// Only stock-tracked items refuse a change that leaves too little
// available: the others record movements for reporting without a balance
// anyone relies on.

// Kinds of stock movement.
const (
	MovementSupply             = "supply_event"
	MovementSetConsumption     = "set_consumption"
	MovementPackingConsumption = "packing_consumption"
	MovementReservationHold    = "reservation_hold"
	MovementReservationRelease = "reservation_release"
	MovementReservationConsume = "reservation_consume"
)

// StockBalance is an item's stock in its stock unit.
type StockBalance struct {
	CatalogItemID  uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Physical       decimal.Decimal
	Reserved       decimal.Decimal
	UpdatedAt      time.Time
}

// Available is the stock neither used nor held by a reservation.
func (b *StockBalance) Available() decimal.Decimal { return b.Physical.Sub(b.Reserved) }

// StockMovement is one appended change of an item's stock.
type StockMovement struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	DataVersionID  uuid.UUID `gorm:"type:uuid"`
	Kind           string
	PhysicalDelta  decimal.Decimal
	ReservedDelta  decimal.Decimal
	SourceType     string
	SourceID       uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
}

// StockChange is a change of one item's stock that a command asks for.
// Field is the request field a shortage is reported on.
type StockChange struct {
	Item        *catalog.CatalogItem
	DataVersion uuid.UUID
	Kind        string
	Physical    decimal.Decimal
	Reserved    decimal.Decimal
	Source      work.Record
	Field       string
}

// ErrInsufficientStock refuses a change that would leave a stock-tracked
// item with less than nothing available.
var ErrInsufficientStock = &domain.RuleError{Code: "insufficient_stock", Key: "error.insufficient_stock"}

// ApplyStock applies changes in w: it appends their movements, and moves
// the balances of their items as w's last step before it commits, refusing
// the lot if a tracked item would be short. Several changes may concern
// one item; they are judged by their sum. Many requests wait for the same
// balance rows (every parcel packed from one set), so the rows are locked
// for that one statement and the commit, not while the rest of the
// request's work is done and written.
func ApplyStock(w *work.Unit, changes []StockChange) error {
	if len(changes) == 0 {
		return nil
	}
	stamp, org := domain.Now(), w.Organization()
	net := map[uuid.UUID]*stockDelta{}
	var items []uuid.UUID
	for _, c := range changes {
		if err := w.Defer(&StockMovement{
			ID: domain.NewID(), OrganizationID: org, CatalogItemID: c.Item.ID, DataVersionID: c.DataVersion,
			Kind: c.Kind, PhysicalDelta: c.Physical, ReservedDelta: c.Reserved,
			SourceType: c.Source.Type, SourceID: c.Source.ID, CreatedAt: stamp,
		}); err != nil {
			return err
		}
		d, ok := net[c.Item.ID]
		if !ok {
			d = &stockDelta{}
			net[c.Item.ID] = d
			items = append(items, c.Item.ID)
		}
		d.physical, d.reserved = d.physical.Add(c.Physical), d.reserved.Add(c.Reserved)
	}
	physical, reserved := make([]decimal.Decimal, len(items)), make([]decimal.Decimal, len(items))
	for i, id := range items {
		physical[i], reserved[i] = net[id].physical, net[id].reserved
	}
	ids := database.Array(items)
	// An item's first movement creates its balance, with the movements.
	// A balance that exists is not inserted at all: ON CONFLICT would
	// find its row changed by the unit moving it now and wait for that
	// unit's commit, so every unit would queue for the balances here too,
	// not only in its last statement.
	w.DeferExec(`INSERT INTO stock_balances (catalog_item_id, organization_id) SELECT k, $1 FROM unnest($2::uuid[]) AS k
		WHERE NOT EXISTS (SELECT FROM stock_balances AS b WHERE b.catalog_item_id = k) ORDER BY k ON CONFLICT DO NOTHING`, org, ids)
	w.Last(func(tx *gorm.DB) error {
		after, err := moveBalances(tx, org, ids, database.Array(physical), database.Array(reserved))
		if err != nil {
			return err
		}
		return refuseShortage(changes, after, net)
	})
	return nil
}

// stockDelta is the sum of a unit's changes of one item's stock.
type stockDelta struct{ physical, reserved decimal.Decimal }

// moveBalances adds the changes physical and reserved to the
// organization's balances of the items ids in one statement, which first
// locks the rows in item order so that no two units deadlock, and answers
// each item's available stock after. It returns only that, read by
// position: the statement holds the balances' locks that every unit
// moving them waits for.
func moveBalances(tx *gorm.DB, org uuid.UUID, ids pgtype.Array[uuid.UUID], physical, reserved pgtype.Array[decimal.Decimal]) (map[uuid.UUID]decimal.Decimal, error) {
	rows, err := tx.Raw(`WITH locked AS MATERIALIZED (SELECT catalog_item_id FROM stock_balances
			WHERE organization_id = ? AND catalog_item_id = ANY (?::uuid[]) ORDER BY catalog_item_id FOR UPDATE)
		UPDATE stock_balances AS b SET physical = b.physical + v.physical, reserved = b.reserved + v.reserved, updated_at = now()
		FROM locked JOIN unnest(?::uuid[], ?::numeric[], ?::numeric[]) AS v (id, physical, reserved) ON v.id = locked.catalog_item_id
		WHERE b.catalog_item_id = locked.catalog_item_id
		RETURNING b.catalog_item_id, b.physical, b.reserved`, org, ids, ids, physical, reserved).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	available := make(map[uuid.UUID]decimal.Decimal, len(ids.Elements))
	for rows.Next() {
		var b StockBalance
		if err := rows.Scan(&b.CatalogItemID, &b.Physical, &b.Reserved); err != nil {
			return nil, err
		}
		available[b.CatalogItemID] = b.Available()
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(available) != len(ids.Elements) {
		return nil, errors.New("stock: an item's balance belongs to another organization")
	}
	return available, nil
}

// refuseShortage refuses the changes if they left a tracked item short of
// stock by lowering its available stock (after, by item), naming each
// such change's field.
func refuseShortage(changes []StockChange, after map[uuid.UUID]decimal.Decimal, net map[uuid.UUID]*stockDelta) error {
	var short *domain.RuleError
	for _, c := range changes {
		d, left := net[c.Item.ID], after[c.Item.ID]
		before := left.Sub(d.physical).Add(d.reserved)
		if c.Item.StockTracked && left.IsNegative() && left.LessThan(before) {
			if short == nil {
				short = ErrInsufficientStock
			}
			short = short.On(c.Field, "field.insufficient_stock", before.String(), c.Item.StockUnit)
		}
	}
	if short != nil {
		return short
	}
	return nil
}

// Balance reads an item's balance without a lock; an item that never moved
// has an empty one.
func Balance(w *work.Unit, itemID uuid.UUID) (*StockBalance, error) {
	b, err := domain.Take[StockBalance](domain.Tenant(w.Context(), w.Read(), w.Organization()).Where("catalog_item_id = ?", itemID))
	if errors.Is(err, domain.ErrNotFound) {
		return &StockBalance{CatalogItemID: itemID, OrganizationID: w.Organization()}, nil
	}
	return b, err
}
