package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
)

// bdoScenario is the name -scenario matches to run the BDO benchmark: a
// year of bdoFlows flows in one organization, its sources summary beside a
// bare SQL sum of the same flows, the last page of its sources beside the
// first, and a report run to its rendered XLSX.
const bdoScenario = "bdo"

const (
	bdoFlows = 1_000_000
	// bdoRounds alternate the bare sum, the first page with the summary
	// and the last page, so all three see the same share of what else
	// the machine runs.
	bdoRounds = 5
	// The targets.
	bdoSummaryRatio  = 3.0
	bdoCreatedTarget = 5 * time.Second
	bdoXLSXTarget    = 10 * time.Second
	bdoWorkerRSS     = 200 << 20
	// bdoDeepRatio bounds the last page against the first: a deep page
	// may add one pass over the year to the summary's, not a walk to it.
	bdoDeepRatio = 2.0
)

func runBDO() error {
	st, err := startWorkerStack()
	if err != nil {
		return err
	}
	defer st.close()
	ctx := context.Background()
	fmt.Printf("bdo: %s\n\n", st.describe())
	fmt.Printf("%-36s %-22s %-46s %s\n", "scenario", "target", "measured", "verdict")
	if err := seedFlows(ctx, st.db, st.org, bdoFlows); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	c := st.client(5 * time.Minute)
	var bare, summary, deep result
	var grams string
	var last int64
	var lastPage struct {
		Data []json.RawMessage `json:"data"`
	}
	var page struct {
		Total   int64 `json:"total"`
		Summary struct {
			TotalMg string `json:"total_mg"`
		} `json:"summary"`
	}
	for range bdoRounds {
		start := time.Now()
		if err := st.db.Raw(`SELECT sum(mass_g)::text FROM flows WHERE organization_id = ? AND event_on >= '2025-01-01' AND event_on < '2026-01-01'`,
			st.org).Scan(&grams).Error; err != nil {
			return err
		}
		bare.latencies = append(bare.latencies, time.Since(start))
		start = time.Now()
		if err := c.do(http.MethodGet, "/bdo-reports/sources?year=2025&per_page=100", nil, "", http.StatusOK, &page); err != nil {
			return err
		}
		summary.latencies = append(summary.latencies, time.Since(start))
		last = (page.Total + 99) / 100
		start = time.Now()
		if err := c.do(http.MethodGet, fmt.Sprintf("/bdo-reports/sources?year=2025&per_page=100&page=%d", last), nil, "", http.StatusOK, &lastPage); err != nil {
			return err
		}
		if len(lastPage.Data) == 0 {
			return fmt.Errorf("bdo: page %d of %d sources is empty", last, page.Total)
		}
		deep.latencies = append(deep.latencies, time.Since(start))
	}
	slices.Sort(bare.latencies)
	slices.Sort(summary.latencies)
	slices.Sort(deep.latencies)
	ratio := summary.percentile(0.5).Seconds() / bare.percentile(0.5).Seconds()
	line("bare SQL sum of the year's flows", "-", fmt.Sprintf("p50 %s (%d runs, %s g)", ms(bare.percentile(0.5)), bdoRounds, grams), "")
	line("GET /bdo-reports/sources (summary)", fmt.Sprintf("<= %.0fx bare sum", bdoSummaryRatio),
		fmt.Sprintf("p50 %s = %.1fx, %d sources, %s Mg", ms(summary.percentile(0.5)), ratio, page.Total, page.Summary.TotalMg),
		verdict(ratio <= bdoSummaryRatio))
	deepRatio := deep.percentile(0.5).Seconds() / summary.percentile(0.5).Seconds()
	line(fmt.Sprintf("GET .../sources?page=%d (last)", last), fmt.Sprintf("<= %.0fx the first page", bdoDeepRatio),
		fmt.Sprintf("p50 %s = %.1fx", ms(deep.percentile(0.5)), deepRatio), verdict(deepRatio <= bdoDeepRatio))

	if err := st.worker.resetPeak(); err != nil {
		return err
	}
	var report struct {
		ID           string `json:"id"`
		Status       string `json:"status"`
		ExportStatus string `json:"export_status"`
	}
	start := time.Now()
	if err := c.do(http.MethodPost, "/bdo-reports", strings.NewReader(`{"year":2025}`), "application/json", http.StatusCreated, &report); err != nil {
		return err
	}
	created, atCreated := time.Since(start), cpuOf(st.worker, st.db)
	line("POST /bdo-reports -> 201", "<= "+bdoCreatedTarget.String(), ms(created)+" ("+report.Status+")", verdict(created <= bdoCreatedTarget))
	for report.ExportStatus != "ready" {
		if report.ExportStatus == "failed" {
			return fmt.Errorf("bdo report %s: exports failed", report.ID)
		}
		if err := st.worker.alive(); err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
		if err := c.do(http.MethodGet, "/bdo-reports/"+report.ID, nil, "", http.StatusOK, &report); err != nil {
			return err
		}
	}
	ready, used := time.Since(start)-created, cpuOf(st.worker, st.db).minus(atCreated)
	peak, err := st.worker.status("VmHWM")
	if err != nil {
		return err
	}
	line("201 -> XLSX ready to download", "<= "+bdoXLSXTarget.String(), ms(ready), verdict(ready <= bdoXLSXTarget))
	line("201 -> ready CPU", "-", used.String(), "")
	line("worker peak RSS over the render", "< "+mb(bdoWorkerRSS), mb(peak), verdict(peak < bdoWorkerRSS))
	fmt.Println()
	return nil
}

// seedFlows writes n placed flows of 2025 over 100 items of four
// materials, in a few statements.
func seedFlows(ctx context.Context, db *gorm.DB, org uuid.UUID, n int) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		for _, s := range []string{
			`INSERT INTO catalog_items (id, organization_id, internal_code, name, sourcing_type, mass_g, main_material_code, stock_unit,
				food_contact_status, reuse_type)
			 SELECT gen_random_uuid(), @org, 'BDO-' || g, 'Item ' || g, 'purchased', 25,
				(ARRAY['PLASTIC_PET','PAPER_CARDBOARD','GLASS','ALUMINIUM'])[1 + g % 4], 'piece', 'not_food_contact', 'single_use'
			 FROM generate_series(1, 100) g`,
			`INSERT INTO catalog_item_data_versions (id, organization_id, catalog_item_id, revision, specifications, components, markets, sha256)
			 SELECT gen_random_uuid(), organization_id, id, 1, '{}', '[]', '[]', 'bench' FROM catalog_items WHERE organization_id = @org`,
			`CREATE TEMP TABLE bench_items ON COMMIT DROP AS SELECT row_number() OVER (ORDER BY i.id) - 1 AS n, i.id, v.id AS version
			 FROM catalog_items i JOIN catalog_item_data_versions v ON v.catalog_item_id = i.id WHERE i.organization_id = @org`,
			`INSERT INTO flows (id, organization_id, catalog_item_id, data_version_id, kind, quantity, unit, mass_g, country, event_on, reusable)
			 SELECT gen_random_uuid(), @org, b.id, b.version, 'placed', 1, 'piece', 25 + g % 7, CASE WHEN g % 10 = 0 THEN 'DE' ELSE 'PL' END,
				date '2025-01-01' + g % 365, g % 5 = 0
			 FROM generate_series(1, @n) g JOIN bench_items b ON b.n = g % 100`,
		} {
			if err := tx.Exec(s, map[string]any{"org": org, "n": n}).Error; err != nil {
				return err
			}
		}
		return tx.Exec(`ANALYZE flows`).Error
	})
}
