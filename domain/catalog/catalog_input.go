package catalog

import (
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/domain"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
)

// Limits of the catalogue's text fields: validation and the OpenAPI
// schema both read them from the declarations below.
const (
	InternalCodeMax  = 100
	ItemNameMax      = 300
	ComponentNameMax = 200
)

// CatalogItemFields are the writable fields of a catalogue item.
type CatalogItemFields struct {
	InternalCode      input.Opt[string]
	Name              input.Opt[string]
	SourcingType      input.Opt[string]
	MassG             input.Opt[decimal.Decimal]
	MainMaterialCode  input.Opt[string]
	StockUnit         input.Opt[string]
	StockTracked      input.Opt[bool]
	FoodContactStatus input.Opt[string]
	ReuseType         input.Opt[string]
	InnerLengthMm     input.Opt[decimal.Decimal]
	InnerWidthMm      input.Opt[decimal.Decimal]
	InnerHeightMm     input.Opt[decimal.Decimal]
	Folder            input.Opt[uuid.UUID]
	Family            input.Opt[uuid.UUID]
}

// declare names the fields; on create every one but stockTracked, the
// inner dimensions, folder and family is required.
func (in *CatalogItemFields) declare(f *input.Fields, create bool) {
	dict := dictionaries.Default()
	f.Text("internalCode", &in.InternalCode, input.Text{Required: create, NotBlank: true, Max: InternalCodeMax})
	f.Text("name", &in.Name, input.Text{Required: create, NotBlank: true, Max: ItemNameMax})
	f.Enum("sourcingType", &in.SourcingType, input.Enum{Required: create, Values: SourcingTypes})
	f.Decimal("massG", &in.MassG, input.Decimal{Required: create, Positive: true})
	f.Code("mainMaterialCode", &in.MainMaterialCode, input.Code{Required: create, Known: dict.HasMaterial, Desc: "schema.material_code"})
	f.Enum("stockUnit", &in.StockUnit, input.Enum{Required: create, Values: StockUnits, Refused: RefusedStockUnits})
	f.Bool("stockTracked", &in.StockTracked, input.Bool{})
	f.Enum("foodContactStatus", &in.FoodContactStatus, input.Enum{Required: create, Values: FoodContactStatuses})
	f.Enum("reuseType", &in.ReuseType, input.Enum{Required: create, Values: ReuseTypes})
	dimension := input.Decimal{Positive: true, Nullable: true}
	f.Decimal("innerLengthMm", &in.InnerLengthMm, dimension)
	f.Decimal("innerWidthMm", &in.InnerWidthMm, dimension)
	f.Decimal("innerHeightMm", &in.InnerHeightMm, dimension)
	f.Ref("folder", &in.Folder, input.Ref{Nullable: true})
	f.Ref("family", &in.Family, input.Ref{Nullable: true})
}

// CatalogItemCreate is the body of a new catalogue item.
type CatalogItemCreate struct {
	input.Errors
	CatalogItemFields
}

// Declare names the create's fields.
func (in *CatalogItemCreate) Declare(f *input.Fields) { in.declare(f, true) }

// CatalogItemPatch changes the fields it sends; an empty one changes
// nothing.
type CatalogItemPatch struct {
	input.Errors
	CatalogItemFields
}

// Declare names the patch's fields.
func (in *CatalogItemPatch) Declare(f *input.Fields) { in.declare(f, false) }

// columns are the item columns the input sets.
func (in *CatalogItemFields) columns() map[string]any {
	set := map[string]any{}
	text := map[string]input.Opt[string]{
		"internal_code": in.InternalCode, "name": in.Name, "sourcing_type": in.SourcingType,
		"main_material_code": in.MainMaterialCode, "stock_unit": in.StockUnit,
		"food_contact_status": in.FoodContactStatus, "reuse_type": in.ReuseType,
	}
	for column, v := range text {
		if v.Set() {
			set[column] = v.Value
		}
	}
	if in.MassG.Set() {
		set["mass_g"] = in.MassG.Value
	}
	if in.StockTracked.Set() {
		set["stock_tracked"] = in.StockTracked.Value
	}
	setOptional(set, map[string]input.Opt[decimal.Decimal]{
		"inner_length_mm": in.InnerLengthMm, "inner_width_mm": in.InnerWidthMm, "inner_height_mm": in.InnerHeightMm,
	})
	setOptional(set, map[string]input.Opt[uuid.UUID]{"folder_id": in.Folder, "family_id": in.Family})
	return set
}

// setOptional puts each sent value in set; a null clears its column.
func setOptional[T any](set map[string]any, values map[string]input.Opt[T]) {
	for column, v := range values {
		if v.Null {
			set[column] = nil
		} else if v.Set() {
			set[column] = v.Value
		}
	}
}

// References are the structure records the fields name.
func (in *CatalogItemFields) References(refs *domain.References, errs *input.Errors) {
	refs.Add("folders", "folder", in.Folder, errs)
	refs.Add("families", "family", in.Family, errs)
}

// ComponentCreate is the body of a new component.
type ComponentCreate struct {
	input.Errors
	Name         input.Opt[string]
	Role         input.Opt[string]
	MaterialCode input.Opt[string]
	MassG        input.Opt[decimal.Decimal]
	Revision     input.Opt[int]
}

// Declare names the component's fields.
func (in *ComponentCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, Max: ComponentNameMax})
	f.Enum("role", &in.Role, input.Enum{Required: true, Values: ComponentRoles})
	f.Code("materialCode", &in.MaterialCode, input.Code{Required: true, Known: dictionaries.Default().HasMaterial, Desc: "schema.material_code"})
	f.Decimal("massG", &in.MassG, input.Decimal{Required: true, Positive: true})
	rev := input.Revision(false)
	rev.Desc = "schema.component_revision"
	f.Int("revision", &in.Revision, rev)
}

// MarketsReplace is the complete list of an item's markets.
type MarketsReplace struct {
	input.Errors
	MarketRevision input.Opt[int]
	Markets        input.Opt[[]string]
	Details        map[string]*MarketDetail
}

// MarketDetail is one country's entry of market_details.
type MarketDetail struct {
	OriginCountry  input.Opt[string]
	EconomicRole   input.Opt[string]
	AssessmentDate input.Opt[time.Time]
}

// Declare names the markets body: the listed countries and, for some of
// them, their details.
func (in *MarketsReplace) Declare(f *input.Fields) {
	dict := dictionaries.Default()
	f.Int("market_revision", &in.MarketRevision, input.Revision(true))
	f.List("markets", &in.Markets, input.List{Required: true, Known: dict.HasCountry, TypeKey: "field.country_list", UnknownKey: "field.unknown_country"})
	in.Details = map[string]*MarketDetail{}
	f.Each("market_details", "field.market_details", func(country string, v *input.Fields) {
		if v.Binding() && !slices.Contains(in.Markets.Value, country) {
			f.Fail("market_details."+country, "field.market_not_listed")
			return
		}
		d := &MarketDetail{}
		v.Code("origin_country", &d.OriginCountry, input.Code{Nullable: true, Known: dict.HasCountry})
		v.Code("economic_role", &d.EconomicRole, input.Code{Nullable: true, Known: dict.HasEconomicRole})
		v.Date("assessment_date", &d.AssessmentDate, input.Date{})
		in.Details[country] = d
	})
}

// matches reports whether an active scenario already has these details.
func (d *MarketDetail) matches(m *MarketScenario) bool {
	if d == nil {
		d = &MarketDetail{}
	}
	sameDate := d.AssessmentDate.Set() == (m.AssessmentDate != nil) &&
		(!d.AssessmentDate.Set() || d.AssessmentDate.Value.Equal(*m.AssessmentDate))
	return sameText(d.OriginCountry, m.OriginCountry) && sameText(d.EconomicRole, m.EconomicRole) && sameDate
}

func sameText(v input.Opt[string], stored *string) bool {
	return v.Set() == (stored != nil) && (!v.Set() || v.Value == *stored)
}
