// Package bdo is the spec's BDO area: the Polish annual packaging report's
// source data, their classification, report runs and their downloads.
package bdo

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/bdo"
	a "ppwr/internal/access"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
)

const tag = "bdo"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Area{
		Operations: []kit.Operation{
			kit.Get("listBDOSources", kit.Org+"/bdo-reports/sources", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Query(h.sources), kit.OK(kit.Ref("BDOSourcePage"))),
			kit.Post("classifyBDOSources", kit.Org+"/bdo-reports/classifications", tag, a.ReportsRun, a.ReportsExport).
				Answers(bdo.ErrInvalidSources).
				Handle(kit.JSON(h.classify), kit.OK(kit.Ref("BDOClassificationResult"))),
			kit.Post("createBDOReport", kit.Org+"/bdo-reports", tag, a.ReportsRun, a.ReportsExport).
				Handle(kit.JSON(h.createReport), kit.CreatedResponse(kit.Ref("ReportRun"), "getBDOReport").Polled()),
			kit.Get("getBDOReport", kit.Org+"/bdo-reports/{recordId}", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.getReport), kit.OK(kit.Ref("ReportRun")).Polled()),
			kit.Get("downloadBDOReport", kit.Org+"/bdo-reports/{recordId}/download", tag, a.ReportsRead, a.ReportsExport).
				Answers(kit.FileNotReady("")).
				Handle(kit.Query(h.download), kit.Response{Status: http.StatusOK, ContentType: "application/octet-stream",
					Schema: kit.Binary(), Headers: []kit.Param{{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.report_file_name"}}}),
		},
		Models: []kit.Model{kit.ModelOf[sourcePageJSON]("BDOSourcePage").Described("schema.bdo_sources"), kit.ModelOf[reportJSON]("ReportRun").Described("schema.bdo_report").Example(reportExample()),
			kit.ModelOf[classificationResultJSON]("BDOClassificationResult")},
	}
}

// sourcesQuery is the year and page of the sources; this endpoint pages
// by number, as the spec says.
type sourcesQuery struct {
	input.Errors
	Year    input.Opt[int]
	Page    input.Opt[int]
	PerPage input.Opt[int]
}

func (q *sourcesQuery) Declare(f *input.Fields) {
	f.Int("year", &q.Year, bdo.BDOYears)
	f.Int("page", &q.Page, input.Int{Min: 1, Max: 1_000_000})
	f.Int("per_page", &q.PerPage, input.Int{Min: 1, Max: kit.MaxPerPage})
}

type classificationJSON struct {
	Section         string    `json:"section"`
	MaterialGroup   *string   `json:"material_group"`
	Reusable        *bool     `json:"reusable"`
	Excluded        bool      `json:"excluded"`
	ExclusionReason *string   `json:"exclusion_reason"`
	ClassifiedAt    time.Time `json:"classified_at"`
}

func (classificationJSON) Declare(s *kit.Shape) {
	s.Enum("section", bdo.BDOSections...)
	s.Enum("material_group", dictionaries.BDOGroups()...)
}

type sourceJSON struct {
	Key               string              `json:"key"`
	Kind              string              `json:"kind"`
	ID                uuid.UUID           `json:"id"`
	Date              string              `json:"date" schema:"date"`
	Item              uuid.UUID           `json:"item"`
	MaterialCode      string              `json:"material_code"`
	MaterialGroup     *string             `json:"material_group"`
	Reusable          bool                `json:"reusable"`
	PackagingFunction *string             `json:"packaging_function"`
	MassG             decimal.Decimal     `json:"mass_g"`
	MassMg            decimal.Decimal     `json:"mass_mg"`
	SuggestedSection  string              `json:"suggested_section"`
	State             string              `json:"state"`
	Classification    *classificationJSON `json:"classification"`
}

func (sourceJSON) Declare(s *kit.Shape) {
	s.Enum("kind", "flow", "supply")
	s.Enum("material_group", dictionaries.BDOGroups()...)
	s.Enum("suggested_section", bdo.BDOSections...)
	s.Enum("state", bdo.BDOStates...)
}

type totalJSON struct {
	MaterialGroup *string         `json:"material_group"`
	SingleUseMg   decimal.Decimal `json:"single_use_mg"`
	ReusableMg    decimal.Decimal `json:"reusable_mg"`
	TotalMg       decimal.Decimal `json:"total_mg"`
}

func (totalJSON) Declare(s *kit.Shape) { s.Enum("material_group", dictionaries.BDOGroups()...) }

// sourcePageJSON is a page of the year's sources with the year's summary;
// its fields are in the order of the map it replaced, so the answer keeps
// its bytes.
type sourcePageJSON struct {
	Data      []sourceJSON      `json:"data"`
	Page      int               `json:"page"`
	PerPage   int               `json:"per_page"`
	RequestID string            `json:"requestId" schema:"uuid"`
	Summary   sourceSummaryJSON `json:"summary"`
	Total     int64             `json:"total"`
	Year      int               `json:"year"`
}

type sourceSummaryJSON struct {
	Excluded     int64           `json:"excluded"`
	TotalMg      decimal.Decimal `json:"total_mg"`
	Totals       []totalJSON     `json:"totals"`
	Unclassified int64           `json:"unclassified"`
}

// sources answers a page of the year's sources and the year's summary.
func (h *handlers) sources(c *gin.Context, q *sourcesQuery) error {
	ctx, org := c.Request.Context(), kit.OrgID(c)
	page, perPage := max(q.Page.Value, 1), kit.DefaultPerPage
	if q.PerPage.Set() {
		perPage = q.PerPage.Value
	}
	rows, err := bdo.BDOSourcesPage(ctx, h.DB, org, q.Year.Value, page, perPage)
	if err != nil {
		return err
	}
	summary, err := bdo.SummarizeBDOYear(ctx, h.DB, org, q.Year.Value)
	if err != nil {
		return err
	}
	groups := dictionaries.Default().BDOGroupsByMaterial()
	data := make([]sourceJSON, len(rows))
	for i := range rows {
		s := &rows[i]
		data[i] = sourceJSON{Key: s.Key(), Kind: s.Kind, ID: s.ID, Date: s.EventOn.Format(time.DateOnly), Item: s.CatalogItemID,
			MaterialCode: s.MainMaterialCode, MaterialGroup: nullable(s.Group(groups)), Reusable: s.CountsAsReusable(),
			PackagingFunction: s.PackagingFunction, MassG: s.MassG, MassMg: bdo.GramsToMg(s.MassG),
			SuggestedSection: s.SuggestedSection, State: s.State()}
		if s.Section != nil {
			data[i].Classification = &classificationJSON{Section: *s.Section, MaterialGroup: s.MaterialGroup, Reusable: s.ReusableOverride,
				Excluded: s.Excluded != nil && *s.Excluded, ExclusionReason: s.ExclusionReason, ClassifiedAt: s.ClassifiedAt.UTC()}
		}
	}
	totals, all := make([]totalJSON, len(summary.Totals)), decimal.Zero
	for i, t := range summary.Totals {
		sum := t.SingleUseG.Add(t.ReusableG)
		totals[i] = totalJSON{MaterialGroup: nullable(t.MaterialGroup), SingleUseMg: bdo.GramsToMg(t.SingleUseG),
			ReusableMg: bdo.GramsToMg(t.ReusableG), TotalMg: bdo.GramsToMg(sum)}
		all = all.Add(sum)
	}
	c.JSON(http.StatusOK, sourcePageJSON{Data: data, Page: page, PerPage: perPage, Total: summary.Sources, Year: q.Year.Value,
		Summary:   sourceSummaryJSON{Totals: totals, TotalMg: bdo.GramsToMg(all), Unclassified: summary.Unclassified, Excluded: summary.Excluded},
		RequestID: kit.State(c).ID})
	return nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// classify records the classification of sources and acknowledges it.
func (h *handlers) classify(c *gin.Context, in *bdo.BDOClassification) error {
	keys, err := bdo.ClassifyBDOSources(kit.Work(c), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, classificationResultJSON{Year: in.Year.Value, Classified: len(keys), Sources: keys, RequestID: kit.State(c).ID})
	return nil
}

// classificationResultJSON acknowledges a classification; its fields are
// in the order of the map it replaced.
type classificationResultJSON struct {
	Classified int      `json:"classified"`
	RequestID  string   `json:"requestId" schema:"uuid"`
	Sources    []string `json:"sources"`
	Year       int      `json:"year"`
}

type reportJSON struct {
	ID             uuid.UUID              `json:"id"`
	Year           int                    `json:"year"`
	Status         string                 `json:"status"`
	SettlementMode string                 `json:"settlement_mode"`
	Rounding       string                 `json:"rounding"`
	SourceCount    int                    `json:"source_count"`
	Totals         []bdo.BDOReportTotal   `json:"totals"`
	Warnings       []bdo.BDOReportWarning `json:"warnings"`
	ExportStatus   string                 `json:"export_status"`
	ExportError    *string                `json:"export_error"`
	RenderedAt     *time.Time             `json:"rendered_at"`
	CreatedAt      time.Time              `json:"created_at"`
	// Progress is the exports' rendering's.
	Progress kit.Progress `json:"progress"`
}

func (reportJSON) Declare(s *kit.Shape) {
	s.Enum("status", bdo.BDOReportStatuses...)
	s.Enum("settlement_mode", bdo.NotCalculated)
	s.Enum("totals.section", bdo.BDOSections...)
	s.Enum("totals.material_group", dictionaries.BDOGroups()...)
	s.Enum("warnings.code", bdo.WarningUnclassified, bdo.WarningNoMass, bdo.WarningNoGroup)
	s.Enum("export_status", bdo.ExportStatuses...)
	s.Enum("progress.stage", bdo.ExportStages...)
}

func reportToJSON(r *bdo.BDOReport) reportJSON {
	return reportJSON{ID: r.ID, Year: r.Year, Status: r.Status, SettlementMode: r.SettlementMode, Rounding: r.Rounding,
		SourceCount: r.SourceCount, Totals: r.Totals, Warnings: r.Warnings, ExportStatus: r.ExportStatus, ExportError: r.ExportError,
		RenderedAt: kit.UTC(r.RenderedAt), CreatedAt: r.CreatedAt.UTC(), Progress: kit.ProgressOf(r.ExportProgress)}
}

// reportExample is the document's example of a report run: prepared,
// its exports being rendered.
func reportExample() reportJSON {
	plastics := "plastics"
	return reportJSON{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e01"), Year: 2025, Status: bdo.BDOPrepared,
		SettlementMode: bdo.NotCalculated, Rounding: bdo.BDORounding, SourceCount: 5000,
		Totals: []bdo.BDOReportTotal{{Section: bdo.BDOPlacedOnMarket, MaterialGroup: &plastics,
			SingleUseG: decimal.RequireFromString("125000"), ReusableG: decimal.Zero, SingleUseMg: decimal.RequireFromString("0.125"),
			ReusableMg: decimal.Zero, TotalMg: decimal.RequireFromString("0.125"), Sources: 5000}},
		Warnings: []bdo.BDOReportWarning{}, ExportStatus: bdo.ExportRendering, CreatedAt: kit.ExampleAt.Add(-time.Minute),
		Progress: kit.ExampleProgress(bdo.StageWritingSources, 1200, domain.Known(5000))}
}

// createReport takes the snapshot in the request and answers it prepared
// or needs_review; the workflow renders the exports after.
func (h *handlers) createReport(c *gin.Context, in *bdo.BDOReportCreate) error {
	r, err := bdo.CreateBDOReport(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.CreatedJob(c, r.ID, r, reportToJSON(r))
}

func (h *handlers) getReport(c *gin.Context) error {
	return kit.ShowJob(c, h.DB, "recordId", kit.Infallible(reportToJSON))
}

// downloadQuery is the export's format.
type downloadQuery struct {
	input.Errors
	Format input.Opt[string]
}

func (q *downloadQuery) Declare(f *input.Fields) {
	f.Enum("format", &q.Format, input.Enum{Values: []string{"xlsx", "json"}})
}

// download streams an export, as application/octet-stream with a file
// name; before it is rendered the answer is 409 with Retry-After.
func (h *handlers) download(c *gin.Context, q *downloadQuery) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	r, err := domain.Find[bdo.BDOReport](ctx, h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	format, key := "xlsx", r.XLSXKey
	if q.Format.Value == "json" {
		format, key = "json", r.JSONKey
	}
	if r.ExportStatus != bdo.ExportReady || key == nil {
		return kit.FileNotReady(r.ExportStatus)
	}
	return kit.Attachment(c, h.Storage, *key, "bdo-"+strconv.Itoa(r.Year)+"-"+r.ID.String()+"."+format, "application/octet-stream")
}
