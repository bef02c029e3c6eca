package bdo

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/internal/database"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// BDO report runs: a snapshot of a year's sources, taken in the request
// that creates the run (so the answer can say prepared or needs_review),
// and exports the workflow bdo-report/<id> renders from it.

// Statuses of a report run and of its exports.
const (
	BDOPrepared    = "prepared"
	BDONeedsReview = "needs_review"
	NotCalculated  = "not_calculated"

	ExportRendering = "rendering"
	ExportReady     = "ready"
	ExportFailed    = "failed"
)

// Vocabularies of report runs.
var (
	BDOReportStatuses = []string{BDOPrepared, BDONeedsReview}
	ExportStatuses    = []string{ExportRendering, ExportReady, ExportFailed}
)

// BDOReportWorkflow renders a report run's exports.
var BDOReportWorkflow = domain.Workflow[BDOReportInput]{
	Type:     "BDOReport",
	ID:       func(in BDOReportInput) string { return "bdo-report/" + in.ReportID.String() },
	Resource: func(in BDOReportInput) uuid.UUID { return in.ReportID },
}

// BDOMgDecimals is how many decimals the totals keep in Mg: grams are
// summed exactly, then converted and rounded half away from zero. The
// form's required precision is not verified (ppwr-facts §4.3), so the
// rule is recorded on each report.
const BDOMgDecimals = 6

// BDORounding describes BDOMgDecimals on a report.
const BDORounding = "grams summed exactly, converted to Mg (÷ 1,000,000) and rounded half away from zero to 6 decimals"

// Warnings of a report run: what leaves it needing review.
const (
	WarningUnclassified  = "unclassified_sources"
	WarningNoMass        = "sources_without_mass"
	WarningNoGroup       = "items_without_material_group"
	warningSampleSources = 20
)

// StageWritingSources is an export's stage of writing the report's
// sources into its files, of the report's source count.
const StageWritingSources = "writing_sources"

// ExportStages are the progress stages of a report's exports in order.
var ExportStages = domain.Stages{domain.StageQueued, StageWritingSources}

// BDOReport is one report run.
type BDOReport struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Year           int
	Status         string
	SettlementMode string
	Rounding       string
	Totals         datatypes.JSONSlice[BDOReportTotal]   `gorm:"type:jsonb"`
	Warnings       datatypes.JSONSlice[BDOReportWarning] `gorm:"type:jsonb"`
	SourceCount    int
	ExportStatus   string
	ExportError    *string
	// ExportFailedAt is when the exports failed; nil unless they did.
	ExportFailedAt *time.Time
	XLSXKey        *string `gorm:"column:xlsx_key"`
	JSONKey        *string `gorm:"column:json_key"`
	RenderedAt     *time.Time
	CreatedBy      *uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
	// ExportProgress is the progress of rendering the exports.
	ExportProgress domain.Progress `gorm:"embedded"`
}

// Running reports whether the report's exports are being rendered.
func (r *BDOReport) Running() bool { return r.ExportStatus == ExportRendering }

// TrackExport is the progress tracker of the report's exports.
func TrackExport(db *gorm.DB, r *BDOReport) *domain.ProgressTracker {
	return ExportStages.Track(db, &BDOReport{}, r.OrganizationID, r.ID)
}

// BDOReportTotal is one line of a section's table: a material group's
// single-use and reusable masses.
type BDOReportTotal struct {
	Section       string          `json:"section"`
	MaterialGroup *string         `json:"material_group"`
	SingleUseG    decimal.Decimal `json:"single_use_g"`
	ReusableG     decimal.Decimal `json:"reusable_g"`
	SingleUseMg   decimal.Decimal `json:"single_use_mg"`
	ReusableMg    decimal.Decimal `json:"reusable_mg"`
	TotalMg       decimal.Decimal `json:"total_mg"`
	Sources       int             `json:"sources"`
}

// BDOReportWarning says what needs review, how often, with some of the
// sources concerned.
type BDOReportWarning struct {
	Code    string   `json:"code"`
	Count   int      `json:"count"`
	Sources []string `json:"sources"`
}

// BDOReportSource is a source as the snapshot holds it.
type BDOReportSource struct {
	ReportID      uuid.UUID `gorm:"type:uuid"`
	SourceKind    string
	SourceID      uuid.UUID `gorm:"type:uuid"`
	EventOn       time.Time `gorm:"type:date"`
	CatalogItemID uuid.UUID `gorm:"type:uuid"`
	Section       string
	MaterialGroup *string
	Reusable      bool
	MassG         decimal.Decimal
	Classified    bool
}

// BDOReportCreate is the body of a report run.
type BDOReportCreate struct {
	input.Errors
	Year input.Opt[int]
}

// Declare names the run's fields.
func (in *BDOReportCreate) Declare(f *input.Fields) { f.Int("year", &in.Year, BDOYears) }

// CreateBDOReport takes the snapshot of the year's sources that are not
// excluded (unclassified ones under their suggested section), totals it
// per section, material group and single-use/reusable, and records the
// start of the workflow that renders its exports. It is needs_review while
// sources are unclassified, lack a mass, or belong to items without a
// material group, and says which.
func CreateBDOReport(w *work.Unit, in *BDOReportCreate) (*BDOReport, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	r := &BDOReport{ID: domain.NewID(), OrganizationID: w.Organization(), Year: in.Year.Value, SettlementMode: NotCalculated,
		Rounding: BDORounding, ExportStatus: ExportRendering, CreatedBy: w.Actor().UserID, CreatedAt: domain.Now(), ExportProgress: ExportStages.Queued(),
		Totals: datatypes.JSONSlice[BDOReportTotal]{}, Warnings: datatypes.JSONSlice[BDOReportWarning]{}, Status: BDOPrepared}
	tx := w.Tx()
	if err := tx.Create(r).Error; err != nil {
		return nil, err
	}
	groups, err := json.Marshal(dictionaries.Default().BDOGroupsByMaterial())
	if err != nil {
		return nil, err
	}
	args := yearArgs(w.Organization(), r.Year)
	args["report"], args["groups"] = r.ID, string(groups)
	// The snapshot is written and totalled in one statement: its rows are
	// read once, as they are inserted. An item's material group is looked
	// up once per item of the organization, then joined to the sources. It
	// reads the year as the summary does, and is planned for its values
	// as the summary is.
	if err := database.PlanForValues(tx); err != nil {
		return nil, err
	}
	var sums []snapshotSum
	if err := tx.Raw(`WITH groups AS (
		SELECT i.id, g.grp FROM catalog_items i JOIN jsonb_each_text(CAST(@groups AS jsonb)) g(code, grp) ON g.code = i.main_material_code
		WHERE i.organization_id = @org),
	snapshot AS (
		INSERT INTO bdo_report_sources (report_id, source_kind, source_id, event_on, catalog_item_id, section, material_group, reusable, mass_g, classified)
		SELECT @report, s.kind, s.id, s.event_on, s.catalog_item_id, COALESCE(s.section, s.suggested_section),
			COALESCE(s.material_group, g.grp), COALESCE(s.reusable_override, s.reusable), s.mass_g, s.section IS NOT NULL
		FROM (`+bdoSources("")+`) s LEFT JOIN groups g ON g.id = s.catalog_item_id
		WHERE NOT COALESCE(s.excluded, false)
		RETURNING section, material_group, reusable, mass_g, classified)
	SELECT section, material_group, reusable, sum(mass_g) AS mass_g, count(*) AS sources,
		count(*) FILTER (WHERE NOT classified) AS unclassified, count(*) FILTER (WHERE mass_g = 0) AS no_mass
	FROM snapshot GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, args).Scan(&sums).Error; err != nil {
		return nil, err
	}
	if err := r.tabulate(w.Context(), tx, sums); err != nil {
		return nil, err
	}
	if len(r.Warnings) > 0 {
		r.Status = BDONeedsReview
	}
	if err := tx.Model(r).Select("status", "totals", "warnings", "source_count").Updates(r).Error; err != nil {
		return nil, err
	}
	if err := domain.Start(w, BDOReportWorkflow, r.input(), r.exportSummary()); err != nil {
		return nil, err
	}
	w.Touch("bdo_report", r.ID)
	return r, domain.Emit(w, BDOReportPrepared{ID: r.ID, Status: r.Status})
}

// input is the input of the report's render workflow.
func (r *BDOReport) input() BDOReportInput {
	return BDOReportInput{Org: domain.OrgOf(r.OrganizationID), ReportID: r.ID}
}

// exportSummary says what the report's render run renders, for the
// Temporal UI.
func (r *BDOReport) exportSummary() string {
	return fmt.Sprintf("BDO report %d export: %s sources, %s settlement", r.Year, domain.Count(int64(r.SourceCount)), r.SettlementMode)
}

// BDOReportInput names the report a render workflow renders.
type BDOReportInput struct {
	domain.Org
	ReportID uuid.UUID `json:"report_id"`
}

// snapshotSum is the snapshot's mass and counts of one section, material
// group and single-use/reusable.
type snapshotSum struct {
	Section       string
	MaterialGroup *string
	Reusable      bool
	MassG         decimal.Decimal
	Sources       int
	Unclassified  int
	NoMass        int
}

// tabulate turns the snapshot's sums into the report's totals and
// warnings, with a few of the sources behind each warning.
func (r *BDOReport) tabulate(ctx context.Context, tx *gorm.DB, rows []snapshotSum) error {
	counts := map[string]int{}
	index := map[[2]string]int{}
	for _, row := range rows {
		group := ""
		if row.MaterialGroup != nil {
			group = *row.MaterialGroup
		} else {
			counts[WarningNoGroup] += row.Sources
		}
		counts[WarningUnclassified] += row.Unclassified
		counts[WarningNoMass] += row.NoMass
		k := [2]string{row.Section, group}
		i, ok := index[k]
		if !ok {
			i = len(r.Totals)
			index[k] = i
			r.Totals = append(r.Totals, BDOReportTotal{Section: row.Section, MaterialGroup: row.MaterialGroup,
				SingleUseG: decimal.Zero, ReusableG: decimal.Zero})
		}
		t := &r.Totals[i]
		if row.Reusable {
			t.ReusableG = t.ReusableG.Add(row.MassG)
		} else {
			t.SingleUseG = t.SingleUseG.Add(row.MassG)
		}
		t.Sources += row.Sources
		r.SourceCount += row.Sources
	}
	for i := range r.Totals {
		t := &r.Totals[i]
		t.SingleUseMg, t.ReusableMg = GramsToMg(t.SingleUseG).Round(BDOMgDecimals), GramsToMg(t.ReusableG).Round(BDOMgDecimals)
		t.TotalMg = GramsToMg(t.SingleUseG.Add(t.ReusableG)).Round(BDOMgDecimals)
	}
	for _, check := range []struct{ code, where string }{
		{WarningUnclassified, "NOT classified"}, {WarningNoMass, "mass_g = 0"}, {WarningNoGroup, "material_group IS NULL"},
	} {
		if counts[check.code] == 0 {
			continue
		}
		var keys []string
		if err := tx.WithContext(ctx).Model(&BDOReportSource{}).Where("report_id = ? AND "+check.where, r.ID).Limit(warningSampleSources).
			Pluck("source_kind || ':' || source_id", &keys).Error; err != nil {
			return err
		}
		r.Warnings = append(r.Warnings, BDOReportWarning{Code: check.code, Count: counts[check.code], Sources: keys})
	}
	return nil
}

// ExportSource is a source of a report as its exports write it, each
// value as its text.
type ExportSource struct {
	// Key is flow:<uuid> or supply:<uuid>.
	Key, Date, Item, Section string
	MaterialGroup            sql.NullString
	Reusable                 bool
	// MassG is the grams' decimal without trailing zeros, as
	// decimal.Decimal writes it.
	MassG      string
	Classified bool
}

// ReportSources streams a report's sources in date order to fn; each row
// is read into the same value, which fn must not keep. PostgreSQL writes
// the values as text while it sends them: the exports need nothing else,
// and decoding each id, date and decimal only to format it again took the
// worker twice the CPU time of the reading itself.
func ReportSources(ctx context.Context, db *gorm.DB, reportID uuid.UUID, fn func(*ExportSource) error) error {
	rows, err := db.WithContext(ctx).Raw(`SELECT source_kind || ':' || source_id, to_char(event_on, 'YYYY-MM-DD'), catalog_item_id::text,
			section, material_group, reusable, trim_scale(mass_g)::text, classified
		FROM bdo_report_sources WHERE report_id = ? ORDER BY event_on, source_id`, reportID).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	var s ExportSource
	for rows.Next() {
		if err := rows.Scan(&s.Key, &s.Date, &s.Item, &s.Section, &s.MaterialGroup, &s.Reusable, &s.MassG, &s.Classified); err != nil {
			return err
		}
		if err := fn(&s); err != nil {
			return err
		}
	}
	return rows.Err()
}

// FinishBDOExport records the organization's rendered exports, with
// their sources all written, or why they failed.
func FinishBDOExport(ctx context.Context, db *gorm.DB, org, reportID uuid.UUID, xlsxKey, jsonKey string, failure error) error {
	if failure != nil {
		return domain.Tenant(ctx, db, org).Model(&BDOReport{}).Where("id = ?", reportID).
			Updates(map[string]any{"export_status": ExportFailed, "export_error": failure.Error(), "export_failed_at": domain.Now()}).Error
	}
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var sources int64
		if err := domain.Tenant(ctx, tx, org).Model(&BDOReport{}).Where("id = ?", reportID).Pluck("source_count", &sources).Error; err != nil {
			return err
		}
		set := map[string]any{"export_status": ExportReady, "xlsx_key": xlsxKey, "json_key": jsonKey, "rendered_at": domain.Now(), "export_error": nil}
		if err := domain.Tenant(ctx, tx, org).Model(&BDOReport{}).Where("id = ?", reportID).Updates(set).Error; err != nil {
			return err
		}
		return ExportStages.End(ctx, tx, &BDOReport{}, org, reportID, StageWritingSources, sources)
	})
}
