package activities_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"gorm.io/gorm"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/imports"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// BenchmarkApply runs the apply activity over a 100,000-row catalogue
// planned as creates, against the test database, so that -cpuprofile
// shows the worker's part of the bench's apply. Beside the time it
// reports the CPU time of this process (worker-s/op) and of the database's
// backends (pg-s/op) over the apply alone, as the bench does.
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	db := testenv.DB(b)
	org, err := accounts.CreateOrganization(ctx, db, "Apply Bench", "bench-"+domain.NewID().String()[:8])
	require.NoError(b, err)
	a := &activities.Imports{DB: db}
	var spent cpuUse
	for n := 0; b.Loop(); n++ {
		b.StopTimer()
		imp := readyBenchImport(b, db, org.ID, fmt.Sprintf("apply-%d", n))
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestActivityEnvironment()
		env.RegisterActivity(a)
		before := cpuNow(b, db)
		b.StartTimer()
		res, err := env.ExecuteActivity(a.Apply, imp.WorkflowInput())
		b.StopTimer()
		spent = spent.add(cpuNow(b, db).sub(before))
		require.NoError(b, err)
		var status string
		require.NoError(b, res.Get(&status))
		require.Equal(b, imports.ImportCompletedStatus, status)
		b.StartTimer()
	}
	b.ReportMetric(spent.process.Seconds()/float64(b.N), "worker-s/op")
	b.ReportMetric(spent.database.Seconds()/float64(b.N), "pg-s/op")
}

// readyBenchImport stores a catalog import of benchPreviewRows rows, planned
// as the preview plans them, and asks for its apply.
func readyBenchImport(b *testing.B, db *gorm.DB, orgID uuid.UUID, prefix string) *imports.Import {
	ctx := context.Background()
	unit := func() *work.Unit {
		return work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: orgID, Reference: "bench"})
	}
	w := unit()
	imp, err := imports.CreateImport(w, domain.NewID(), imports.ImportUpload{Type: imports.ImportCatalog, FileName: "katalog.csv", Size: 1})
	require.NoError(b, err)
	require.NoError(b, domain.Commit(w, domain.AuditEntry{Operation: "bench.upload"}))
	planner := imports.NewRowPlanner(imp)
	const batch = 1000
	for first := 1; first <= benchPreviewRows; first += batch {
		cells := make([]map[string]string, batch)
		for i := range cells {
			row := benchRow(prefix, first+i)
			cells[i] = make(map[string]string, len(row))
			for c, name := range benchColumns {
				cells[i][name] = row[c]
			}
		}
		w := unit()
		rows, err := planner.Plan(w, imp.ID, first, cells)
		require.NoError(b, err)
		require.NoError(b, w.Commit())
		require.NoError(b, imports.StoreImportRows(ctx, db, rows))
	}
	w = unit()
	require.NoError(b, imports.ReadyImport(w, imp))
	require.NoError(b, domain.Commit(w, domain.AuditEntry{Operation: "bench.ready"}))
	w = unit()
	imp, err = imports.RequestImportApply(w, imp.ID)
	require.NoError(b, err)
	require.NoError(b, domain.Commit(w, domain.AuditEntry{Operation: "bench.apply"}))
	return imp
}

// cpuUse is CPU time used by this process and by the database's backends.
type cpuUse struct{ process, database time.Duration }

func (c cpuUse) sub(d cpuUse) cpuUse { return cpuUse{c.process - d.process, c.database - d.database} }
func (c cpuUse) add(d cpuUse) cpuUse { return cpuUse{c.process + d.process, c.database + d.database} }

// cpuNow reads the CPU time used so far by this process and by the
// backends connected to db's database, from /proc (PostgreSQL must run on
// this machine). The pool keeps its connections, so no backend takes its
// time away between two readings.
func cpuNow(b *testing.B, db *gorm.DB) cpuUse {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	use := cpuUse{process: time.Duration(ru.Utime.Nano() + ru.Stime.Nano())}
	var pids []int
	require.NoError(b, db.Raw(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'`).
		Scan(&pids).Error)
	for _, pid := range pids {
		raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		// After the command, in brackets: utime and stime are the 12th
		// and 13th fields, in clock ticks of 10 ms.
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		utime, _ := strconv.ParseInt(fields[11], 10, 64)
		stime, _ := strconv.ParseInt(fields[12], 10, 64)
		use.database += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return use
}
