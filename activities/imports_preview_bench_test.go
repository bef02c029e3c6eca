package activities_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/xuri/excelize/v2"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/imports"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// benchPreviewRows is the size of the files the preview benchmarks read:
// the bench's big catalogue (cmd/ppwr-bench, scenario imports).
const benchPreviewRows = 100_000

var benchColumns = []string{"internalCode", "name", "sourcingType", "massG", "mainMaterialCode", "stockUnit",
	"stockTracked", "foodContactStatus", "reuseType"}

// benchRow is row i of a benchmark catalogue: a valid new item.
func benchRow(prefix string, i int) []string {
	return []string{fmt.Sprintf("%s-%06d", prefix, i), fmt.Sprintf("Karton klapowy, partia %d", i/14+1), "purchased",
		strconv.FormatFloat(420+float64(i%50)/10, 'f', 1, 64), "PAPER_CORRUGATED", "piece", strconv.FormatBool(i%3 != 0),
		"not_food_contact", "single_use"}
}

func benchCSV(prefix string) []byte {
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	w.Comma = ';'
	_ = w.Write(benchColumns)
	for i := range benchPreviewRows {
		_ = w.Write(benchRow(prefix, i))
	}
	w.Flush()
	return out.Bytes()
}

func benchXLSX(b *testing.B, prefix string) []byte {
	f := excelize.NewFile()
	defer f.Close()
	sw, err := f.NewStreamWriter(f.GetSheetName(0))
	require.NoError(b, err)
	row := func(n int, cells []string) {
		values := make([]any, len(cells))
		for i, c := range cells {
			values[i] = c
		}
		// As typed in a spreadsheet: the mass a number, stockTracked a boolean.
		values[3], _ = strconv.ParseFloat(cells[3], 64)
		values[6], _ = strconv.ParseBool(cells[6])
		cell, err := excelize.CoordinatesToCellName(1, n)
		require.NoError(b, err)
		require.NoError(b, sw.SetRow(cell, values))
	}
	values := make([]any, len(benchColumns))
	for i, c := range benchColumns {
		values[i] = c
	}
	require.NoError(b, sw.SetRow("A1", values))
	for i := range benchPreviewRows {
		row(i+2, benchRow(prefix, i))
	}
	require.NoError(b, sw.Flush())
	var out bytes.Buffer
	_, err = f.WriteTo(&out)
	require.NoError(b, err)
	return out.Bytes()
}

// BenchmarkPreview runs the preview activity over a 100,000-row catalogue
// as CSV and as XLSX, against the test database and versitygw, so that
// -cpuprofile shows the worker's part of the bench's upload-to-ready.
func BenchmarkPreview(b *testing.B) {
	ctx := context.Background()
	db, store := testenv.DB(b), testenv.Storage(b)
	org, err := accounts.CreateOrganization(ctx, db, "Preview Bench", "bench-"+domain.NewID().String()[:8])
	require.NoError(b, err)
	a := &activities.Imports{DB: db, Storage: store}
	for name, file := range map[string]func(prefix string) []byte{
		"csv":  benchCSV,
		"xlsx": func(prefix string) []byte { return benchXLSX(b, prefix) },
	} {
		b.Run(name, func(b *testing.B) {
			for n := 0; b.Loop(); n++ {
				b.StopTimer()
				content := file(fmt.Sprintf("%s-%d", name, n))
				w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org.ID, Reference: "bench"})
				imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog,
					FileName: "katalog." + name, Size: int64(len(content))})
				require.NoError(b, err)
				require.NoError(b, domain.Commit(w, domain.AuditEntry{Operation: "bench.upload"}))
				require.NoError(b, store.Put(ctx, imp.ObjectKey, bytes.NewReader(content), "application/octet-stream"))
				var suite testsuite.WorkflowTestSuite
				env := suite.NewTestActivityEnvironment()
				env.RegisterActivity(a)
				b.StartTimer()
				res, err := env.ExecuteActivity(a.Preview, imp.WorkflowInput())
				require.NoError(b, err)
				var status string
				require.NoError(b, res.Get(&status))
				require.Equal(b, imports.ImportReadyStatus, status)
			}
		})
	}
}
