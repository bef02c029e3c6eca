package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/internal/jsontext"
	"ppwr/internal/work"
)

// Enumerations of the catalogue item. The spec leaves them open; these are
// published in the OpenAPI document.
var (
	// SourcingTypes says how the packaging reaches the organization, which
	// decides its PPWR role (producer, importer, distributor).
	SourcingTypes = []string{"purchased", "imported", "own_production", "received_with_products"}
	// FoodContactStatuses drive the food-contact rules of the registers.
	FoodContactStatuses = []string{"food_contact", "indirect_food_contact", "not_food_contact", "unknown"}
	// ReuseTypes distinguish single-use from reusable packaging (PPWR Art. 11).
	ReuseTypes = []string{"single_use", "reusable", "refillable"}
	// StockUnits are the spec's base units.
	StockUnits = []string{"piece", "m", "m2", "kg", "l", "m3"}
	// RefusedStockUnits are units refused with a message of their own:
	// "pcs" is the usual slip for "piece".
	RefusedStockUnits = map[string]string{"pcs": "field.stock_unit_pcs"}
	// ComponentRoles name a component's part in the item.
	ComponentRoles = []string{"body", "closure", "lid", "label", "sleeve", "liner", "seal", "handle", "insert", "cushioning", "tape", "strap", "other"}
)

// Catalogue item statuses.
const (
	ItemActive   = "active"
	ItemArchived = "archived"
)

// CatalogItem is a packaging item. It is never deleted, only archived.
type CatalogItem struct {
	ID                    uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID        uuid.UUID `gorm:"type:uuid"`
	InternalCode          string
	Name                  string
	SourcingType          string
	MassG                 decimal.Decimal `gorm:"type:numeric"`
	MainMaterialCode      string
	StockUnit             string
	StockTracked          bool
	FoodContactStatus     string
	ReuseType             string
	InnerLengthMm         *decimal.Decimal `gorm:"column:inner_length_mm;type:numeric"`
	InnerWidthMm          *decimal.Decimal `gorm:"column:inner_width_mm;type:numeric"`
	InnerHeightMm         *decimal.Decimal `gorm:"column:inner_height_mm;type:numeric"`
	FolderID              *uuid.UUID       `gorm:"type:uuid"`
	FamilyID              *uuid.UUID       `gorm:"type:uuid"`
	Status                string
	Revision              int
	AssessmentsStaleSince *time.Time
	CreatedAt             time.Time
	UpdatedAt             time.Time
	ArchivedAt            *time.Time
}

// Component is a part of an item with its own material and mass.
type Component struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	Name           string
	Role           string
	MaterialCode   string
	MassG          decimal.Decimal `gorm:"type:numeric"`
	CreatedAt      time.Time
}

// TableName maps the model onto its table.
func (Component) TableName() string { return "catalog_item_components" }

// MarketScenario is an item placed on one country's market in one economic
// role. Scenarios are immutable; a change replaces the active one.
type MarketScenario struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	CountryCode    string
	OriginCountry  *string
	EconomicRole   *string
	AssessmentDate *time.Time `gorm:"type:date"`
	Active         bool
	CreatedAt      time.Time
	DeactivatedAt  *time.Time
}

// DataVersion is the immutable state of an item at one revision.
type DataVersion struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	Revision       int
	Specifications datatypes.JSON `gorm:"type:jsonb"`
	Components     datatypes.JSON `gorm:"type:jsonb"`
	Markets        datatypes.JSON `gorm:"type:jsonb"`
	SHA256         string         `gorm:"column:sha256"`
	CreatedAt      time.Time
}

// TableName maps the model onto its table.
func (DataVersion) TableName() string { return "catalog_item_data_versions" }

// Canonical shapes of a data version. Struct fields marshal in declaration
// order and maps with sorted keys, so the same state always yields the same
// bytes and the same hash.

// ItemSpecifications are an item's own fields as a data version keeps
// them; the item resource shows them under the same names.
type ItemSpecifications struct {
	InternalCode      string           `json:"internalCode"`
	Name              string           `json:"name"`
	SourcingType      string           `json:"sourcingType"`
	MassG             decimal.Decimal  `json:"massG"`
	MainMaterialCode  string           `json:"mainMaterialCode"`
	StockUnit         string           `json:"stockUnit"`
	StockTracked      bool             `json:"stockTracked"`
	FoodContactStatus string           `json:"foodContactStatus"`
	ReuseType         string           `json:"reuseType"`
	InnerLengthMm     *decimal.Decimal `json:"innerLengthMm"`
	InnerWidthMm      *decimal.Decimal `json:"innerWidthMm"`
	InnerHeightMm     *decimal.Decimal `json:"innerHeightMm"`
	Status            string           `json:"status"`
}

// appendJSON appends s as json.Marshal writes it: every item's data
// version holds it, and json.Marshal's reflection over the struct cost a
// catalogue import's apply some 0.15 s of CPU per 100,000 items. (Not a
// MarshalJSON method: the item resource embeds these fields.)
func (s *ItemSpecifications) appendJSON(b []byte) []byte {
	for _, f := range [...]struct {
		name string
		text string
	}{{`{"internalCode":`, s.InternalCode}, {`,"name":`, s.Name}, {`,"sourcingType":`, s.SourcingType}} {
		b = jsontext.AppendString(append(b, f.name...), f.text)
	}
	b = appendDecimal(append(b, `,"massG":`...), &s.MassG)
	b = jsontext.AppendString(append(b, `,"mainMaterialCode":`...), s.MainMaterialCode)
	b = jsontext.AppendString(append(b, `,"stockUnit":`...), s.StockUnit)
	b = strconv.AppendBool(append(b, `,"stockTracked":`...), s.StockTracked)
	b = jsontext.AppendString(append(b, `,"foodContactStatus":`...), s.FoodContactStatus)
	b = jsontext.AppendString(append(b, `,"reuseType":`...), s.ReuseType)
	for _, f := range [...]struct {
		name  string
		value *decimal.Decimal
	}{{`,"innerLengthMm":`, s.InnerLengthMm}, {`,"innerWidthMm":`, s.InnerWidthMm}, {`,"innerHeightMm":`, s.InnerHeightMm}} {
		b = appendDecimal(append(b, f.name...), f.value)
	}
	b = jsontext.AppendString(append(b, `,"status":`...), s.Status)
	return append(b, '}')
}

// appendDecimal appends d as json.Marshal writes it (null for nil).
func appendDecimal(b []byte, d *decimal.Decimal) []byte {
	if d == nil {
		return append(b, "null"...)
	}
	text, _ := d.MarshalJSON() // never fails
	return append(b, text...)
}

// VersionComponent is a component as a data version keeps it.
type VersionComponent struct {
	ID           uuid.UUID       `json:"id"`
	Name         string          `json:"name"`
	Role         string          `json:"role"`
	MaterialCode string          `json:"materialCode"`
	MassG        decimal.Decimal `json:"massG"`
}

type versionMarket struct {
	Scenario       uuid.UUID `json:"scenario"`
	Country        string    `json:"country"`
	OriginCountry  *string   `json:"originCountry"`
	EconomicRole   *string   `json:"economicRole"`
	AssessmentDate *string   `json:"assessmentDate"`
}

// Specifications are the item's own fields.
func (item *CatalogItem) Specifications() ItemSpecifications {
	return ItemSpecifications{
		InternalCode: item.InternalCode, Name: item.Name, SourcingType: item.SourcingType, MassG: item.MassG,
		MainMaterialCode: item.MainMaterialCode, StockUnit: item.StockUnit, StockTracked: item.StockTracked,
		FoodContactStatus: item.FoodContactStatus, ReuseType: item.ReuseType,
		InnerLengthMm: item.InnerLengthMm, InnerWidthMm: item.InnerWidthMm, InnerHeightMm: item.InnerHeightMm, Status: item.Status,
	}
}

// NewDataVersion builds the data version of item's current revision from
// its specifications, components and active markets; the caller inserts
// it in the transaction that made the revision.
func NewDataVersion(item *CatalogItem, comps []Component, markets []MarketScenario) (*DataVersion, error) {
	spec := item.Specifications()
	vc := make([]VersionComponent, len(comps))
	for i, c := range comps {
		vc[i] = VersionComponent{ID: c.ID, Name: c.Name, Role: c.Role, MaterialCode: c.MaterialCode, MassG: c.MassG}
	}
	vm := make([]versionMarket, len(markets))
	for i, m := range markets {
		vm[i] = versionMarket{Scenario: m.ID, Country: m.CountryCode, OriginCountry: m.OriginCountry, EconomicRole: m.EconomicRole}
		if m.AssessmentDate != nil {
			d := m.AssessmentDate.Format(time.DateOnly)
			vm[i].AssessmentDate = &d
		}
	}
	specJSON := spec.appendJSON(make([]byte, 0, 512))
	compJSON, err := json.Marshal(vc)
	if err != nil {
		return nil, err
	}
	marketJSON, err := json.Marshal(vm)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(canonicalVersion(item.Revision, specJSON, compJSON, marketJSON))
	v := &DataVersion{
		ID: domain.NewID(), OrganizationID: item.OrganizationID, CatalogItemID: item.ID, Revision: item.Revision,
		Specifications: datatypes.JSON(specJSON), Components: datatypes.JSON(compJSON), Markets: datatypes.JSON(marketJSON),
		SHA256: hex.EncodeToString(sum[:]),
	}
	return v, nil
}

// canonicalVersion is the canonical JSON of a data version, an object of
// revision, specifications, components and markets in that order, joined
// from the parts already marshalled: marshalling them again as raw
// messages only re-scans them, and yields these same bytes.
func canonicalVersion(revision int, spec, comps, markets []byte) []byte {
	out := make([]byte, 0, len(spec)+len(comps)+len(markets)+64)
	out = append(out, `{"revision":`...)
	out = strconv.AppendInt(out, int64(revision), 10)
	out = append(append(out, `,"specifications":`...), spec...)
	out = append(append(out, `,"components":`...), comps...)
	out = append(append(out, `,"markets":`...), markets...)
	return append(out, '}')
}

// CurrentDataVersion is the id of the data version of the item's current
// revision: what a stock movement or a flow recorded now cites.
func CurrentDataVersion(w *work.Unit, item *CatalogItem) (uuid.UUID, error) {
	var v DataVersion
	err := domain.Tenant(w.Context(), w.Read(), w.Organization()).Select("id").
		Where("catalog_item_id = ? AND revision = ?", item.ID, item.Revision).Take(&v).Error
	return v.ID, err
}
