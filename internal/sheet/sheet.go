// Package sheet writes spreadsheet files row by row, for the workflows
// that build report files and for the small exports built in a request.
package sheet

import (
	"archive/zip"
	"encoding/csv"
	"fmt"
	"io"

	"github.com/xuri/excelize/v2"
)

// Stream adds a sheet to x whose rows fill streams, one row at a time.
func Stream(x *excelize.File, name string, fill func(add func([]any) error) error) error {
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

// Texts is a row as CSV fields.
func Texts(row []any) []string {
	out := make([]string, len(row))
	for i, v := range row {
		out[i] = fmt.Sprint(v)
	}
	return out
}

// CSV writes the rows fill streams to w as CSV.
func CSV(w io.Writer, fill func(add func([]any) error) error) error {
	cw := csv.NewWriter(w)
	if err := fill(func(row []any) error { return cw.Write(Texts(row)) }); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// All is a fill of the rows given.
func All(rows [][]any) func(add func([]any) error) error {
	return func(add func([]any) error) error {
		for _, row := range rows {
			if err := add(row); err != nil {
				return err
			}
		}
		return nil
	}
}

// Save writes the workbook's package to out. excelize's Write first
// assembles the whole zip in a bytes.Buffer (File.WriteToBuffer), which
// for a million-row sheet holds tens of megabytes, twice over while the
// buffer grows; its ZipWriter hook lets the zip stream to out instead,
// so that buffer stays empty. The one thing lost is excelize's patch of
// zip64 local headers, for entries above 4 GiB, which no workbook of the
// service comes near.
func Save(x *excelize.File, out io.Writer) error {
	x.SetZipWriter(func(io.Writer) excelize.ZipWriter { return zip.NewWriter(out) })
	_, err := x.WriteToBuffer()
	return err
}
