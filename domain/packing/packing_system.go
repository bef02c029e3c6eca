package packing

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/stock"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Packing sets (the spec's packaging systems) are recipes: the packaging
// one parcel of a kind takes. Consuming or reserving sets converts each
// line into the item's stock unit and moves stock through the ledger.

// Limits and enumerations of packing sets.
const (
	PackagingSystemCodeMax = 100
	SystemActive           = "active"
	SystemArchived         = "archived"
)

// LineRoles name what a recipe line does in the parcel.
var LineRoles = []string{"container", "filler", "protection", "closure", "label", "document_pouch", "other"}

// PackagingSystem is a packing set.
type PackagingSystem struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Name           string
	Code           *string
	Description    string
	Status         string
	Revision       int
	CreatedAt      time.Time
	UpdatedAt      time.Time
	ArchivedAt     *time.Time
}

// PackagingSystemLine is one line of a set's recipe: quantity of unit of
// an item per set. An item appears once per set.
type PackagingSystemLine struct {
	ID                uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID    uuid.UUID `gorm:"type:uuid"`
	PackagingSystemID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID     uuid.UUID `gorm:"type:uuid"`
	Quantity          decimal.Decimal
	Unit              string
	Role              string
	OuterPackaging    bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// FindSystemLine reads the line lineID of the organization's set
// systemID (ErrNotFound otherwise).
func FindSystemLine(ctx context.Context, db *gorm.DB, orgID, systemID, lineID uuid.UUID) (*PackagingSystemLine, error) {
	return domain.Take[PackagingSystemLine](domain.Tenant(ctx, db, orgID).Where("packaging_system_id = ? AND id = ?", systemID, lineID))
}

// CompositionLine is a recipe line as a set uses it: with the item's
// revision and data version, and the quantity and mass per set in the
// item's stock unit. Reservations and usages keep their composition, so
// later recipe or catalogue changes do not rewrite what was packed.
type CompositionLine struct {
	Line           uuid.UUID       `json:"line"`
	Item           uuid.UUID       `json:"item"`
	ItemRevision   int             `json:"item_revision"`
	DataVersion    uuid.UUID       `json:"data_version"`
	Quantity       decimal.Decimal `json:"quantity"`
	Unit           string          `json:"unit"`
	StockQuantity  decimal.Decimal `json:"stock_quantity"`
	StockUnit      string          `json:"stock_unit"`
	MassG          decimal.Decimal `json:"mass_g"`
	Role           string          `json:"role"`
	OuterPackaging bool            `json:"outer_packaging"`
	StockTracked   bool            `json:"stock_tracked"`
}

// Reasons a configuration is not ready.
const (
	IncompleteNoLines      = "no_lines"
	IncompleteItemArchived = "item_archived"
	IncompleteNoOuter      = "no_outer_packaging"
)

// Configuration is a set's current composition and what it allows.
type Configuration struct {
	System      *PackagingSystem
	Composition []CompositionLine
	// Hash is the SHA-256 hex of the canonical composition: a client that
	// sends it back proves it packs by the recipe it read.
	Hash string
	// Ready: the recipe is complete (Incomplete is empty), whatever the
	// stock.
	Ready      bool
	Incomplete []string
	// AllStockTracked: every item is stock-tracked, so AvailableSets is
	// known; nil otherwise.
	AllStockTracked bool
	AvailableSets   *int64
	items           map[uuid.UUID]*catalog.CatalogItem
}

// Item is the catalogue item of a composition line, as read with the
// configuration.
func (c *Configuration) Item(id uuid.UUID) *catalog.CatalogItem { return c.items[id] }

// ErrConfigurationChanged refuses packing by a recipe other than the
// current one.
var ErrConfigurationChanged = &domain.ConflictError{Code: "configuration_changed", Key: "error.configuration_changed"}

// ErrSystemArchived refuses new work with an archived set.
var ErrSystemArchived = &domain.RuleError{Code: "packaging_system_archived", Key: "error.packaging_system_archived"}

// ErrConfigurationNotReady refuses packing by an incomplete recipe.
var ErrConfigurationNotReady = &domain.RuleError{Code: "configuration_not_ready", Key: "error.configuration_not_ready"}

// LoadConfiguration reads the organization's set id with its lines and
// their items, and works out its configuration and available sets.
func LoadConfiguration(w *work.Unit, id uuid.UUID) (*Configuration, error) {
	cfg, err := LoadComposition(w, id)
	if err != nil || !cfg.AllStockTracked || len(cfg.Composition) == 0 {
		return cfg, err
	}
	sets, err := availableSets(w, cfg.Composition)
	if err != nil {
		return nil, err
	}
	cfg.AvailableSets = &sets
	return cfg, nil
}

// LoadComposition is the configuration without the stock it makes: what
// packing needs, since the ledger judges the stock under its locks.
func LoadComposition(w *work.Unit, id uuid.UUID) (*Configuration, error) {
	var selects []string
	for _, t := range []struct {
		model         any
		alias, prefix string
	}{{PackagingSystem{}, "s", "s_"}, {PackagingSystemLine{}, "l", "l_"}, {catalog.CatalogItem{}, "i", "i_"}} {
		list, err := domain.SelectAs(w.Read(), t.model, t.alias, t.prefix)
		if err != nil {
			return nil, err
		}
		selects = append(selects, list)
	}
	return readComposition(w, w.Read(), id, strings.Join(selects, ", "), "", nil)
}

// compositionRow is a line of a set's recipe with its set and its item, as
// one query reads them.
type compositionRow struct {
	System             PackagingSystem     `gorm:"embedded;embeddedPrefix:s_"`
	Line               PackagingSystemLine `gorm:"embedded;embeddedPrefix:l_"`
	Item               catalog.CatalogItem `gorm:"embedded;embeddedPrefix:i_"`
	CurrentDataVersion uuid.UUID
}

// packingColumns are what packing by a set reads (ConfigurationFor): the
// set's id, status and revision, its lines, and of their items what
// converts a line to the stock unit, weighs it, judges the recipe ready
// and moves its stock. Every parcel packed reads them, in its transaction,
// so they are no more than that.
const packingColumns = `s.id AS s_id, s.organization_id AS s_organization_id, s.status AS s_status, s.revision AS s_revision,
	l.id AS l_id, l.catalog_item_id AS l_catalog_item_id, l.quantity AS l_quantity, l.unit AS l_unit, l.role AS l_role,
	l.outer_packaging AS l_outer_packaging, i.id AS i_id, i.revision AS i_revision, i.stock_unit AS i_stock_unit, i.mass_g AS i_mass_g,
	i.stock_tracked AS i_stock_tracked, i.status AS i_status`

// scanPackingRow reads a row of packingColumns and the current data
// version, in their order, into r: by position, without GORM matching
// each column to a field of the embedded structs by reflection, which
// cost a reservation more than the read's own round trip.
func scanPackingRow(rows *sql.Rows, r *compositionRow) error {
	return rows.Scan(&r.System.ID, &r.System.OrganizationID, &r.System.Status, &r.System.Revision,
		&r.Line.ID, &r.Line.CatalogItemID, &r.Line.Quantity, &r.Line.Unit, &r.Line.Role, &r.Line.OuterPackaging,
		&r.Item.ID, &r.Item.Revision, &r.Item.StockUnit, &r.Item.MassG, &r.Item.StockTracked, &r.Item.Status, &r.CurrentDataVersion)
}

// readComposition reads the organization's set id with its lines, their
// items and the items' current data versions in one query on db, selecting
// columns of them (aliased s_, l_ and i_ as compositionRow scans them) and
// taking a lock of strength lock ("": none) on the set; a set without
// lines is read again on its own. scan reads a row of those columns (nil:
// GORM matches them to compositionRow's fields by name).
func readComposition(w *work.Unit, db *gorm.DB, id uuid.UUID, columns, lock string, scan func(*sql.Rows, *compositionRow) error) (*Configuration, error) {
	ctx, org := w.Context(), w.Organization()
	query := `SELECT ` + columns + `, v.id AS current_data_version
		FROM packaging_systems AS s
		JOIN packaging_system_lines AS l ON l.packaging_system_id = s.id AND l.organization_id = s.organization_id
		JOIN catalog_items AS i ON i.id = l.catalog_item_id AND i.organization_id = s.organization_id
		LEFT JOIN catalog_item_data_versions AS v ON v.catalog_item_id = i.id AND v.revision = i.revision
		WHERE s.organization_id = ? AND s.id = ?
		ORDER BY l.catalog_item_id`
	if lock != "" {
		query += " FOR " + lock + " OF s"
	}
	rows, err := compositionRows(db.WithContext(ctx).Raw(query, org, id), scan)
	if err != nil {
		return nil, err
	}
	var sys *PackagingSystem
	if len(rows) > 0 {
		sys = &rows[0].System
	} else {
		q := domain.Tenant(ctx, db, org)
		if lock != "" {
			q = q.Clauses(clause.Locking{Strength: lock})
		}
		if sys, err = domain.Take[PackagingSystem](q.Where("id = ?", id)); err != nil {
			return nil, err
		}
	}
	lines, items, versions := make([]PackagingSystemLine, len(rows)), map[uuid.UUID]*catalog.CatalogItem{}, map[uuid.UUID]uuid.UUID{}
	for i := range rows {
		lines[i] = rows[i].Line
		items[rows[i].Item.ID] = &rows[i].Item
		versions[rows[i].Item.ID] = rows[i].CurrentDataVersion
	}
	cfg := &Configuration{System: sys, Composition: []CompositionLine{}, AllStockTracked: true}
	if len(lines) == 0 {
		cfg.Incomplete = append(cfg.Incomplete, IncompleteNoLines)
	}
	cfg.items = items
	outer, archived := false, false
	for _, l := range lines {
		it := cfg.items[l.CatalogItemID]
		// A line's unit was checked against the item when it was saved;
		// an item whose stock unit changed since cannot convert it, and
		// the recipe is not ready until the line is corrected.
		perSet, ok := it.ToStockUnit(l.Quantity, l.Unit)
		if !ok {
			perSet = decimal.Zero
		}
		cfg.Composition = append(cfg.Composition, CompositionLine{
			Line: l.ID, Item: it.ID, ItemRevision: it.Revision, DataVersion: versions[it.ID], Quantity: l.Quantity, Unit: l.Unit,
			StockQuantity: perSet, StockUnit: it.StockUnit, MassG: it.MassOf(perSet), Role: l.Role,
			OuterPackaging: l.OuterPackaging, StockTracked: it.StockTracked,
		})
		outer = outer || l.OuterPackaging
		archived = archived || it.Status == catalog.ItemArchived || !ok
		cfg.AllStockTracked = cfg.AllStockTracked && it.StockTracked
	}
	if archived {
		cfg.Incomplete = append(cfg.Incomplete, IncompleteItemArchived)
	}
	if len(lines) > 0 && !outer {
		cfg.Incomplete = append(cfg.Incomplete, IncompleteNoOuter)
	}
	cfg.Ready = len(cfg.Incomplete) == 0
	cfg.Hash = compositionHash(cfg.Composition)
	return cfg, nil
}

// compositionRows runs q and reads its rows with scan (nil: GORM's Scan).
func compositionRows(q *gorm.DB, scan func(*sql.Rows, *compositionRow) error) ([]compositionRow, error) {
	var out []compositionRow
	if scan == nil {
		return out, q.Scan(&out).Error
	}
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		out = append(out, compositionRow{})
		if err := scan(rows, &out[len(out)-1]); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// compositionHash hashes what a recipe means: the items at their
// revisions with quantities, units, roles and the outer flag, in item
// order. Line ids and derived values are left out.
func compositionHash(lines []CompositionLine) string {
	type canonical struct {
		Item           uuid.UUID       `json:"item"`
		ItemRevision   int             `json:"item_revision"`
		Quantity       decimal.Decimal `json:"quantity"`
		Unit           string          `json:"unit"`
		Role           string          `json:"role"`
		OuterPackaging bool            `json:"outer_packaging"`
	}
	out := make([]canonical, len(lines))
	for i, l := range lines {
		// Normalised so "2" and "2.0" hash alike.
		out[i] = canonical{l.Item, l.ItemRevision, l.Quantity.Truncate(catalog.ConversionScale), l.Unit, l.Role, l.OuterPackaging}
	}
	body, _ := json.Marshal(out)
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

// availableSets is how many whole sets the available stock makes.
func availableSets(w *work.Unit, lines []CompositionLine) (int64, error) {
	ids := make([]uuid.UUID, len(lines))
	for i, l := range lines {
		ids[i] = l.Item
	}
	var balances []stock.StockBalance
	if err := domain.Tenant(w.Context(), w.Read(), w.Organization()).Where("catalog_item_id IN ?", ids).Find(&balances).Error; err != nil {
		return 0, err
	}
	available := map[uuid.UUID]decimal.Decimal{}
	for i := range balances {
		available[balances[i].CatalogItemID] = balances[i].Available()
	}
	var sets int64 = -1
	for _, l := range lines {
		n := int64(0)
		if a := available[l.Item]; l.StockQuantity.IsPositive() && a.IsPositive() {
			n = a.Div(l.StockQuantity).Floor().IntPart()
		}
		if sets < 0 || n < sets {
			sets = n
		}
	}
	return max(sets, 0), nil
}

// currentItems reads the organization's items ids with the ids of their
// current data versions (what a record made now cites), in one query.
func currentItems(w *work.Unit, ids []uuid.UUID) (map[uuid.UUID]*catalog.CatalogItem, map[uuid.UUID]uuid.UUID, error) {
	items, versions := map[uuid.UUID]*catalog.CatalogItem{}, map[uuid.UUID]uuid.UUID{}
	if len(ids) == 0 {
		return items, versions, nil
	}
	var rows []struct {
		catalog.CatalogItem `gorm:"embedded"`
		CurrentDataVersion  uuid.UUID
	}
	err := w.Read().WithContext(w.Context()).Raw(`SELECT i.*, v.id AS current_data_version FROM catalog_items AS i
		LEFT JOIN catalog_item_data_versions AS v ON v.catalog_item_id = i.id AND v.revision = i.revision
		WHERE i.organization_id = ? AND i.id IN ?`, w.Organization(), ids).Scan(&rows).Error
	if err != nil {
		return nil, nil, err
	}
	for i := range rows {
		items[rows[i].ID] = &rows[i].CatalogItem
		versions[rows[i].ID] = rows[i].CurrentDataVersion
	}
	return items, versions, nil
}

// ConfigurationFor is the current, ready configuration of an active set
// whose revision and hash the client sent: what a consumption or a
// reservation packs by. Its set and items hold only packingColumns.
//
// The set is read share-locked in w's transaction, so a change of its
// recipe, which locks it for update, either waits for this packing to
// commit or commits first and is seen: packing by the revision before is
// then refused, never recorded against a recipe that was replaced.
func ConfigurationFor(w *work.Unit, id uuid.UUID, revision int, hash string) (*Configuration, error) {
	cfg, err := readComposition(w, w.Tx(), id, packingColumns, "SHARE", scanPackingRow)
	if err != nil {
		return nil, err
	}
	switch {
	case cfg.System.Status == SystemArchived:
		return nil, ErrSystemArchived
	case cfg.System.Revision != revision:
		return nil, domain.ErrRevisionConflict
	case cfg.Hash != hash:
		return nil, ErrConfigurationChanged
	case !cfg.Ready:
		return nil, ErrConfigurationNotReady
	}
	return cfg, nil
}

// SetStock is the stock change of packing count sets by the composition:
// physical and reserved are multiplied by each line's quantity per set.
// Field is where a shortage is reported.
func SetStock(items interface {
	Item(uuid.UUID) *catalog.CatalogItem
}, lines []CompositionLine, count int, kind string, physical, reserved int, source work.Record, field string) []stock.StockChange {
	n := decimal.NewFromInt(int64(count))
	out := make([]stock.StockChange, len(lines))
	for i, l := range lines {
		q := l.StockQuantity.Mul(n)
		out[i] = stock.StockChange{
			Item: items.Item(l.Item), DataVersion: l.DataVersion, Kind: kind,
			Physical: q.Mul(decimal.NewFromInt(int64(physical))), Reserved: q.Mul(decimal.NewFromInt(int64(reserved))),
			Source: source, Field: field,
		}
	}
	return out
}

// itemSet is catalogue items by id, for SetStock when no configuration
// was read: a reservation moves stock by its own composition.
type itemSet map[uuid.UUID]*catalog.CatalogItem

// Item is the item id.
func (s itemSet) Item(id uuid.UUID) *catalog.CatalogItem { return s[id] }

// lockSystem locks the organization's set for a change of its recipe or
// status.
func lockSystem(w *work.Unit, id uuid.UUID) (*PackagingSystem, error) {
	return domain.Take[PackagingSystem](domain.Tenant(w.Context(), w.Tx(), w.Organization()).
		Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ?", id))
}

// PackagingSystemFields are the writable fields of a set.
type PackagingSystemFields struct {
	Name        input.Opt[string]
	Code        input.Opt[string]
	Description input.Opt[string]
}

func (in *PackagingSystemFields) declare(f *input.Fields, create bool) {
	f.Text("name", &in.Name, input.Text{Required: create, NotBlank: true, Max: catalog.StructureNameMax})
	f.Text("code", &in.Code, input.Text{Nullable: true, Max: PackagingSystemCodeMax})
	f.Text("description", &in.Description, input.Text{Nullable: true, Max: catalog.DescriptionMax})
}
