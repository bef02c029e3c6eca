package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/bdo"
	"ppwr/internal/input"
	"ppwr/internal/testenv"
	"ppwr/internal/work"
)

// benchBDOFlows is the size of the year the render benchmark exports, as
// in the bench (cmd/ppwr-bench, scenario bdo).
const benchBDOFlows = 1_000_000

// BenchmarkRenderBDOReport renders the exports of a report run whose
// snapshot holds a year of a million flows like the bench's (scenario
// bdo), against the test database and versitygw, so that -cpuprofile
// shows the worker's part of the bench's 201-to-ready.
func BenchmarkRenderBDOReport(b *testing.B) {
	ctx := context.Background()
	db, store := testenv.DB(b), testenv.Storage(b)
	org, err := accounts.CreateOrganization(ctx, db, "BDO Bench", "bench-"+domain.NewID().String()[:8])
	require.NoError(b, err)
	w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org.ID, Reference: "bench"})
	r, err := bdo.CreateBDOReport(w, &bdo.BDOReportCreate{Year: input.Opt[int]{Value: 2025, Sent: true}})
	require.NoError(b, err)
	require.NoError(b, domain.Commit(w, domain.AuditEntry{Operation: "bench.bdo"}))
	// The snapshot of the bench's year, written directly: the render reads
	// nothing else, and writing the flows first takes minutes.
	require.NoError(b, db.Exec(`INSERT INTO bdo_report_sources (report_id, source_kind, source_id, event_on, catalog_item_id, section,
			material_group, reusable, mass_g, classified)
		SELECT @report, 'flow', gen_random_uuid(), date '2025-01-01' + g % 365, i.id[1 + g % 100],
			CASE WHEN g % 10 = 0 THEN 'exported' ELSE 'placed_on_market' END,
			(ARRAY['plastics', 'paper', 'glass', 'aluminium'])[1 + g % 4], g % 5 = 0, 25 + g % 7, false
		FROM (SELECT array_agg(gen_random_uuid()) AS id FROM generate_series(1, 100)) i, generate_series(1, @n) g
		ORDER BY g % 365`, map[string]any{"report": r.ID, "n": benchBDOFlows}).Error)
	require.NoError(b, db.Model(&bdo.BDOReport{}).Where("id = ?", r.ID).Update("source_count", benchBDOFlows).Error)
	require.NoError(b, db.Exec(`VACUUM ANALYZE bdo_report_sources`).Error)
	a := &activities.BDO{DB: db, Storage: store}
	in := bdo.BDOReportInput{Org: domain.OrgOf(org.ID), ReportID: r.ID}
	for b.Loop() {
		require.NoError(b, a.RenderBDOReport(ctx, in))
		b.StopTimer()
		require.NoError(b, db.Model(&bdo.BDOReport{}).Where("id = ?", r.ID).Update("export_status", bdo.ExportRendering).Error)
		b.StartTimer()
	}
}
