// Package imports is the spec's "Imports" area: CSV/XLSX import jobs with a
// preview stage and an apply stage, and their templates.
package imports

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/imports"
	a "ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

const tag = "imports"

// MaxUploadBytes bounds an uploaded file; a larger one is refused with 413
// and nothing is kept.
const MaxUploadBytes = 20 << 20

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	importAnswer := kit.AcceptedResponse(kit.Ref("Import"))
	return kit.Area{
		Operations: []kit.Operation{
			kit.Get("getCodesImportTemplate", kit.Org+"/import-templates/codes.csv", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Query(h.codesTemplate), csvResponse()),
			kit.Get("getDocumentsImportTemplate", kit.Org+"/import-templates/documents.csv", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Query(h.documentsTemplate), csvResponse()),
			kit.List("listImports", kit.Org+"/imports", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Do(h.listImports), kit.ListOK("Import")),
			kit.Get("getImport", kit.Org+"/imports/{recordId}", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Do(h.getImport), kit.OK(kit.Ref("Import")).Polled()),
			kit.Post("createImport", kit.Org+"/imports", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Multipart("ImportUpload", uploadSchema(), h.createImport), importAnswer.WithLocation("getImport")),
			kit.List("listImportRows", kit.Org+"/imports/{importId}/rows", tag, a.ImportsRun, a.ImportsRunPerm).
				Handle(kit.Query(h.listImportRows), kit.ListOK("ImportRow")),
			kit.Post("applyImport", kit.Org+"/imports/{recordId}/apply", tag, a.ImportsRun, a.ImportsRunPerm).
				Answers(imports.ErrImportNotReady, imports.ErrImportPlannedOnly).
				Handle(kit.Do(h.applyImport), importAnswer),
			kit.Get("downloadImportResult", kit.Org+"/imports/{recordId}/result.csv", tag, a.ImportsRun, a.ImportsRunPerm).
				Answers(kit.FileNotReady("")).
				Handle(kit.Do(h.resultFile), csvResponse()),
		},
		Models: []kit.Model{kit.ModelOf[importJSON]("Import").Example(importExample()), kit.ModelOf[importRowJSON]("ImportRow")},
	}
}

// uploadSchema documents the upload form.
func uploadSchema() kit.Schema {
	return kit.Schema{"type": "object", "required": []string{"file", "type"}, "properties": map[string]any{
		"file": kit.Binary(),
		"type": kit.Enum(imports.ImportTypes...),
		"mapping": kit.Schema{"type": "string", "contentMediaType": "application/json",
			"description": "A JSON object mapping the file's column names to the import type's column names, " +
				`for example {"Indeks": "internalCode", "Nazwa": "name"}; columns not in it must already be named as the type's columns.`},
		"sheet": kit.Schema{"type": "string", "maxLength": sheetNameMax,
			"description": "The sheet of an XLSX file to read; the first sheet when absent. Ignored for CSV files."},
	}}
}

// importJSON is the import resource.
type importJSON struct {
	ID          uuid.UUID    `json:"id"`
	Type        string       `json:"type"`
	Status      string       `json:"status"`
	FileName    string       `json:"file_name"`
	SizeBytes   int64        `json:"size_bytes"`
	Error       *string      `json:"error"`
	Counts      countsJSON   `json:"counts"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
	ReadyAt     *time.Time   `json:"ready_at"`
	CompletedAt *time.Time   `json:"completed_at"`
	Progress    kit.Progress `json:"progress"`
}

func (importJSON) Declare(s *kit.Shape) {
	s.Enum("type", imports.ImportTypes...)
	s.Enum("status", imports.ImportStatuses...)
	s.Enum("progress.stage", imports.ImportStages...)
}

// countsJSON counts an import's rows by outcome, in the order the keys
// were sent when they were a map's.
type countsJSON struct {
	Create    int `json:"create"`
	Invalid   int `json:"invalid"`
	Unchanged int `json:"unchanged"`
	Update    int `json:"update"`
}

// importExample is the document's example of an import being applied.
func importExample() importJSON {
	ready := kit.ExampleAt.Add(-2 * time.Minute)
	return importJSON{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e02"), Type: imports.ImportCatalog, Status: imports.ImportApplying,
		FileName: "katalog.csv", SizeBytes: 14_250_112, Counts: countsJSON{Create: 61_200, Invalid: 0, Unchanged: 300, Update: 38_500},
		CreatedAt: ready.Add(-time.Minute), UpdatedAt: kit.ExampleAt, ReadyAt: &ready,
		Progress: kit.ExampleProgress(imports.StageApplying, 42_000, domain.Known(100_000))}
}

// importRenderer renders imports in the request's language (the reason of
// a failed one is a message key).
func importRenderer(c *gin.Context) func(*imports.Import) (importJSON, error) {
	locale := kit.State(c).Locale
	return func(m *imports.Import) (importJSON, error) { return importToJSON(locale, m) }
}

func importToJSON(locale i18n.Locale, m *imports.Import) (importJSON, error) {
	out := importJSON{ID: m.ID, Type: m.Type, Status: m.Status, FileName: m.FileName, SizeBytes: m.SizeBytes,
		Counts:    countsJSON{Create: m.CreateCount, Invalid: m.InvalidCount, Unchanged: m.UnchangedCount, Update: m.UpdateCount},
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(), ReadyAt: kit.UTC(m.ReadyAt), CompletedAt: kit.UTC(m.CompletedAt),
		Progress: kit.ProgressOf(m.Progress)}
	key, args, err := m.ErrorReason()
	if err != nil {
		return importJSON{}, err
	}
	if key != "" {
		msg := i18n.T(locale, key, args...)
		out.Error = &msg
	}
	return out, nil
}

// accepted answers 202 with the import.
func accepted(c *gin.Context, imp *imports.Import) error {
	body, err := importRenderer(c)(imp)
	if err != nil {
		return err
	}
	return kit.Accepted(c, body)
}

func (h *handlers) listImports(c *gin.Context) error {
	q := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&imports.Import{})
	return kit.PaginatePage(c, q, kit.NewestFirst, kit.EachRow(importRenderer(c)))
}

func (h *handlers) getImport(c *gin.Context) error {
	return kit.ShowJob(c, h.DB, "recordId", importRenderer(c))
}

// createImport streams the file part to the object store, bounded, and
// records the queued import with the durable start of its preview
// workflow. The object is written before the unit commits: should the
// commit fail, an unreferenced object is left, never an import without
// its file.
func (h *handlers) createImport(c *gin.Context) error {
	ctx, org, id := c.Request.Context(), kit.OrgID(c), domain.NewID()
	file, err := kit.ReadUpload(c, kit.UploadForm{
		MaxBytes: MaxUploadBytes, Fields: []string{"type", "mapping", "sheet"}, FieldMax: formFieldMax,
		Put: func(name string, body io.Reader) error {
			return h.Storage.Put(ctx, imports.ImportObjectKey(org, id, name), body, "text/csv")
		},
		Remove: func(name string) { _ = h.Storage.Delete(ctx, imports.ImportObjectKey(org, id, name)) },
	})
	if err != nil {
		return err
	}
	up := upload{ImportUpload: imports.ImportUpload{FileName: file.FileName, Size: file.Size}, fields: file.Fields}
	if err := up.check(); err != nil {
		file.Discard()
		return err
	}
	w := kit.Work(c)
	imp, err := imports.CreateImport(w, id, up.ImportUpload)
	if err != nil {
		file.Discard()
		return err
	}
	c.Header("Location", kit.Location(c, id))
	return accepted(c, imp)
}

// formFieldMax bounds the form's text fields (the mapping is the longest).
const formFieldMax = 16 << 10

// upload is what the form sent: the stored file and the text fields, read
// into the import's upload by check.
type upload struct {
	imports.ImportUpload
	fields map[string]string
}

// check reads the text fields and names every missing or refused one at
// once.
func (u *upload) check() error {
	var fields []input.FieldError
	u.Type = strings.TrimSpace(u.fields["type"])
	columns, known := imports.ImportColumns[u.Type]
	switch {
	case u.Type == "":
		fields = append(fields, kit.Field("type", "field.required"))
	case !known:
		fields = append(fields, kit.Field("type", "field.one_of", strings.Join(imports.ImportTypes, ", ")))
	}
	if raw := strings.TrimSpace(u.fields["mapping"]); raw != "" {
		if json.Unmarshal([]byte(raw), &u.Mapping) != nil {
			fields = append(fields, kit.Field("mapping", "field.import_mapping"))
		} else if known {
			fields = append(fields, checkMapping(u.Mapping, columns)...)
		}
	}
	u.Sheet = strings.TrimSpace(u.fields["sheet"])
	if utf8.RuneCountInString(u.Sheet) > sheetNameMax {
		fields = append(fields, kit.Field("sheet", "field.too_long", sheetNameMax))
	}
	if len(fields) > 0 {
		return kit.Invalid(fields...)
	}
	return nil
}

// sheetNameMax is the longest sheet name Excel allows.
const sheetNameMax = 31

// checkMapping refuses a mapping to a field the import type does not have,
// or two file columns mapped to one field.
func checkMapping(mapping map[string]string, columns []string) []input.FieldError {
	var fields []input.FieldError
	targets := map[string]string{}
	for from, to := range mapping {
		switch {
		case strings.TrimSpace(from) == "":
			fields = append(fields, kit.Field("mapping", "field.import_mapping"))
		case !slices.Contains(columns, to):
			fields = append(fields, kit.Field("mapping."+from, "field.one_of", strings.Join(columns, ", ")))
		case targets[to] != "":
			fields = append(fields, kit.Field("mapping."+from, "field.import_mapping_twice", to, targets[to]))
		default:
			targets[to] = from
		}
	}
	return fields
}

// applyImport moves a ready import to applying and records the start of
// its apply workflow in the same unit, so the apply runs if and only if
// the request commits.
func (h *handlers) applyImport(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	imp, err := imports.RequestImportApply(w, id)
	if err != nil {
		return err
	}
	return accepted(c, imp)
}

// rowQuery filters an import's rows.
type rowQuery struct {
	input.Errors
	Outcome input.Opt[string]
}

func (q *rowQuery) Declare(f *input.Fields) {
	f.Enum("outcome", &q.Outcome, input.Enum{Values: imports.ImportOutcomes})
}

// importRowJSON is one row with its errors in the request's language.
type importRowJSON struct {
	ID      uuid.UUID           `json:"id"`
	Number  int                 `json:"number"`
	Outcome string              `json:"outcome"`
	Input   map[string]string   `json:"input"`
	Errors  map[string][]string `json:"errors"`
	Planned *json.RawMessage    `json:"planned" schema:"object"`
	Applied *json.RawMessage    `json:"applied" schema:"object"`
}

func (importRowJSON) Declare(s *kit.Shape) { s.Enum("outcome", imports.ImportOutcomes...) }

func (h *handlers) listImportRows(c *gin.Context, q *rowQuery) error {
	importID, err := kit.PathID(c, "importId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := domain.Find[imports.Import](ctx, h.DB, org, importID); err != nil {
		return err
	}
	db := domain.Tenant(ctx, h.DB, org).Model(&imports.ImportRow{}).Where("import_id = ?", importID)
	if q.Outcome.Set() {
		db = db.Where("outcome = ?", q.Outcome.Value)
	}
	locale := kit.State(c).Locale
	return kit.PaginatePage(c, db, kit.OldestFirst, kit.EachRow(func(r *imports.ImportRow) (importRowJSON, error) {
		cells, err := r.Cells()
		if err != nil {
			return importRowJSON{}, err
		}
		fieldErrors, err := r.FieldErrors()
		if err != nil {
			return importRowJSON{}, err
		}
		out := importRowJSON{ID: r.ID, Number: r.Number, Outcome: r.Outcome, Input: cells, Errors: map[string][]string{},
			Planned: raw(r.Planned), Applied: raw(r.Applied)}
		for _, f := range fieldErrors {
			out.Errors[f.Field] = append(out.Errors[f.Field], i18n.T(locale, f.Key, f.Args...))
		}
		return out, nil
	}))
}

// raw is a stored JSON value, or nil (null) when none is stored.
func raw(v []byte) *json.RawMessage {
	if len(v) == 0 {
		return nil
	}
	m := json.RawMessage(v)
	return &m
}
