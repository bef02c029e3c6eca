// Package carbon is the spec's carbon factors and calculations: the
// reference factor sets the service ships, an organization's own factors,
// and cradle-to-gate calculations of items and packing sets.
package carbon

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/carbon"
	a "ppwr/internal/access"
	"ppwr/internal/carbonref"
	"ppwr/internal/input"
)

const tag = "carbon"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	factor, calculation := kit.Ref("CarbonFactor"), kit.Ref("CarbonCalculation")
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listCarbonCalculations", kit.Org+"/carbon-calculations", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Query(h.listCalculations), kit.ListOK("CarbonCalculation")),
			kit.Post("createCarbonCalculation", kit.Org+"/carbon-calculations", tag, a.ReportsRun, a.ReportsExport).
				Handle(kit.JSON(h.createCalculation), kit.CreatedResponse(calculation, "getCarbonCalculation")),
			kit.Get("getCarbonCalculation", kit.Org+"/carbon-calculations/{recordId}", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.getCalculation), kit.OK(calculation)),
			kit.List("listCarbonFactors", kit.Org+"/carbon-factors", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Query(h.listFactors), kit.ListOK("CarbonFactor")),
			kit.Post("createCarbonFactor", kit.Org+"/carbon-factors", tag, a.ReportsRun, a.ReportsExport).
				Handle(kit.JSON(h.createFactor), kit.CreatedResponse(factor, "getCarbonFactor")),
			kit.Get("getCarbonFactorReference", kit.Org+"/carbon-factors/reference", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.reference), kit.OK(kit.Ref("CarbonFactorReference"))),
			kit.Get("getCarbonFactor", kit.Org+"/carbon-factors/{recordId}", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.getFactor), kit.OK(factor)),
			kit.Post("archiveCarbonFactor", kit.Org+"/carbon-factors/{recordId}/archive", tag, a.ReportsRun, a.ReportsExport).
				Answers(carbon.ErrFactorArchived, domain.ErrRevisionConflict).
				Handle(kit.JSON(kit.Change("recordId", carbon.ArchiveCarbonFactor, factorToJSON)), kit.OK(factor)),
		},
		Models: []kit.Model{kit.ModelOf[factorJSON]("CarbonFactor"), kit.ModelOf[calculationJSON]("CarbonCalculation").Described("schema.carbon_calculation"),
			kit.ModelOf[referenceJSON]("CarbonFactorReference")},
	}
}

type referenceRowJSON struct {
	carbonref.Row
	PerKg decimal.Decimal `json:"kg_co2e_per_kg"`
}

func (referenceRowJSON) Declare(s *kit.Shape) {
	s.Enum("variant", carbonref.Primary, carbonref.Recycled, carbonref.ReUsed)
}

type referenceSetJSON struct {
	carbonref.Set
	Rows []referenceRowJSON `json:"rows"`
}

// referenceJSON is the reference factor sets with the values a factor of
// the organization's own may take; its fields are in the order of the map
// it replaced, so the answer keeps its bytes.
type referenceJSON struct {
	Scopes   []string           `json:"scopes"`
	Sources  []referenceSetJSON `json:"sources"`
	Units    []string           `json:"units"`
	Variants []string           `json:"variants"`
}

func (referenceJSON) Declare(s *kit.Shape) {
	s.Enum("scopes", carbon.CarbonScopes...)
	s.Enum("units", carbon.CarbonUnits...)
	s.Enum("variants", carbon.CarbonVariants...)
}

func (h *handlers) reference(c *gin.Context) error {
	sets := make([]referenceSetJSON, len(carbonref.Sets))
	for i, s := range carbonref.Sets {
		sets[i] = referenceSetJSON{Set: s, Rows: make([]referenceRowJSON, len(s.Rows))}
		for j, r := range s.Rows {
			sets[i].Rows[j] = referenceRowJSON{Row: r, PerKg: r.PerKg()}
		}
	}
	c.JSON(http.StatusOK, referenceJSON{Sources: sets, Scopes: carbon.CarbonScopes, Units: carbon.CarbonUnits, Variants: carbon.CarbonVariants})
	return nil
}

type factorJSON struct {
	ID               uuid.UUID       `json:"id"`
	Name             string          `json:"name"`
	MaterialCode     string          `json:"material_code"`
	Variant          string          `json:"variant"`
	Value            decimal.Decimal `json:"value"`
	Unit             string          `json:"unit"`
	PerKg            decimal.Decimal `json:"kg_co2e_per_kg"`
	Scope            string          `json:"scope"`
	Source           string          `json:"source"`
	Boundary         *string         `json:"boundary"`
	ValidFrom        *string         `json:"valid_from" schema:"date"`
	ValidUntil       *string         `json:"valid_until" schema:"date"`
	SupplierDocument *uuid.UUID      `json:"supplier_document"`
	Active           bool            `json:"active"`
	ArchivedAt       *time.Time      `json:"archived_at"`
	Revision         int             `json:"revision"`
	CreatedAt        time.Time       `json:"created_at"`
	UpdatedAt        time.Time       `json:"updated_at"`
}

func (factorJSON) Declare(s *kit.Shape) {
	s.Enum("variant", carbon.CarbonVariants...)
	s.Enum("unit", carbon.CarbonUnits...)
	s.Enum("scope", carbon.CarbonScopes...)
}

func factorToJSON(f *carbon.CarbonFactor) factorJSON {
	return factorJSON{ID: f.ID, Name: f.Name, MaterialCode: f.MaterialCode, Variant: f.Variant, Value: f.Value, Unit: f.Unit,
		PerKg: f.PerKg(), Scope: f.Scope, Source: f.Source, Boundary: f.Boundary, ValidFrom: kit.Day(f.ValidFrom),
		ValidUntil: kit.Day(f.ValidUntil), SupplierDocument: f.SupplierDocument, Active: f.Active, ArchivedAt: kit.UTC(f.ArchivedAt),
		Revision: f.Revision, CreatedAt: f.CreatedAt.UTC(), UpdatedAt: f.UpdatedAt.UTC()}
}

// factorQuery filters factors.
type factorQuery struct {
	input.Errors
	Active input.Opt[bool]
}

func (q *factorQuery) Declare(f *input.Fields) { f.Bool("active", &q.Active, input.Bool{}) }

func (h *handlers) listFactors(c *gin.Context, q *factorQuery) error {
	db := kit.Filter(domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&carbon.CarbonFactor{}), "active", q.Active)
	return kit.Paginate(c, db, kit.NewestFirst, factorToJSON)
}

func (h *handlers) getFactor(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", factorToJSON)
}

func (h *handlers) createFactor(c *gin.Context, in *carbon.CarbonFactorCreate) error {
	f, err := carbon.CreateCarbonFactor(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, f.ID, factorToJSON(f))
}

type calculationJSON struct {
	ID          uuid.UUID              `json:"id"`
	Subject     uuid.UUID              `json:"subject"`
	Type        string                 `json:"type"`
	Date        string                 `json:"date" schema:"date"`
	DataVersion *uuid.UUID             `json:"data_version"`
	Total       *decimal.Decimal       `json:"total_kg_co2e" schema:"desc=schema.carbon_total"`
	Complete    bool                   `json:"complete"`
	Lines       []carbon.CarbonLine    `json:"lines"`
	Missing     []carbon.CarbonMissing `json:"missing"`
	Method      string                 `json:"method"`
	CreatedAt   time.Time              `json:"created_at"`
}

func (calculationJSON) Declare(s *kit.Shape) {
	s.Enum("type", carbon.CarbonTypes...)
	s.Enum("lines.factors.variant", carbon.CarbonVariants...)
	s.Enum("missing.missing", carbon.MissingPrimaryFactor, carbon.MissingRecycledFactor, carbon.MissingUnitConversion, carbon.MissingLines)
}

func calculationToJSON(x *carbon.CarbonCalculation) calculationJSON {
	out := calculationJSON{ID: x.ID, Subject: x.Subject, Type: x.Type, Date: *kit.Day(&x.CalculatedOn), DataVersion: x.DataVersionID,
		Complete: x.TotalKgCO2e.Valid, Lines: x.Lines, Missing: x.Missing, Method: x.Method, CreatedAt: x.CreatedAt.UTC()}
	if x.TotalKgCO2e.Valid {
		out.Total = &x.TotalKgCO2e.Decimal
	}
	return out
}

// calculationQuery filters calculations.
type calculationQuery struct {
	input.Errors
	Subject input.Opt[uuid.UUID]
	Type    input.Opt[string]
}

func (q *calculationQuery) Declare(f *input.Fields) {
	f.Ref("subject", &q.Subject, input.Ref{})
	f.Enum("type", &q.Type, input.Enum{Values: carbon.CarbonTypes})
}

func (h *handlers) listCalculations(c *gin.Context, q *calculationQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&carbon.CarbonCalculation{})
	return kit.Paginate(c, kit.Filter(kit.Filter(db, "subject", q.Subject), "type", q.Type), kit.NewestFirst, calculationToJSON)
}

func (h *handlers) getCalculation(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", calculationToJSON)
}

func (h *handlers) createCalculation(c *gin.Context, in *carbon.CarbonCalculationCreate) error {
	x, err := carbon.CreateCarbonCalculation(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, x.ID, calculationToJSON(x))
}
