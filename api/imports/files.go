package imports

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"sort"
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
// Retry-After, as for the other built files.
func (h *handlers) resultFile(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	imp, err := domain.Find[imports.Import](ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	if !imp.RowsSettled() {
		return kit.FileNotReady(imp.Status)
	}
	columns := imports.ImportColumns[imp.Type]
	out := csvFile(c, "import-"+imp.ID.String()+"-result.csv")
	_ = out.Write(append([]string{"row", "outcome", "applied", "record_id", "message"}, columns...))
	locale := kit.State(c).Locale
	for after := 0; ; {
		var rows []imports.ImportRow
		if err := domain.Tenant(ctx, h.DB, org).Where("import_id = ? AND number > ?", imp.ID, after).
			Order("number").Limit(resultPage).Find(&rows).Error; err != nil {
			return err
		}
		for i := range rows {
			_ = out.Write(resultLine(locale, columns, &rows[i]))
		}
		if len(rows) < resultPage {
			break
		}
		after = rows[len(rows)-1].Number
	}
	out.Flush()
	return out.Error()
}

// resultLine is one row of the result file.
func resultLine(locale i18n.Locale, columns []string, r *imports.ImportRow) []string {
	cells, _ := r.Cells()
	applied := len(r.Applied) > 0 && string(r.Applied) != "null"
	line := []string{strconv.Itoa(r.Number), r.Outcome, strconv.FormatBool(applied), recordID(r), rowMessage(locale, r, applied)}
	for _, col := range columns {
		line = append(line, cells[col])
	}
	return line
}

// recordIDKeys are the keys naming the record a row changed or planned to.
var recordIDKeys = []string{"catalogItem", "party", "codeMapping", "document"}

// recordID is the record the row changed, else the one its plan names.
func recordID(r *imports.ImportRow) string {
	for _, doc := range [][]byte{r.Applied, r.Planned} {
		var ids map[string]any
		if json.Unmarshal(doc, &ids) != nil {
			continue
		}
		for _, k := range recordIDKeys {
			if s, ok := ids[k].(string); ok && s != uuid.Nil.String() {
				return s
			}
		}
	}
	return ""
}

// rowMessage says why a row is invalid, or what was or will be done.
func rowMessage(locale i18n.Locale, r *imports.ImportRow, applied bool) string {
	if r.Outcome == imports.OutcomeInvalid {
		var parts []string
		for _, f := range r.FieldErrors() {
			parts = append(parts, f.Field+": "+i18n.T(locale, f.Key, f.Args...))
		}
		return strings.Join(parts, "; ")
	}
	var plan struct {
		Changes     map[string]any `json:"changes"`
		PlannedOnly bool           `json:"plannedOnly"`
	}
	_ = json.Unmarshal(r.Planned, &plan)
	var args []any
	if len(plan.Changes) > 0 {
		changed := make([]string, 0, len(plan.Changes))
		for field := range plan.Changes {
			changed = append(changed, field)
		}
		sort.Strings(changed)
		args = append(args, strings.Join(changed, ", "))
	}
	state := "planned"
	switch {
	case plan.PlannedOnly:
		state = "planned_only"
	case applied:
		state = "applied"
	}
	return i18n.T(locale, "result."+r.Outcome+"."+state, args...)
}
