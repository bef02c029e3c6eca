package carbon

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/packing"
	"ppwr/internal/carbonref"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Carbon: an organization's own emission factors and the cradle-to-gate
// calculations of items and packing sets (ppwr-facts §5). A calculation is
// immutable and keeps, on every line, the factor it used.

// Vocabularies of carbon factors.
var (
	CarbonUnits    = []string{"kg CO2e/kg", "kg CO2e/t"}
	CarbonScopes   = []string{"scope_1", "scope_2", "scope_3"}
	CarbonVariants = []string{carbonref.Primary, carbonref.Recycled}
	CarbonTypes    = []string{CarbonItem, CarbonSystem}
)

// Subjects of a calculation.
const (
	CarbonItem   = "item"
	CarbonSystem = "system"
)

// CarbonMethod describes how calculations are made; it is stored on each.
const CarbonMethod = "cradle-to-gate material production (ppwr-facts §5.3): per component, mass × ((1 − r) × primary factor + r × recycled factor), " +
	"r being the accepted RECYCLED_CONTENT_PCT evidence of the component (0 without it), the recycled share valued with a closed-loop-source factor; " +
	"the organization's active factors are preferred over the reference set; a packing set is the sum of its lines × quantity per set"

// Limits of a factor's texts.
const (
	CarbonNameMax   = 200
	CarbonSourceMax = 1000
)

// CarbonFactor is an organization's own factor for a material.
type CarbonFactor struct {
	ID               uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID   uuid.UUID `gorm:"type:uuid"`
	Name             string
	MaterialCode     string
	Variant          string
	Value            decimal.Decimal `gorm:"type:numeric"`
	Unit             string
	Scope            string
	Source           string
	Boundary         *string
	ValidFrom        *time.Time `gorm:"type:date"`
	ValidUntil       *time.Time `gorm:"type:date"`
	SupplierDocument *uuid.UUID `gorm:"type:uuid"`
	Active           bool
	ArchivedAt       *time.Time
	Revision         int
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// PerKg is the factor in kg CO2e per kg.
func (f *CarbonFactor) PerKg() decimal.Decimal {
	if f.Unit == "kg CO2e/t" {
		return f.Value.Div(decimal.NewFromInt(1000))
	}
	return f.Value
}

// CarbonFactorCreate is the body of a new factor: a unit, a scope and a
// source are required, as the spec says.
type CarbonFactorCreate struct {
	input.Errors
	Name             input.Opt[string]
	MaterialCode     input.Opt[string]
	Variant          input.Opt[string]
	Value            input.Opt[decimal.Decimal]
	Unit             input.Opt[string]
	Scope            input.Opt[string]
	Source           input.Opt[string]
	Boundary         input.Opt[string]
	ValidFrom        input.Opt[time.Time]
	ValidUntil       input.Opt[time.Time]
	SupplierDocument input.Opt[uuid.UUID]
}

// Declare names the factor's fields.
func (in *CarbonFactorCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, Max: CarbonNameMax})
	f.Code("material_code", &in.MaterialCode, input.Code{Required: true, Known: dictionaries.Default().HasMaterial})
	f.Enum("variant", &in.Variant, input.Enum{Required: true, Values: CarbonVariants})
	f.Decimal("value", &in.Value, input.Decimal{Required: true})
	f.Enum("unit", &in.Unit, input.Enum{Required: true, Values: CarbonUnits})
	f.Enum("scope", &in.Scope, input.Enum{Required: true, Values: CarbonScopes})
	f.Text("source", &in.Source, input.Text{Required: true, Max: CarbonSourceMax})
	f.Text("boundary", &in.Boundary, input.Text{Nullable: true, NotBlank: true, Max: CarbonNameMax})
	f.Date("valid_from", &in.ValidFrom, input.Date{})
	f.Date("valid_until", &in.ValidUntil, input.Date{})
	f.Ref("supplier_document", &in.SupplierDocument, input.Ref{Nullable: true})
	if f.Binding() && in.ValidFrom.Set() && in.ValidUntil.Set() && in.ValidUntil.Value.Before(in.ValidFrom.Value) {
		f.Fail("valid_until", "field.valid_until_before_from")
	}
}

// CreateCarbonFactor records an active factor of the organization; a
// supplier document must be an approved version of the organization.
func CreateCarbonFactor(w *work.Unit, in *CarbonFactorCreate) (*CarbonFactor, error) {
	if in.SupplierDocument.Set() {
		var status string
		err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&documents.DocumentVersion{}).Where("id = ?", in.SupplierDocument.Value).
			Pluck("review_status", &status).Error
		switch {
		case err != nil:
			return nil, err
		case status == "":
			in.Fail("supplier_document", "field.unknown_document_version")
		case status != documents.ReviewApproved:
			in.Fail("supplier_document", "field.document_not_approved", status)
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	f := &CarbonFactor{ID: domain.NewID(), OrganizationID: w.Organization(), Name: in.Name.Value, MaterialCode: in.MaterialCode.Value,
		Variant: in.Variant.Value, Value: in.Value.Value, Unit: in.Unit.Value, Scope: in.Scope.Value, Source: in.Source.Value,
		Boundary: domain.Optional(in.Boundary), ValidFrom: domain.Optional(in.ValidFrom), ValidUntil: domain.Optional(in.ValidUntil),
		SupplierDocument: domain.Optional(in.SupplierDocument), Active: true, Revision: 1, CreatedAt: at, UpdatedAt: at}
	if err := w.Tx().Create(f).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	w.Touch("carbon_factor", f.ID)
	return f, domain.Emit(w, CarbonFactorCreated{ID: f.ID})
}

// ErrFactorArchived refuses archiving a factor twice.
var ErrFactorArchived = &domain.RuleError{Code: "carbon_factor_archived", Key: "error.carbon_factor_archived"}

// ArchiveCarbonFactor makes a factor inactive: it is kept, no new
// calculation uses it, and past calculations keep the copy they hold.
func ArchiveCarbonFactor(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*CarbonFactor, error) {
	f, err := domain.LockFor[CarbonFactor](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if f.Revision != in.Revision.Value {
		return nil, domain.ErrRevisionConflict
	}
	if !f.Active {
		return nil, ErrFactorArchived
	}
	at := domain.Now()
	f.Active, f.ArchivedAt, f.Revision, f.UpdatedAt = false, &at, f.Revision+1, at
	if err := w.Tx().Model(f).Select("active", "archived_at", "revision", "updated_at").Updates(f).Error; err != nil {
		return nil, err
	}
	w.Touch("carbon_factor", f.ID)
	return f, domain.Emit(w, CarbonFactorArchived{ID: f.ID, Status: "archived"})
}

// CarbonCalculation is one immutable calculation.
type CarbonCalculation struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Subject        uuid.UUID `gorm:"type:uuid"`
	Type           string
	CalculatedOn   time.Time                          `gorm:"type:date"`
	DataVersionID  *uuid.UUID                         `gorm:"type:uuid"`
	TotalKgCO2e    decimal.NullDecimal                `gorm:"type:numeric"`
	Lines          datatypes.JSONSlice[CarbonLine]    `gorm:"type:jsonb"`
	Missing        datatypes.JSONSlice[CarbonMissing] `gorm:"type:jsonb"`
	Method         string
	CreatedAt      time.Time
}

// CarbonLine is a component's (or, for an item without components, the
// item's own) share of a calculation, with the factors used.
type CarbonLine struct {
	Item                  uuid.UUID        `json:"item"`
	DataVersion           uuid.UUID        `json:"data_version"`
	Component             *uuid.UUID       `json:"component"`
	Material              string           `json:"material"`
	MassG                 decimal.Decimal  `json:"mass_g"`
	PerSet                *decimal.Decimal `json:"quantity_per_set"`
	RecycledShare         decimal.Decimal  `json:"recycled_share"`
	RecycledShareEvidence *uuid.UUID       `json:"recycled_share_evidence"`
	Factors               []FactorUsed     `json:"factors"`
	KgCO2e                *decimal.Decimal `json:"kg_co2e"`
}

// FactorUsed is a copy of the factor a line used: the organization's own
// (FactorID) or a reference row (Set, RowID).
type FactorUsed struct {
	Variant  string          `json:"variant"`
	FactorID *uuid.UUID      `json:"factor"`
	Set      *string         `json:"reference_set"`
	RowID    *string         `json:"row_id"`
	Source   string          `json:"source"`
	Year     *int            `json:"year"`
	Name     string          `json:"name"`
	Value    decimal.Decimal `json:"value"`
	Unit     string          `json:"unit"`
	PerKg    decimal.Decimal `json:"kg_co2e_per_kg"`
	Scope    string          `json:"scope"`
	Boundary *string         `json:"boundary"`
}

// CarbonMissing is why a calculation has no total: what is missing for
// which item (the set itself when it has no lines) and component.
type CarbonMissing struct {
	Item      uuid.UUID  `json:"item"`
	Component *uuid.UUID `json:"component"`
	Material  string     `json:"material"`
	Missing   string     `json:"missing"`
}

// What a line can lack.
const (
	MissingPrimaryFactor  = "primary_factor"
	MissingRecycledFactor = "recycled_factor"
	// MissingUnitConversion: a set line's unit no longer converts to its
	// item's stock unit.
	MissingUnitConversion = "unit_conversion"
	// MissingLines: the set has no lines.
	MissingLines = "lines"
)

// CarbonCalculationCreate is the body of a calculation.
type CarbonCalculationCreate struct {
	input.Errors
	Subject input.Opt[uuid.UUID]
	Type    input.Opt[string]
	Date    input.Opt[time.Time]
}

// Declare names the calculation's fields.
func (in *CarbonCalculationCreate) Declare(f *input.Fields) {
	f.Ref("subject", &in.Subject, input.Ref{Required: true})
	f.Enum("type", &in.Type, input.Enum{Required: true, Values: CarbonTypes})
	f.Date("date", &in.Date, input.Date{})
}

// CreateCarbonCalculation calculates an item or a packing set on the date
// (default today: the factors valid then) and keeps the result.
func CreateCarbonCalculation(w *work.Unit, in *CarbonCalculationCreate) (*CarbonCalculation, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	c := &CarbonCalculation{ID: domain.NewID(), OrganizationID: w.Organization(), Subject: in.Subject.Value, Type: in.Type.Value,
		CalculatedOn: domain.Today(), Method: CarbonMethod, CreatedAt: domain.Now(),
		Lines: datatypes.JSONSlice[CarbonLine]{}, Missing: datatypes.JSONSlice[CarbonMissing]{}}
	if in.Date.Set() {
		c.CalculatedOn = in.Date.Value
	}
	calc := &carbonCalc{w: w, on: c.CalculatedOn}
	var total decimal.Decimal
	var err error
	if c.Type == CarbonItem {
		item, ferr := domain.Find[catalog.CatalogItem](w.Context(), w.Tx(), w.Organization(), c.Subject)
		if ferr == domain.ErrNotFound {
			return nil, input.Invalidf("subject", "field.not_found")
		}
		if ferr != nil {
			return nil, ferr
		}
		var dv uuid.UUID
		if dv, err = catalog.CurrentDataVersion(w, item); err != nil {
			return nil, err
		}
		c.DataVersionID = &dv
		total, err = calc.item(item, dv, nil, c)
	} else {
		total, err = calc.system(c)
	}
	if err != nil {
		return nil, err
	}
	if len(c.Missing) == 0 {
		c.TotalKgCO2e = decimal.NewNullDecimal(total)
	}
	if err := w.Tx().Create(c).Error; err != nil {
		return nil, err
	}
	w.Touch("carbon_calculation", c.ID)
	return c, domain.Emit(w, CarbonCalculationCreated{ID: c.ID})
}

// carbonCalc looks factors up for one calculation.
type carbonCalc struct {
	w  *work.Unit
	on time.Time
}

func (k *carbonCalc) system(c *CarbonCalculation) (decimal.Decimal, error) {
	cfg, err := packing.LoadComposition(k.w, c.Subject)
	if err == domain.ErrNotFound {
		return decimal.Zero, input.Invalidf("subject", "field.not_found")
	}
	if err != nil {
		return decimal.Zero, err
	}
	if len(cfg.Composition) == 0 {
		c.Missing = append(c.Missing, CarbonMissing{Item: c.Subject, Missing: MissingLines})
	}
	total := decimal.Zero
	for _, line := range cfg.Composition {
		perSet := line.StockQuantity
		if !perSet.IsPositive() {
			c.Missing = append(c.Missing, CarbonMissing{Item: line.Item, Missing: MissingUnitConversion})
		}
		part, err := k.item(cfg.Item(line.Item), line.DataVersion, &perSet, c)
		if err != nil {
			return decimal.Zero, err
		}
		total = total.Add(part.Mul(perSet))
	}
	return total, nil
}

// item adds the item's lines to c and returns its footprint per base
// unit (meaningless when something is missing).
func (k *carbonCalc) item(item *catalog.CatalogItem, dataVersion uuid.UUID, perSet *decimal.Decimal, c *CarbonCalculation) (decimal.Decimal, error) {
	ctx, db, org := k.w.Context(), k.w.Tx(), k.w.Organization()
	var comps []catalog.Component
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ?", item.ID).Order("id").Find(&comps).Error; err != nil {
		return decimal.Zero, err
	}
	if len(comps) == 0 {
		comps = []catalog.Component{{CatalogItemID: item.ID, MaterialCode: item.MainMaterialCode, MassG: item.MassG}}
	}
	facts, err := documents.EvidencedFacts(ctx, db, org, item.ID)
	if err != nil {
		return decimal.Zero, err
	}
	total := decimal.Zero
	for _, comp := range comps {
		line := CarbonLine{Item: item.ID, DataVersion: dataVersion, Material: comp.MaterialCode, MassG: comp.MassG, PerSet: perSet,
			RecycledShare: decimal.Zero, Factors: []FactorUsed{}}
		if comp.ID != uuid.Nil {
			line.Component = &comp.ID
		}
		for _, f := range facts {
			if f.Code == "RECYCLED_CONTENT_PCT" && sameComponent(f.ComponentID, line.Component) {
				line.RecycledShare, line.RecycledShareEvidence = f.Value.Div(decimal.NewFromInt(100)), &f.ProposalID
			}
		}
		variants := []string{carbonref.Primary}
		if line.RecycledShare.IsPositive() {
			variants = append(variants, carbonref.Recycled)
		}
		perKg := map[string]decimal.Decimal{}
		complete := true
		for _, variant := range variants {
			used, ok, err := k.factor(ctx, comp.MaterialCode, variant)
			if err != nil {
				return decimal.Zero, err
			}
			if !ok {
				missing := MissingPrimaryFactor
				if variant == carbonref.Recycled {
					missing = MissingRecycledFactor
				}
				c.Missing = append(c.Missing, CarbonMissing{Item: item.ID, Component: line.Component, Material: comp.MaterialCode, Missing: missing})
				complete = false
				continue
			}
			line.Factors = append(line.Factors, used)
			perKg[variant] = used.PerKg
		}
		if complete {
			kg := carbonref.ComponentKg(comp.MassG, line.RecycledShare, perKg[carbonref.Primary], perKg[carbonref.Recycled])
			line.KgCO2e = &kg
			total = total.Add(kg)
		}
		c.Lines = append(c.Lines, line)
	}
	return total, nil
}

func sameComponent(a, b *uuid.UUID) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// factor is the organization's newest active factor for the material and
// variant valid on the date, else the reference set's.
func (k *carbonCalc) factor(ctx context.Context, material, variant string) (FactorUsed, bool, error) {
	var own []CarbonFactor
	err := domain.Tenant(ctx, k.w.Tx(), k.w.Organization()).Where("material_code = ? AND variant = ? AND active", material, variant).
		Where("(valid_from IS NULL OR valid_from <= ?) AND (valid_until IS NULL OR valid_until >= ?)", k.on, k.on).
		Order("id DESC").Limit(1).Find(&own).Error
	if err != nil {
		return FactorUsed{}, false, err
	}
	if len(own) == 1 {
		f := own[0]
		return FactorUsed{Variant: variant, FactorID: &f.ID, Source: f.Source, Name: f.Name, Value: f.Value, Unit: f.Unit,
			PerKg: f.PerKg(), Scope: f.Scope, Boundary: f.Boundary}, true, nil
	}
	set, row, ok := carbonref.Find(material, variant)
	if !ok {
		return FactorUsed{}, false, nil
	}
	source := set.Publisher + ", " + set.Title
	return FactorUsed{Variant: variant, Set: &set.Code, RowID: &row.RowID, Source: source, Year: &set.Year, Name: row.Name + ": " + row.VariantText,
		Value: row.Value, Unit: set.Unit, PerKg: row.PerKg(), Scope: set.Scope, Boundary: row.Boundary}, true, nil
}
