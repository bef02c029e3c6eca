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
				Handle(kit.JSON(h.createReport), kit.CreatedResponse(kit.Ref("ReportRun"), "getBDOReport")),
			kit.Get("getBDOReport", kit.Org+"/bdo-reports/{recordId}", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.getReport), kit.OK(kit.Ref("ReportRun"))),
			kit.Get("downloadBDOReport", kit.Org+"/bdo-reports/{recordId}/download", tag, a.ReportsRead, a.ReportsExport).
				Answers(kit.FileNotReady("")).
				Handle(kit.Query(h.download), kit.Response{Status: http.StatusOK, ContentType: "application/octet-stream",
					Schema: kit.Binary(), Headers: []kit.Param{{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.report_file_name"}}}),
		},
		Schemas: schemas(),
	}
}

func schemas() map[string]kit.Schema {
	dec := kit.DecimalString()
	groups := kit.Enum(dictionaries.BDOGroups()...)
	return map[string]kit.Schema{
		"BDOSourcePage": kit.Described(kit.Object(map[string]kit.Schema{
			"data": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"key": kit.Str(), "kind": kit.Enum("flow", "supply"), "id": kit.UUID(), "date": kit.Date(), "item": kit.UUID(),
				"material_code": kit.Str(), "material_group": kit.Nullable(groups), "reusable": kit.Bool(),
				"packaging_function": kit.Nullable(kit.Str()), "mass_g": dec, "mass_mg": dec,
				"suggested_section": kit.Enum(bdo.BDOSections...), "state": kit.Enum(bdo.BDOStates...),
				"classification": kit.Nullable(kit.Object(map[string]kit.Schema{
					"section": kit.Enum(bdo.BDOSections...), "material_group": kit.Nullable(groups), "reusable": kit.Nullable(kit.Bool()),
					"excluded": kit.Bool(), "exclusion_reason": kit.Nullable(kit.Str()), "classified_at": kit.DateTime(),
				})),
			})),
			"page": kit.Int(), "per_page": kit.Int(), "total": kit.Int(), "year": kit.Int(),
			"summary": kit.Object(map[string]kit.Schema{
				"totals": kit.ArrayOf(kit.Object(map[string]kit.Schema{
					"material_group": kit.Nullable(groups), "single_use_mg": dec, "reusable_mg": dec, "total_mg": dec,
				})),
				"total_mg": dec, "unclassified": kit.Int(), "excluded": kit.Int(),
			}),
			"requestId": kit.UUID(),
		}), "schema.bdo_sources"),
		"ReportRun": kit.Described(kit.Object(map[string]kit.Schema{
			"id": kit.UUID(), "year": kit.Int(), "status": kit.Enum(bdo.BDOReportStatuses...),
			"settlement_mode": kit.Enum(bdo.NotCalculated), "rounding": kit.Str(), "source_count": kit.Int(),
			"totals": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"section": kit.Enum(bdo.BDOSections...), "material_group": kit.Nullable(groups), "single_use_g": dec, "reusable_g": dec,
				"single_use_mg": dec, "reusable_mg": dec, "total_mg": dec, "sources": kit.Int(),
			})),
			"warnings": kit.ArrayOf(kit.Object(map[string]kit.Schema{
				"code": kit.Enum(bdo.WarningUnclassified, bdo.WarningNoMass, bdo.WarningNoGroup), "count": kit.Int(),
				"sources": kit.ArrayOf(kit.Str()),
			})),
			"export_status": kit.Enum(bdo.ExportStatuses...), "export_error": kit.Nullable(kit.Str()),
			"rendered_at": kit.Nullable(kit.DateTime()), "created_at": kit.DateTime(),
		}), "schema.bdo_report"),
		"BDOClassificationResult": kit.Object(map[string]kit.Schema{
			"year": kit.Int(), "classified": kit.Int(), "sources": kit.ArrayOf(kit.Str()), "requestId": kit.UUID(),
		}),
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

type sourceJSON struct {
	Key               string              `json:"key"`
	Kind              string              `json:"kind"`
	ID                uuid.UUID           `json:"id"`
	Date              string              `json:"date"`
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

type totalJSON struct {
	MaterialGroup *string         `json:"material_group"`
	SingleUseMg   decimal.Decimal `json:"single_use_mg"`
	ReusableMg    decimal.Decimal `json:"reusable_mg"`
	TotalMg       decimal.Decimal `json:"total_mg"`
}

// sources answers a page of the year's sources and the year's summary.
func (h *handlers) sources(c *gin.Context, q *sourcesQuery) error {
	ctx, org := c.Request.Context(), kit.OrgID(c)
	page, perPage := max(q.Page.Value, 1), kit.DefaultPerPage
	if q.PerPage.Set() {
		perPage = q.PerPage.Value
	}
	rows, total, err := bdo.BDOSourcesPage(ctx, h.DB, org, q.Year.Value, page, perPage)
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
	c.JSON(http.StatusOK, gin.H{"data": data, "page": page, "per_page": perPage, "total": total, "year": q.Year.Value,
		"summary":   gin.H{"totals": totals, "total_mg": bdo.GramsToMg(all), "unclassified": summary.Unclassified, "excluded": summary.Excluded},
		"requestId": kit.State(c).ID})
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
	c.JSON(http.StatusOK, gin.H{"year": in.Year.Value, "classified": len(keys), "sources": keys, "requestId": kit.State(c).ID})
	return nil
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
}

func reportToJSON(r *bdo.BDOReport) reportJSON {
	return reportJSON{ID: r.ID, Year: r.Year, Status: r.Status, SettlementMode: r.SettlementMode, Rounding: r.Rounding,
		SourceCount: r.SourceCount, Totals: r.Totals, Warnings: r.Warnings, ExportStatus: r.ExportStatus, ExportError: r.ExportError,
		RenderedAt: kit.UTC(r.RenderedAt), CreatedAt: r.CreatedAt.UTC()}
}

// createReport takes the snapshot in the request and answers it prepared
// or needs_review; the workflow renders the exports after.
func (h *handlers) createReport(c *gin.Context, in *bdo.BDOReportCreate) error {
	r, err := bdo.CreateBDOReport(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, r.ID, reportToJSON(r))
}

func (h *handlers) getReport(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", reportToJSON)
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
