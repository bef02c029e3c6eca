package activities

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/xuri/excelize/v2"
	"golang.org/x/sync/errgroup"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/reports"
	"ppwr/internal/sheet"
	"ppwr/internal/storage"
)

// BDO renders the exports of BDO report runs.
type BDO struct {
	DB      *gorm.DB
	Storage *storage.Store
}

// jsonType is the media type of the JSON export.
const jsonType = "application/json"

// BDOExportKey is where an export of a report lives in the object store.
func BDOExportKey(r *bdo.BDOReport, format string) string {
	return "org/" + r.OrganizationID.String() + "/bdo-reports/" + r.ID.String() + "/report." + format
}

// RenderBDOReport renders the report's XLSX and JSON from its snapshot
// into the object store and marks its exports ready. The sources are read
// once, in one pass that writes both files, and rows stream through
// temporary files, so a report of any size fits in memory. A retry renders
// again and overwrites the same keys; a report already rendered is left
// alone.
func (a *BDO) RenderBDOReport(ctx context.Context, in bdo.BDOReportInput) error {
	r, err := domain.Find[bdo.BDOReport](ctx, a.DB, in.OrganizationID, in.ReportID)
	if err != nil || r.ExportStatus == bdo.ExportReady {
		return err
	}
	files := map[string]*os.File{}
	for _, format := range []string{"xlsx", "json"} {
		f, err := os.CreateTemp("", "ppwr-bdo-*."+format)
		if err != nil {
			return err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		files[format] = f
	}
	x := excelize.NewFile()
	defer x.Close()
	if err := a.render(ctx, r, x, files["json"]); err != nil {
		return err
	}
	// The JSON is complete: it goes up while the workbook is zipped, which
	// keeps one core busy.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return a.upload(gctx, r, files["json"], "json", jsonType) })
	g.Go(func() error {
		if err := sheet.Save(x, files["xlsx"]); err != nil {
			return err
		}
		return a.upload(gctx, r, files["xlsx"], "xlsx", reports.XLSXType)
	})
	if err := g.Wait(); err != nil {
		return err
	}
	return bdo.FinishBDOExport(ctx, a.DB, r.OrganizationID, r.ID, BDOExportKey(r, "xlsx"), BDOExportKey(r, "json"), nil)
}

// upload puts the report's export in format, written into f, into the
// object store.
func (a *BDO) upload(ctx context.Context, r *bdo.BDOReport, f *os.File, format, contentType string) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return a.Storage.Put(ctx, BDOExportKey(r, format), f, contentType)
}

// FailBDOExport records that the exports could not be rendered.
func (a *BDO) FailBDOExport(ctx context.Context, in bdo.BDOReportInput, reason string) error {
	return bdo.FinishBDOExport(ctx, a.DB, in.OrganizationID, in.ReportID, "", "", errors.New(reason))
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

// render writes the sheets of the XLSX into x, for the caller to save (a
// sheet per section in the layout of Dział II Table 1: material,
// single-use, reusable and total in Mg; the sources behind them; the
// reference levels, labelled as reference), and the JSON (the report, its
// totals and warnings, its sources).
func (a *BDO) render(ctx context.Context, r *bdo.BDOReport, x *excelize.File, jsonOut *os.File) error {
	for _, section := range bdo.BDOSections {
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
			rows = append(rows, []any{group, t.SingleUseMg, t.ReusableMg, t.TotalMg, t.Sources})
		}
		if err := sheet.Stream(x, section, sheet.All(rows)); err != nil {
			return err
		}
	}
	if err := sheet.Stream(x, "reference levels", sheet.All(append([][]any{{"Reference only: required annual recycling levels in Poland (%), not applied; no fee is computed. 2024-2028 not verified."}},
		referenceLevels...))); err != nil {
		return err
	}
	// The JSON export is some 200 bytes a source: written in larger pieces,
	// a million sources make a few hundred writes rather than fifty thousand.
	j := bufio.NewWriterSize(jsonOut, 1<<20)
	head, err := json.Marshal(map[string]any{"id": r.ID, "year": r.Year, "status": r.Status, "settlement_mode": r.SettlementMode,
		"rounding": r.Rounding, "totals": r.Totals, "warnings": r.Warnings, "source_count": r.SourceCount, "created_at": r.CreatedAt.UTC()})
	if err != nil {
		return err
	}
	j.Write(head[:len(head)-1])
	j.WriteString(`,"sources":[`)
	if err := a.writeSources(ctx, r, x, j); err != nil {
		return err
	}
	j.WriteString("]}")
	if err := j.Flush(); err != nil {
		return err
	}
	return x.DeleteSheet("Sheet1")
}

// sourceBatch is rows of the sources' sheet on their way from the
// goroutine that reads them to the one that writes them.
type sourceBatch [][8]any

// sourceBatchRows is how many rows a batch holds, and sourceBatches how
// many batches there are: 16,384 rows, some 50 ms of the sheet's writing
// and 5 MB, so that the writer rarely waits for the reader to be
// scheduled again on a busy machine, nor the reader holds the year.
const (
	sourceBatchRows = 1024
	sourceBatches   = 16
)

// writeSources writes the report's sources into the sheet "sources" of x
// and, as JSON, into j. Reading them and writing their JSON runs on one
// goroutine and the sheet's rows on another, so that with two cores the
// pass takes about as long as the sheet's rows alone: for a million
// sources, excelize's stream writer took 3.2 s of CPU, the reading and
// the JSON 0.8 s, and PostgreSQL about 1 s to send them.
func (a *BDO) writeSources(ctx context.Context, r *bdo.BDOReport, x *excelize.File, j *bufio.Writer) error {
	g, ctx := errgroup.WithContext(ctx)
	full, free := make(chan sourceBatch, sourceBatches), make(chan sourceBatch, sourceBatches)
	for range sourceBatches {
		free <- make(sourceBatch, 0, sourceBatchRows)
	}
	g.Go(func() error {
		defer close(full)
		progress, written, total := bdo.TrackExport(a.DB, r), int64(0), domain.Known(int64(r.SourceCount))
		batch, line := <-free, make([]byte, 0, 256)
		send := func() error {
			select {
			case full <- batch:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case batch = <-free:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := bdo.ReportSources(ctx, a.DB, r.ID, func(s *bdo.ExportSource) error {
			line = sourceLine(line[:0], s, written == 0)
			j.Write(line)
			batch = append(batch, [8]any{s.Key, s.Date, s.Item, s.Section, s.MaterialGroup.String, s.Reusable, sheet.Number(s.MassG), s.Classified})
			written++
			if err := progress.Move(ctx, bdo.StageWritingSources, written, total); err != nil {
				return err
			}
			if len(batch) < sourceBatchRows {
				return nil
			}
			return send()
		})
		if err != nil || len(batch) == 0 {
			return err
		}
		return send()
	})
	g.Go(func() error {
		return sheet.Stream(x, "sources", func(add func([]any) error) error {
			if err := add([]any{"Source", "Date", "Item", "Section", "Material group", "Reusable", "Mass [g]", "Classified"}); err != nil {
				return err
			}
			for batch := range full {
				for i := range batch {
					if err := add(batch[i][:]); err != nil {
						return err
					}
				}
				free <- batch[:0]
			}
			return nil
		})
	})
	return g.Wait()
}

// sourceLine appends a source of the JSON export to buf, after a comma
// unless it is the first. Its strings are keys, dates, ids, enumerations
// and decimals: plain ASCII that needs no escaping.
func sourceLine(buf []byte, s *bdo.ExportSource, first bool) []byte {
	if !first {
		buf = append(buf, ',')
	}
	buf = append(append(append(buf, `{"key":"`...), s.Key...), `","date":"`...)
	buf = append(append(append(append(buf, s.Date...), `","item":"`...), s.Item...), `","section":"`...)
	buf = append(append(buf, s.Section...), `","material_group":`...)
	if s.MaterialGroup.Valid {
		buf = append(append(append(buf, '"'), s.MaterialGroup.String...), '"')
	} else {
		buf = append(buf, "null"...)
	}
	buf = strconv.AppendBool(append(buf, `,"reusable":`...), s.Reusable)
	buf = append(append(append(buf, `,"mass_g":"`...), s.MassG...), `","classified":`...)
	return append(strconv.AppendBool(buf, s.Classified), '}')
}
