package reports

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Reports are files built from the ledger and the registers by the
// workflow report/<id>. Each kind has its formats and parameters.

// Kinds of reports.
const (
	ReportPlacedOnMarket   = "placed_on_market"
	ReportStockLedger      = "stock_ledger"
	ReportEvidenceCoverage = "evidence_coverage"
)

// ReportFormats are the formats of each kind, the first the default.
var ReportFormats = map[string][]string{
	ReportPlacedOnMarket:   {"xlsx", "csv"},
	ReportStockLedger:      {"csv"},
	ReportEvidenceCoverage: {"xlsx"},
}

// Vocabularies of reports.
var (
	ReportKinds    = []string{ReportPlacedOnMarket, ReportStockLedger, ReportEvidenceCoverage}
	ReportStatuses = []string{ReportQueued, ReportRunning, ReportCompleted, ReportFailed}
)

// Report statuses.
const (
	ReportQueued    = "queued"
	ReportRunning   = "running"
	ReportCompleted = "completed"
	ReportFailed    = "failed"
)

// StageWritingRows is a report's stage of writing its rows into its file;
// their total is known when the last is written.
const StageWritingRows = "writing_rows"

// ReportStages are a report's progress stages in order.
var ReportStages = domain.Stages{domain.StageQueued, StageWritingRows}

// ReportWorkflow builds a report's file.
var ReportWorkflow = domain.Workflow[ReportInput]{
	Type:     "Report",
	ID:       func(in ReportInput) string { return "report/" + in.ReportID.String() },
	Resource: func(in ReportInput) uuid.UUID { return in.ReportID },
}

// Report is one report and its file.
type Report struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Kind           string
	Format         string
	Parameters     datatypes.JSONType[ReportParameters] `gorm:"type:jsonb"`
	Status         string
	RowCount       *int
	ObjectKey      *string
	Error          *string
	CreatedBy      *uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
	CompletedAt    *time.Time
	Progress       domain.Progress `gorm:"embedded"`
}

// Running reports whether the report is being built.
func (r *Report) Running() bool { return r.Status == ReportQueued || r.Status == ReportRunning }

// TrackReport is the progress tracker of the report's build.
func TrackReport(db *gorm.DB, r *Report) *domain.ProgressTracker {
	return ReportStages.Track(db, &Report{}, r.OrganizationID, r.ID)
}

// ReportParameters are what a report covers.
type ReportParameters struct {
	From *string    `json:"from" schema:"date"`
	To   *string    `json:"to" schema:"date"`
	Item *uuid.UUID `json:"item"`
}

// XLSXType is the media type of a workbook.
const XLSXType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

// ContentType is the media type of the report's file.
func (r *Report) ContentType() string {
	if r.Format == "xlsx" {
		return XLSXType
	}
	return "text/csv"
}

// FileName is the report's download name.
func (r *Report) FileName() string { return r.Kind + "-" + r.ID.String() + "." + r.Format }

// ReportInput names the report a workflow builds.
type ReportInput struct {
	domain.Org
	ReportID uuid.UUID `json:"report_id"`
}

// ReportCreate is the body of a report.
type ReportCreate struct {
	input.Errors
	Kind   input.Opt[string]
	Format input.Opt[string]
	From   input.Opt[time.Time]
	To     input.Opt[time.Time]
	Item   input.Opt[uuid.UUID]
}

// Declare names the report's fields and the rules of its kind.
func (in *ReportCreate) Declare(f *input.Fields) {
	f.Enum("kind", &in.Kind, input.Enum{Required: true, Values: ReportKinds, Desc: "report.kind"})
	f.Enum("format", &in.Format, input.Enum{Values: []string{"csv", "xlsx"}, Desc: "report.format"})
	f.Date("from", &in.From, input.Date{Desc: "report.from"})
	f.Date("to", &in.To, input.Date{Desc: "report.to"})
	f.Ref("item", &in.Item, input.Ref{Nullable: true, Desc: "report.item"})
	f.RequiredWhen("from", input.Is("kind", ReportPlacedOnMarket))
	f.RequiredWhen("to", input.Is("kind", ReportPlacedOnMarket))
	f.RequiredWhen("item", input.Is("kind", ReportStockLedger))
	if !f.Binding() || !in.Kind.Set() {
		return
	}
	if formats := ReportFormats[in.Kind.Value]; in.Format.Set() && !slices.Contains(formats, in.Format.Value) {
		f.Fail("format", "field.one_of", strings.Join(formats, ", "))
	}
	if in.From.Set() && in.To.Set() && in.To.Value.Before(in.From.Value) {
		f.Fail("to", "field.before_from")
	}
}

// CreateReport records a report and the start of the workflow that
// builds its file.
func CreateReport(w *work.Unit, in *ReportCreate) (*Report, error) {
	if in.Item.Set() {
		if _, err := domain.Find[catalog.CatalogItem](w.Context(), w.Tx(), w.Organization(), in.Item.Value); err == domain.ErrNotFound {
			in.Fail("item", "field.not_found")
		} else if err != nil {
			return nil, err
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	params := ReportParameters{From: dayOf(in.From), To: dayOf(in.To), Item: domain.Optional(in.Item)}
	r := &Report{ID: domain.NewID(), OrganizationID: w.Organization(), Kind: in.Kind.Value, Format: ReportFormats[in.Kind.Value][0],
		Parameters: datatypes.NewJSONType(params), Status: ReportQueued, CreatedBy: w.Actor().UserID, CreatedAt: domain.Now(),
		Progress: ReportStages.Queued()}
	if in.Format.Set() {
		r.Format = in.Format.Value
	}
	if err := w.Tx().Create(r).Error; err != nil {
		return nil, err
	}
	w.Touch("report", r.ID)
	return r, domain.Start(w, ReportWorkflow, r.input(), r.summary())
}

// input is the input of the report's workflow.
func (r *Report) input() ReportInput {
	return ReportInput{Org: domain.OrgOf(r.OrganizationID), ReportID: r.ID}
}

// summary says what the report's run builds, for the Temporal UI.
func (r *Report) summary() string { return "Report " + r.Kind + " as " + r.Format }

func dayOf(d input.Opt[time.Time]) *string {
	if !d.Set() {
		return nil
	}
	s := d.Value.Format(time.DateOnly)
	return &s
}

// ReportRows streams the report's rows, its header first, to fn.
func ReportRows(ctx context.Context, db *gorm.DB, r *Report, fn func([]any) error) error {
	p := r.Parameters.Data()
	args := map[string]any{"org": r.OrganizationID, "from": p.From, "to": p.To, "item": p.Item}
	var header []any
	var query string
	switch r.Kind {
	case ReportPlacedOnMarket:
		groups, err := json.Marshal(dictionaries.Default().BDOGroupsByMaterial())
		if err != nil {
			return err
		}
		args["groups"] = string(groups)
		header = []any{"period", "material_group", "material_code", "reusable", "flows", "mass_g"}
		query = `SELECT to_char(f.event_on, 'YYYY-MM') AS period, COALESCE(g.grp, '') AS material_group, i.main_material_code,
				f.reusable, count(*) AS flows, sum(f.mass_g) AS mass_g
			FROM flows f JOIN catalog_items i ON i.id = f.catalog_item_id
			LEFT JOIN jsonb_each_text(CAST(@groups AS jsonb)) g(code, grp) ON g.code = i.main_material_code
			WHERE f.organization_id = @org AND f.kind = 'placed' AND f.event_on BETWEEN CAST(@from AS date) AND CAST(@to AS date)
			GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`
	case ReportStockLedger:
		header = []any{"recorded_at", "kind", "item_revision", "physical_delta", "reserved_delta", "source_type", "source_id"}
		query = `SELECT m.created_at, m.kind, v.revision, m.physical_delta, m.reserved_delta, m.source_type, m.source_id
			FROM stock_movements m JOIN catalog_item_data_versions v ON v.id = m.data_version_id
			WHERE m.organization_id = @org AND m.catalog_item_id = @item
				AND (CAST(@from AS date) IS NULL OR m.created_at >= CAST(@from AS date))
				AND (CAST(@to AS date) IS NULL OR m.created_at < CAST(@to AS date) + 1)
			ORDER BY m.id`
	case ReportEvidenceCoverage:
		header = []any{"item", "internal_code", "name", "revision", "registers_covered", "registers_unreviewed", "accepted_evidence", "approved_documents"}
		query = `SELECT i.id, i.internal_code, i.name, i.revision,
				(SELECT string_agg(register, ' ' ORDER BY register) FROM (SELECT DISTINCT ON (register) register, review_status
					FROM ppwr_register_entries e WHERE e.catalog_item_id = i.id AND e.status = 'active' AND e.catalog_revision = i.revision
					ORDER BY register, id DESC) x WHERE review_status IN ('accepted', 'not_applicable')),
				(SELECT string_agg(register, ' ' ORDER BY register) FROM (SELECT DISTINCT ON (register) register, review_status
					FROM ppwr_register_entries e WHERE e.catalog_item_id = i.id AND e.status = 'active' AND e.catalog_revision = i.revision
					ORDER BY register, id DESC) x WHERE review_status = 'unreviewed'),
				(SELECT count(*) FROM evidence_proposals p WHERE p.catalog_item_id = i.id AND p.status IN ('accepted', 'acceptedModified')),
				(SELECT count(*) FROM documents d JOIN document_versions v ON v.document_id = d.id
					WHERE d.catalog_item_id = i.id AND v.review_status = 'approved')
			FROM catalog_items i WHERE i.organization_id = @org AND i.status = 'active' ORDER BY i.internal_code`
	}
	if err := fn(header); err != nil {
		return err
	}
	rows, err := db.WithContext(ctx).Raw(query, args).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	numeric := make([]bool, len(cols))
	for i, c := range cols {
		numeric[i] = c.DatabaseTypeName() == "NUMERIC"
	}
	for rows.Next() {
		values := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range values {
			ptrs[i] = &values[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := fn(cells(values, numeric)); err != nil {
			return err
		}
	}
	return rows.Err()
}

// cells turns scanned values into what files hold: decimals for the
// numeric columns (the driver reads them as text, which a workbook would
// keep as text), dates as RFC 3339.
func cells(values []any, numeric []bool) []any {
	for i, v := range values {
		switch x := v.(type) {
		case nil:
			values[i] = ""
		case []byte:
			values[i] = string(x)
		case time.Time:
			values[i] = x.UTC().Format(time.RFC3339)
		case [16]byte:
			values[i] = uuid.UUID(x).String()
		}
		if s, ok := values[i].(string); ok && numeric[i] {
			if d, err := decimal.NewFromString(s); err == nil {
				values[i] = d
			}
		}
	}
	return values
}

// FinishReport records the organization's built file, with all its rows
// written, or why it could not be built.
func FinishReport(ctx context.Context, db *gorm.DB, org, id uuid.UUID, key string, rows int, failure error) error {
	if failure != nil {
		return domain.Tenant(ctx, db, org).Model(&Report{}).Where("id = ?", id).
			Updates(map[string]any{"status": ReportFailed, "error": failure.Error(), "completed_at": domain.Now()}).Error
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		set := map[string]any{"status": ReportCompleted, "object_key": key, "row_count": rows, "completed_at": domain.Now(), "error": nil}
		if err := domain.Tenant(ctx, tx, org).Model(&Report{}).Where("id = ?", id).Updates(set).Error; err != nil {
			return err
		}
		return ReportStages.End(ctx, tx, &Report{}, org, id, StageWritingRows, int64(rows))
	})
}

// StartReport marks a report running.
func StartReport(ctx context.Context, db *gorm.DB, id uuid.UUID) error {
	return db.WithContext(ctx).Model(&Report{}).Where("id = ? AND status = ?", id, ReportQueued).Update("status", ReportRunning).Error
}
