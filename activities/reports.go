package activities

import (
	"context"
	"errors"
	"os"

	"github.com/xuri/excelize/v2"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/reports"
	"ppwr/internal/sheet"
	"ppwr/internal/storage"
)

// Reports builds report files.
type Reports struct {
	DB      *gorm.DB
	Storage *storage.Store
}

// ReportKey is where a report's file lives in the object store.
func ReportKey(r *reports.Report) string {
	return "org/" + r.OrganizationID.String() + "/reports/" + r.ID.String() + "/" + r.FileName()
}

// BuildReport streams the report's rows from the database into its file
// and the object store and marks it completed; a completed report is left
// alone, and a retry builds the same file again.
func (a *Reports) BuildReport(ctx context.Context, in reports.ReportInput) error {
	r, err := domain.Find[reports.Report](ctx, a.DB, in.OrganizationID, in.ReportID)
	if err != nil || r.Status == reports.ReportCompleted {
		return err
	}
	if err := reports.StartReport(ctx, a.DB, r.ID); err != nil {
		return err
	}
	rows := 0 // the header, then the data rows
	progress := reports.TrackReport(a.DB, r)
	count := func(fill func([]any) error) func([]any) error {
		return func(row []any) error {
			if rows++; rows > 1 {
				if err := progress.Move(ctx, reports.StageWritingRows, int64(rows-1), nil); err != nil {
					return err
				}
			}
			return fill(row)
		}
	}
	build := func(f *os.File) error {
		return sheet.CSV(f, func(add func([]any) error) error { return reports.ReportRows(ctx, a.DB, r, count(add)) })
	}
	if r.Format == "xlsx" {
		build = func(f *os.File) error {
			x := excelize.NewFile()
			defer x.Close()
			if err := sheet.Stream(x, r.Kind, func(add func([]any) error) error { return reports.ReportRows(ctx, a.DB, r, count(add)) }); err != nil {
				return err
			}
			if err := x.DeleteSheet("Sheet1"); err != nil {
				return err
			}
			return sheet.Save(x, f)
		}
	}
	if err := storeFile(ctx, a.Storage, ReportKey(r), r.ContentType(), build); err != nil {
		return err
	}
	return reports.FinishReport(ctx, a.DB, r.OrganizationID, r.ID, ReportKey(r), rows-1, nil)
}

// FailReport records that the report could not be built.
func (a *Reports) FailReport(ctx context.Context, in reports.ReportInput, reason string) error {
	return reports.FinishReport(ctx, a.DB, in.OrganizationID, in.ReportID, "", 0, errors.New(reason))
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
