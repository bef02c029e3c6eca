package activities

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/xuri/excelize/v2"
	"gorm.io/gorm"

	"ppwr/internal/storage"
	"ppwr/models"
)

// BDO renders the exports of BDO report runs.
type BDO struct {
	DB      *gorm.DB
	Storage *storage.Store
}

// jsonType is the media type of the JSON export.
const jsonType = "application/json"

// BDOExportKey is where an export of a report lives in the object store.
func BDOExportKey(r *models.BDOReport, format string) string {
	return "org/" + r.OrganizationID.String() + "/bdo-reports/" + r.ID.String() + "/report." + format
}

// RenderBDOReport renders the report's XLSX and JSON from its snapshot
// into the object store and marks its exports ready. Rows stream from the
// database to temporary files, so a report of any size fits in memory. A
// retry renders again and overwrites the same keys; a report already
// rendered is left alone.
func (a *BDO) RenderBDOReport(ctx context.Context, in models.BDOReportInput) error {
	r, err := models.Find[models.BDOReport](ctx, a.DB, in.OrganizationID, in.ReportID)
	if err != nil || r.ExportStatus == models.ExportReady {
		return err
	}
	if err := storeFile(ctx, a.Storage, BDOExportKey(r, "xlsx"), models.XLSXType, func(f *os.File) error { return a.xlsx(ctx, r, f) }); err != nil {
		return err
	}
	if err := storeFile(ctx, a.Storage, BDOExportKey(r, "json"), jsonType, func(f *os.File) error { return a.json(ctx, r, f) }); err != nil {
		return err
	}
	return models.FinishBDOExport(ctx, a.DB, r.ID, BDOExportKey(r, "xlsx"), BDOExportKey(r, "json"), nil)
}

// FailBDOExport records that the exports could not be rendered.
func (a *BDO) FailBDOExport(ctx context.Context, in models.BDOReportInput, reason string) error {
	return models.FinishBDOExport(ctx, a.DB, in.ReportID, "", "", fmt.Errorf("%s", reason))
}

// storeFile renders a file into a temporary file, so that a file of any
// size needs little memory, and uploads it to the object store under key.
func storeFile(ctx context.Context, store *storage.Store, key, contentType string, render func(*os.File) error) error {
	f, err := os.CreateTemp("", "ppwr-file-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := render(f); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return store.Put(ctx, key, f, contentType)
}

// referenceLevels are the required annual recycling levels in Poland
// (ppwr-facts §4.5), shown as reference only: the report applies none.
var referenceLevels = [][]any{
	{"Material", "2021", "2022", "2023", "2024-2028", "2029"},
	{"Recycling, all packaging", 56, 59, 61, "UNVERIFIED", 69},
	{"Plastic", 23.5, 30, 40, "UNVERIFIED", 54},
	{"Aluminium", 51, 51, 51, "UNVERIFIED", 59},
	{"Ferrous metals", 51, 55, 60, "UNVERIFIED", 78},
	{"Paper and cardboard", 61, 66, 70, "UNVERIFIED", 83},
	{"Glass", 61, 62, 64, "UNVERIFIED", 74},
	{"Wood", 16, 19, 21, "UNVERIFIED", 29},
	{"Multi-material", 44, 47, 53, "UNVERIFIED", 70},
}

// xlsx writes a sheet per section in the layout of Dział II Table 1
// (material, single-use, reusable and total in Mg), the sources behind
// them, and the reference levels, labelled as reference.
func (a *BDO) xlsx(ctx context.Context, r *models.BDOReport, out *os.File) error {
	x := excelize.NewFile()
	defer x.Close()
	for _, section := range models.BDOSections {
		rows := [][]any{
			{fmt.Sprintf("BDO %d: %s (settlement_mode: %s; %s)", r.Year, section, r.SettlementMode, r.Rounding)},
			{"Material group", "Single-use [Mg]", "Reusable [Mg]", "Total [Mg]", "Sources"},
		}
		for _, t := range r.Totals {
			if t.Section != section {
				continue
			}
			group := "(none)"
			if t.MaterialGroup != nil {
				group = *t.MaterialGroup
			}
			rows = append(rows, []any{group, number(t.SingleUseMg), number(t.ReusableMg), number(t.TotalMg), t.Sources})
		}
		if err := writeSheet(x, section, func(add func([]any) error) error {
			for _, row := range rows {
				if err := add(row); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := writeSheet(x, "sources", func(add func([]any) error) error {
		if err := add([]any{"Source", "Date", "Item", "Section", "Material group", "Reusable", "Mass [g]", "Mass [Mg]", "Classified"}); err != nil {
			return err
		}
		return models.ReportSources(ctx, a.DB, r.ID, func(s *models.BDOReportSource) error {
			group := ""
			if s.MaterialGroup != nil {
				group = *s.MaterialGroup
			}
			return add([]any{s.SourceKey, s.EventOn.Format(time.DateOnly), s.CatalogItemID.String(), s.Section, group, s.Reusable,
				s.MassG.String(), models.GramsToMg(s.MassG).String(), s.Classified})
		})
	}); err != nil {
		return err
	}
	if err := writeSheet(x, "reference levels", func(add func([]any) error) error {
		if err := add([]any{"Reference only: required annual recycling levels in Poland (%), not applied; no fee is computed. 2024-2028 not verified."}); err != nil {
			return err
		}
		for _, row := range referenceLevels {
			if err := add(row); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := x.DeleteSheet("Sheet1"); err != nil {
		return err
	}
	return x.Write(out)
}

// number is a decimal as a spreadsheet number; totals are rounded to
// six decimals already, well within a float's precision.
func number(d interface{ InexactFloat64() float64 }) float64 { return d.InexactFloat64() }

// writeSheet adds a sheet whose rows fill streams, one row at a time.
func writeSheet(x *excelize.File, name string, fill func(add func([]any) error) error) error {
	if _, err := x.NewSheet(name); err != nil {
		return err
	}
	// A new sheet declares its used range as A1, which streamed rows do not
	// update, and readers that trust the declaration (openpyxl's read-only
	// mode) would stop at the first row: without one, they read them all.
	if err := x.SetSheetDimension(name, ""); err != nil {
		return err
	}
	sw, err := x.NewStreamWriter(name)
	if err != nil {
		return err
	}
	row := 0
	if err := fill(func(values []any) error {
		row++
		cell, err := excelize.CoordinatesToCellName(1, row)
		if err != nil {
			return err
		}
		return sw.SetRow(cell, values)
	}); err != nil {
		return err
	}
	return sw.Flush()
}

// json writes the report, its totals and warnings, and its sources one
// by one.
func (a *BDO) json(ctx context.Context, r *models.BDOReport, out *os.File) error {
	w := bufio.NewWriter(out)
	head, err := json.Marshal(map[string]any{"id": r.ID, "year": r.Year, "status": r.Status, "settlement_mode": r.SettlementMode,
		"rounding": r.Rounding, "totals": r.Totals, "warnings": r.Warnings, "source_count": r.SourceCount, "created_at": r.CreatedAt.UTC()})
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1])
	w.WriteString(`,"sources":[`)
	first := true
	err = models.ReportSources(ctx, a.DB, r.ID, func(s *models.BDOReportSource) error {
		if !first {
			w.WriteByte(',')
		}
		first = false
		line, err := json.Marshal(map[string]any{"key": s.SourceKey, "date": s.EventOn.Format(time.DateOnly), "item": s.CatalogItemID,
			"section": s.Section, "material_group": s.MaterialGroup, "reusable": s.Reusable, "mass_g": s.MassG,
			"mass_mg": models.GramsToMg(s.MassG), "classified": s.Classified})
		if err == nil {
			_, err = w.Write(line)
		}
		return err
	})
	if err != nil {
		return err
	}
	w.WriteString("]}")
	return w.Flush()
}
