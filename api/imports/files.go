package imports

import (
	"encoding/csv"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/imports"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

// The area's CSV files are UTF-8 with a byte order mark, which Excel needs
// to read Polish letters, comma-separated, one header row of column names.
const (
	csvContentType = "text/csv; charset=utf-8"
	byteOrderMark  = "\uFEFF"
)

// csvResponse documents a CSV download.
func csvResponse() kit.Response {
	return kit.Response{Status: http.StatusOK, ContentType: "text/csv", Schema: kit.Schema{"type": "string"}}
}

// csvFile starts a CSV download named name and returns its writer, which
// the caller flushes.
func csvFile(c *gin.Context, name string) *csv.Writer {
	c.Header("Content-Disposition", `attachment; filename="`+name+`"`)
	c.Header("Content-Type", csvContentType)
	c.Status(http.StatusOK)
	_, _ = c.Writer.WriteString(byteOrderMark)
	return csv.NewWriter(c.Writer)
}

// templateQuery chooses an empty template or one filled with the
// organization's data.
type templateQuery struct {
	input.Errors
	Populated input.Opt[string]
}

func (q *templateQuery) Declare(f *input.Fields) {
	f.Enum("populated", &q.Populated, input.Enum{Values: []string{"0", "1"}})
}

func (q *templateQuery) populated() bool { return q.Populated.Value == "1" }

// codesTemplate is the code_mappings import's template; populated, it
// holds the organization's mappings, so a file edited from it imports as
// unchanged but for the edits.
func (h *handlers) codesTemplate(c *gin.Context, q *templateQuery) error {
	out := csvFile(c, "codes.csv")
	_ = out.Write(imports.CodeMappingImportColumns)
	if q.populated() {
		var mappings []catalog.CodeMapping
		err := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Order("dictionary, lower(source_code)").
			FindInBatches(&mappings, 1000, func(*gorm.DB, int) error {
				for _, m := range mappings {
					_ = out.Write([]string{m.Dictionary, m.SourceCode, m.Code})
				}
				return nil
			}).Error
		if err != nil {
			return err
		}
	}
	out.Flush()
	return nil
}

// documentsTemplate is the document_metadata import's template. Documents
// are not built yet, so the organization has none to fill it with: the
// populated template is the header alone, as the README says.
func (h *handlers) documentsTemplate(c *gin.Context, _ *templateQuery) error {
	out := csvFile(c, "documents.csv")
	_ = out.Write(imports.DocumentMetadataImportColumns)
	out.Flush()
	return nil
}

// resultPage bounds the rows read at once while writing a result file.
const resultPage = 1000

// resultFile is every input row of the import with its outcome, whether it
// was applied, the record it names and a message in the request's
// language: the field errors of an invalid row, else what was or will be
// done. Rows are read page by page, so the file streams whatever its size.
// While the rows are being written (queued, applying), or when the file
// could not be read (failed), the answer is 409 file_not_ready with
// Retry-After, as for the other built files. A row whose stored values do
// not decode fails the download: a 500 when it is on the first page, else,
// with the file under way, a cut connection.
func (h *handlers) resultFile(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	imp, err := domain.Find[imports.Import](c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	if !imp.RowsSettled() {
		return kit.FileNotReady(imp.Status)
	}
	var out *csv.Writer
	for after := 0; ; {
		lines, last, err := h.resultLines(c, imp, after)
		switch {
		case err != nil && out != nil:
			kit.AbortStream(c, err)
		case err != nil:
			return err
		case out == nil:
			out = csvFile(c, "import-"+imp.ID.String()+"-result.csv")
			_ = out.Write(append([]string{"row", "outcome", "applied", "record_id", "message"}, imports.ImportColumns[imp.Type]...))
		}
		for _, line := range lines {
			_ = out.Write(line)
		}
		if len(lines) < resultPage {
			break
		}
		after = last
	}
	out.Flush()
	return out.Error()
}

// resultLines are the result file's lines of up to resultPage rows of the
// import after row number after, and the number of the last.
func (h *handlers) resultLines(c *gin.Context, imp *imports.Import, after int) (lines [][]string, last int, err error) {
	var rows []imports.ImportRow
	if err := domain.Tenant(c.Request.Context(), h.DB, imp.OrganizationID).Where("import_id = ? AND number > ?", imp.ID, after).
		Order("number").Limit(resultPage).Find(&rows).Error; err != nil {
		return nil, 0, err
	}
	locale, columns := kit.State(c).Locale, imports.ImportColumns[imp.Type]
	lines = make([][]string, len(rows))
	for i := range rows {
		if lines[i], err = resultLine(locale, columns, &rows[i]); err != nil {
			return nil, 0, err
		}
		last = rows[i].Number
	}
	return lines, last, nil
}

// resultLine is one row of the result file.
func resultLine(locale i18n.Locale, columns []string, r *imports.ImportRow) ([]string, error) {
	cells, err := r.Cells()
	if err != nil {
		return nil, err
	}
	plan, err := r.PlannedChange()
	if err != nil {
		return nil, err
	}
	done, err := r.AppliedChange()
	if err != nil {
		return nil, err
	}
	applied := len(r.Applied) > 0 && string(r.Applied) != "null"
	message, err := rowMessage(locale, r, plan, applied)
	if err != nil {
		return nil, err
	}
	record := done.Record()
	if record == uuid.Nil {
		record = plan.Record()
	}
	line := []string{strconv.Itoa(r.Number), r.Outcome, strconv.FormatBool(applied), "", message}
	if record != uuid.Nil {
		line[3] = record.String()
	}
	for _, col := range columns {
		line = append(line, cells[col])
	}
	return line, nil
}

// rowMessage says why a row is invalid, or what was or will be done as
// plan says.
func rowMessage(locale i18n.Locale, r *imports.ImportRow, plan imports.RowChange, applied bool) (string, error) {
	if r.Outcome == imports.OutcomeInvalid {
		fieldErrors, err := r.FieldErrors()
		if err != nil {
			return "", err
		}
		var parts []string
		for _, f := range fieldErrors {
			parts = append(parts, f.Field+": "+i18n.T(locale, f.Key, f.Args...))
		}
		return strings.Join(parts, "; "), nil
	}
	var args []any
	if len(plan.Changes) > 0 {
		args = append(args, strings.Join(slices.Sorted(maps.Keys(plan.Changes)), ", "))
	}
	state := "planned"
	switch {
	case plan.PlannedOnly:
		state = "planned_only"
	case applied:
		state = "applied"
	}
	return i18n.T(locale, "result."+r.Outcome+"."+state, args...), nil
}
