package ppwr

import (
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/movements"
	"ppwr/domain/records"
	"ppwr/domain/registers"
	"ppwr/domain/reports"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/sheet"
)

// eprReports is the annual EPR reports per Member State (PPWR Art. 44(7)
// and (8)). There is no read of one report: the create and review answers,
// the lines list (whose envelope carries the report) and the export show
// it.
func (h *handlers) eprReports() kit.Area {
	report := kit.Ref("EPRReport")
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createEPRReport", kit.Org+"/ppwr/epr-reports", tag, a.ReportsRun, a.ReportsExport).
				Handle(kit.JSON(h.createEPRReport), kit.CreatedResponse(report, "listEPRReportLines")),
			kit.Post("createEPRReportLine", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRun, a.ReportsExport).
				Answers(records.ErrEPRReportApproved, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.addEPRReportLine), kit.Response{Status: http.StatusCreated, Schema: kit.Ref(eprLineAdded)}),
			kit.List("listEPRReportLines", kit.Org+"/ppwr/epr-reports/{parentId}/lines", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.listEPRReportLines), kit.OK(kit.Ref(eprLinePage))),
			kit.Post("reviewEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm).
				Answers(registers.ErrSelfReview, records.ErrEPRReportReviewed, domain.ErrRevisionConflict).
				Handle(kit.JSONBody("EPRReportReview", records.NewEPRReview, kit.Change("recordId", records.ReviewEPRReport, eprReportToJSON)), kit.OK(report)),
			kit.Get("exportEPRReport", kit.Org+"/ppwr/epr-reports/{recordId}/export", tag, a.ReportsRead, a.ReportsExport).
				Handle(kit.Query(h.exportEPRReport), kit.Response{Status: http.StatusOK, Schema: kit.Described(kit.Binary(), "schema.epr_export"),
					ContentTypes: []string{"text/csv", reports.XLSXType},
					Headers:      []kit.Param{{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.report_file_name"}}}),
		},
		Models: []kit.Model{
			kit.ModelOf[eprReportJSON]("EPRReport").Described("schema.epr_report"),
			kit.ModelOf[eprLineJSON]("EPRReportLine").Described("schema.epr_report_line"),
			kit.ModelOf[eprLineAddedJSON](eprLineAdded),
			kit.ModelOf[eprLinePageJSON](eprLinePage),
		},
	}
}

// Names of the answers that are the line with its report.
const (
	eprLineAdded = "EPRReportLineAdded"
	eprLinePage  = "EPRReportLinePage"
)

type eprReportJSON struct {
	ID         uuid.UUID            `json:"id"`
	Country    string               `json:"country"`
	Year       int                  `json:"year"`
	PeriodFrom string               `json:"period_from" schema:"date"`
	PeriodTo   string               `json:"period_to" schema:"date"`
	FlowKinds  []string             `json:"flow_kinds"`
	Form       string               `json:"form"`
	Threshold  decimal.Decimal      `json:"form_threshold_t"`
	FormBasis  string               `json:"form_basis"`
	Rounding   string               `json:"rounding"`
	TotalG     decimal.Decimal      `json:"total_g"`
	TotalKg    decimal.Decimal      `json:"total_kg"`
	TotalT     decimal.Decimal      `json:"total_t"`
	FlowCount  int                  `json:"flow_count"`
	LineCount  int                  `json:"line_count"`
	Warnings   []records.EPRWarning `json:"warnings"`
	CreatedAt  time.Time            `json:"created_at"`
	kit.ReviewJSON
}

func (eprReportJSON) Declare(s *kit.Shape) {
	s.Enum("flow_kinds", movements.FlowKinds...)
	s.Enum("form", records.EPRForms...)
	s.Enum("warnings.code", records.EPRWarnings...)
	s.Enum("review_status", records.EPRReviewStatuses...)
}

func eprReportToJSON(r *records.EPRReport) eprReportJSON {
	return eprReportJSON{ID: r.ID, Country: r.Country, Year: r.Year, PeriodFrom: r.PeriodFrom.Format(time.DateOnly),
		PeriodTo: r.PeriodTo.Format(time.DateOnly), FlowKinds: r.FlowKinds, Form: r.Form,
		Threshold: decimal.NewFromInt(records.EPRSimplifiedBelowT), FormBasis: records.EPRFormBasis, Rounding: records.EPRRounding,
		TotalG: r.TotalG, TotalKg: records.GramsToKg(r.TotalG), TotalT: records.GramsToT(r.TotalG), FlowCount: r.FlowCount,
		LineCount: r.LineCount, Warnings: r.Warnings, CreatedAt: r.CreatedAt.UTC(), ReviewJSON: kit.Review(&r.ReviewState)}
}

type eprLineJSON struct {
	ID         uuid.UUID       `json:"id"`
	Report     uuid.UUID       `json:"report"`
	Source     string          `json:"source"`
	Category   *int            `json:"category" schema:"min=1,max=22"`
	Material   *string         `json:"material_code"`
	MassG      decimal.Decimal `json:"mass_g"`
	MassKg     decimal.Decimal `json:"mass_kg"`
	MassT      decimal.Decimal `json:"mass_t"`
	FlowCount  int             `json:"flow_count"`
	FlowSample []string        `json:"flow_sample"`
	Reason     *string         `json:"reason"`
	CreatedBy  *uuid.UUID      `json:"created_by"`
	CreatedAt  time.Time       `json:"created_at"`
}

func (eprLineJSON) Declare(s *kit.Shape) { s.Enum("source", records.EPRSources...) }

// eprLineAddedJSON is an added line with the report it changed.
type eprLineAddedJSON struct {
	Line   eprLineJSON   `json:"line"`
	Report eprReportJSON `json:"report"`
}

// eprLinePageJSON is a page of a report's lines, with the report and its
// totals per material group.
type eprLinePageJSON struct {
	kit.Page[eprLineJSON]
	Report         eprReportJSON              `json:"report"`
	MaterialGroups []records.EPRMaterialTotal `json:"material_groups" schema:"desc=schema.epr_material_groups"`
}

func (eprLinePageJSON) Declare(s *kit.Shape) {
	s.Enum("material_groups.group", append(slices.Clone(records.EPRMaterialGroups), records.EPRUnspecified)...)
}

func eprLineToJSON(l *records.EPRReportLine) eprLineJSON {
	return eprLineJSON{ID: l.ID, Report: l.ReportID, Source: l.Source, Category: l.Category, Material: l.MaterialCode, MassG: l.MassG,
		MassKg: records.GramsToKg(l.MassG), MassT: records.GramsToT(l.MassG), FlowCount: l.FlowCount, FlowSample: l.FlowSample,
		Reason: l.Reason, CreatedBy: l.CreatedBy, CreatedAt: l.CreatedAt.UTC()}
}

// createEPRReport answers the report; its row names the lines list, the
// one read of a report (its envelope carries the report), as Location.
func (h *handlers) createEPRReport(c *gin.Context, in *records.EPRReportCreate) error {
	r, _, err := records.CreateEPRReport(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, r.ID, eprReportToJSON(r))
}

// addEPRReportLine answers the line with the report it changed, whose new
// revision the next write needs.
func (h *handlers) addEPRReportLine(c *gin.Context, in *records.EPRLineCreate) error {
	id, err := kit.PathID(c, "parentId")
	if err != nil {
		return err
	}
	r, l, err := records.AddEPRReportLine(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, eprLineAddedJSON{Line: eprLineToJSON(l), Report: eprReportToJSON(r)})
	return nil
}

// eprReport reads the report the path parameter names, with all its
// lines.
func (h *handlers) eprReport(c *gin.Context, param string) (*records.EPRReport, []records.EPRReportLine, error) {
	id, err := kit.PathID(c, param)
	if err != nil {
		return nil, nil, err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	r, err := domain.Find[records.EPRReport](ctx, h.DB, org, id)
	if err != nil {
		return nil, nil, err
	}
	lines, err := records.EPRReportLines(ctx, h.DB, org, r.ID)
	return r, lines, err
}

// listEPRReportLines pages through a report's lines in the order they were
// added (the flows' first), with the report.
func (h *handlers) listEPRReportLines(c *gin.Context) error {
	r, all, err := h.eprReport(c, "parentId")
	if err != nil {
		return err
	}
	lines := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&records.EPRReportLine{}).Where("report_id = ?", r.ID)
	return kit.PaginateWith(c, lines, kit.OldestFirst, eprLineToJSON, func(p kit.Page[eprLineJSON]) eprLinePageJSON {
		return eprLinePageJSON{Page: p, Report: eprReportToJSON(r), MaterialGroups: records.EPRMaterialTotals(all)}
	})
}

// eprExportQuery is the export's format.
type eprExportQuery struct {
	input.Errors
	Format input.Opt[string]
}

func (q *eprExportQuery) Declare(f *input.Fields) {
	f.Enum("format", &q.Format, input.Enum{Values: []string{"csv", "xlsx"}, Desc: "epr.format"})
}

// exportEPRReport builds the file in the request: a report has a line per
// category and material of its flows plus the lines added by hand, far too
// few to need a workflow. CSV holds the report's field and value rows, an
// empty row, the lines table, an empty row and the simplified form's
// table of material groups; XLSX holds them in the sheets "report",
// "lines" and "material_groups".
func (h *handlers) exportEPRReport(c *gin.Context, q *eprExportQuery) error {
	r, lines, err := h.eprReport(c, "recordId")
	if err != nil {
		return err
	}
	header, table := records.EPRExportHeader(r), records.EPRExportLines(lines)
	groups := records.EPRExportMaterialGroups(records.EPRMaterialTotals(lines))
	format := "csv"
	if q.Format.Set() {
		format = q.Format.Value
	}
	name := "epr-" + r.Country + "-" + strconv.Itoa(r.Year) + "-" + r.ID.String() + "." + format
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	if format == "csv" {
		c.Header("Content-Type", "text/csv")
		c.Status(http.StatusOK)
		return sheet.CSV(c.Writer, sheet.All(slices.Concat(header, [][]any{{}}, table, [][]any{{}}, groups)))
	}
	x := excelize.NewFile()
	defer x.Close()
	if err := sheet.Stream(x, "report", sheet.All(header)); err != nil {
		return err
	}
	if err := sheet.Stream(x, "lines", sheet.All(table)); err != nil {
		return err
	}
	if err := sheet.Stream(x, "material_groups", sheet.All(groups)); err != nil {
		return err
	}
	if err := x.DeleteSheet("Sheet1"); err != nil {
		return err
	}
	c.Header("Content-Type", reports.XLSXType)
	c.Status(http.StatusOK)
	return sheet.Save(x, c.Writer)
}
