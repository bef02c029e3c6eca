// Package reports is the spec's reports: files built from the ledger and
// the registers by the workflow report/<id>, polled and downloaded.
//
// The spec names these operations only in workflow lists, without their
// abilities and permissions; they follow the nearest documented area (see
// the README, "Choices where the spec is silent").
package reports

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/reports"
	a "ppwr/internal/access"
)

const tag = "reports"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	report := kit.Ref("Report")
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createReport", kit.Org+"/reports", tag, a.ReportsRun, a.ReportsExport).
				Handle(kit.JSON(h.create), kit.AcceptedResponse(report).WithLocation("getReport")),
			kit.Get("getReport", kit.Org+"/reports/{recordId}", tag, a.ReportsRead, a.ReportsView).
				Handle(kit.Do(h.get), kit.OK(report).Polled()),
			kit.Get("downloadReport", kit.Org+"/reports/{recordId}/download", tag, a.ReportsRead, a.ReportsExport).
				Answers(kit.FileNotReady("")).
				Handle(kit.Do(h.download), kit.Response{Status: http.StatusOK, Schema: kit.Binary(),
					ContentTypes: []string{"text/csv", reports.XLSXType},
					Headers:      []kit.Param{{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.report_file_name"}}}),
		},
		Models: []kit.Model{kit.ModelOf[reportJSON]("Report").Described("schema.report").Example(reportExample())},
	}
}

type reportJSON struct {
	ID          uuid.UUID                `json:"id"`
	Kind        string                   `json:"kind"`
	Format      string                   `json:"format"`
	Parameters  reports.ReportParameters `json:"parameters"`
	Status      string                   `json:"status"`
	RowCount    *int                     `json:"row_count"`
	FileName    string                   `json:"file_name"`
	Error       *string                  `json:"error"`
	CreatedAt   time.Time                `json:"created_at"`
	CompletedAt *time.Time               `json:"completed_at"`
	Progress    kit.Progress             `json:"progress"`
}

func (reportJSON) Declare(s *kit.Shape) {
	s.Enum("kind", reports.ReportKinds...)
	s.Enum("format", "csv", "xlsx")
	s.Enum("status", reports.ReportStatuses...)
	s.Enum("progress.stage", reports.ReportStages...)
}

func reportToJSON(r *reports.Report) reportJSON {
	return reportJSON{ID: r.ID, Kind: r.Kind, Format: r.Format, Parameters: r.Parameters.Data(), Status: r.Status, RowCount: r.RowCount,
		FileName: r.FileName(), Error: r.Error, CreatedAt: r.CreatedAt.UTC(), CompletedAt: kit.UTC(r.CompletedAt),
		Progress: kit.ProgressOf(r.Progress)}
}

// reportExample is the document's example of a report being built,
// the total of its rows unknown until the last is written.
func reportExample() reportJSON {
	from, to := "2025-01-01", "2025-12-31"
	return reportToJSON(&reports.Report{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e03"), Kind: reports.ReportPlacedOnMarket,
		Format: "xlsx", Parameters: datatypes.NewJSONType(reports.ReportParameters{From: &from, To: &to}), Status: reports.ReportRunning,
		CreatedAt: kit.ExampleAt.Add(-time.Minute),
		Progress:  domain.Progress{Stage: reports.StageWritingRows, Done: 12_000, MovedAt: kit.ExampleAt}})
}

// create records the report and answers 202: the workflow builds it.
func (h *handlers) create(c *gin.Context, in *reports.ReportCreate) error {
	r, err := reports.CreateReport(kit.Work(c), in)
	if err != nil {
		return err
	}
	c.Header("Location", kit.Location(c, r.ID))
	return kit.Accepted(c, reportToJSON(r))
}

func (h *handlers) get(c *gin.Context) error {
	return kit.ShowJob(c, h.DB, "recordId", kit.Infallible(reportToJSON))
}

// download streams the built file; before it is built the answer is 409
// with Retry-After.
func (h *handlers) download(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	r, err := domain.Find[reports.Report](c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	if r.Status != reports.ReportCompleted || r.ObjectKey == nil {
		return kit.FileNotReady(r.Status)
	}
	return kit.Attachment(c, h.Storage, *r.ObjectKey, r.FileName(), r.ContentType())
}
