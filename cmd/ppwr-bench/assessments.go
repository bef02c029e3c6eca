package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/registers"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/work"
)

// assessmentsScenario is the name -scenario matches to run the assessment
// benchmark: one item assessed with every rule through the API, beside
// the same API's cheapest read of that item, and a bulk run over
// bulkItems items through the worker process, beside the same domain
// work done in a plain loop without Temporal.
const assessmentsScenario = "assessments"

const (
	assessWarmup, assessRuns = 20, 300
	bulkItems, bareItems     = 10_000, 1_000
	// The issues' targets: a bulk run at least as fast as the plain loop,
	// bulkTarget per bulkItems, in a worker under bulkMaxRSS.
	assessP99Target = 100 * time.Millisecond
	bulkTarget      = 35 * time.Second
	bulkMaxRSS      = 100 << 20
)

func runAssessments() error {
	st, err := startWorkerStack()
	if err != nil {
		return err
	}
	defer st.close()
	ctx := context.Background()
	fmt.Printf("assessments: %s\n\n", st.describe())
	fmt.Printf("%-36s %-22s %-46s %s\n", "scenario", "target", "measured", "verdict")

	template, err := seedAssessedItem(ctx, st.db, st.org)
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	c := st.client(time.Minute)
	timed := func(method, path string, body string, status int) (result, error) {
		var r result
		for i := range assessWarmup + assessRuns {
			start := time.Now()
			var out map[string]any
			if err := c.do(method, path, strings.NewReader(body), "application/json", status, &out); err != nil {
				return r, err
			}
			if i >= assessWarmup {
				r.latencies = append(r.latencies, time.Since(start))
			}
		}
		slices.Sort(r.latencies)
		return r, nil
	}
	read, err := timed(http.MethodGet, "/catalog-items/"+template.String(), "", http.StatusOK)
	if err != nil {
		return err
	}
	assess, err := timed(http.MethodPost, "/assessments", `{"item":"`+template.String()+`"}`, http.StatusCreated)
	if err != nil {
		return err
	}
	line("GET /catalog-items/{id} (baseline)", "-", p50p99(read, assessRuns), "")
	line("POST /assessments, all rules", "p99 <= "+ms(assessP99Target), p50p99(assess, assessRuns), verdict(assess.percentile(0.99) <= assessP99Target))

	if err := cloneItem(ctx, st.db, st.org, template, bulkItems+bareItems); err != nil {
		return fmt.Errorf("clone items: %w", err)
	}
	loopBefore := cpuNow(st.db)
	bare, err := bareRun(ctx, st.db, st.org, bareItems)
	if err != nil {
		return err
	}
	loopUsed := cpuNow(st.db).sub(loopBefore)
	line(fmt.Sprintf("%d items in a plain loop (baseline)", bareItems), "-", fmt.Sprintf("%.0f items/s", float64(bareItems)/bare.Seconds()), "")
	line("  CPU per item", "-", fmt.Sprintf("this process %s, PostgreSQL %s", perItem(loopUsed.process, bareItems), perItem(loopUsed.database, bareItems)), "")

	if err := st.worker.resetPeak(); err != nil {
		return err
	}
	run, err := assessments.StartAssessmentRun(ctx, st.db, st.org, "")
	if err != nil {
		return err
	}
	start, runBefore := time.Now(), cpuOf(st.worker, st.db)
	for {
		var r assessments.AssessmentRun
		if err := st.db.Take(&r, "id = ?", run.ID).Error; err != nil {
			return err
		}
		if r.Status == assessments.RunCompleted {
			break
		}
		if err := st.worker.alive(); err != nil {
			return err
		}
		if time.Since(start) > 10*bulkTarget {
			return fmt.Errorf("bulk run: %d of %d items after %s", r.Done, r.Total, time.Since(start).Round(time.Second))
		}
		time.Sleep(100 * time.Millisecond)
	}
	took, runUsed := time.Since(start), cpuOf(st.worker, st.db).minus(runBefore)
	peak, err := st.worker.status("VmHWM")
	if err != nil {
		return err
	}
	scaled := bulkTarget * time.Duration(run.Total) / bulkItems
	rate, loopRate := float64(run.Total)/took.Seconds(), float64(bareItems)/bare.Seconds()
	line(fmt.Sprintf("bulk run, %d items", run.Total), fmt.Sprintf("<= %s, >= loop, < %s", scaled.Round(100*time.Millisecond), mb(bulkMaxRSS)),
		fmt.Sprintf("%s, %.0f items/s, worker peak %s", took.Round(100*time.Millisecond), rate, mb(peak)),
		verdict(took <= scaled && rate >= loopRate && peak < bulkMaxRSS))
	line("  CPU per item", "-", fmt.Sprintf("worker %s, PostgreSQL %s", perItem(runUsed.worker, run.Total), perItem(runUsed.postgres, run.Total)), "")
	fmt.Println()
	return nil
}

// perItem is a CPU time spent on n items, per item.
func perItem(d time.Duration, n int) string {
	return (d / time.Duration(max(n, 1))).Round(time.Microsecond).String()
}

func p50p99(r result, runs int) string {
	return fmt.Sprintf("p50 %s, p99 %s (%d runs)", ms(r.percentile(0.5)), ms(r.percentile(0.99)), runs)
}

// seedAssessedItem makes, through the domain commands, an item with two
// components and an accepted entry in every register the rules read.
func seedAssessedItem(ctx context.Context, db *gorm.DB, org uuid.UUID) (uuid.UUID, error) {
	system := func() *work.Unit {
		return work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "bench"})
	}
	bind := func(body string, in input.Body) error { return input.FromJSON([]byte(body), in) }
	commit := func(w *work.Unit, err error) error {
		if err != nil {
			w.Rollback()
			return err
		}
		return domain.Commit(w, domain.AuditEntry{Operation: "benchSeed"})
	}
	item := &catalog.CatalogItemCreate{}
	if err := bind(`{"internalCode":"TEMPLATE","name":"Słoik","sourcingType":"own_production","massG":"184","mainMaterialCode":"GLASS",
		"stockUnit":"piece","reuseType":"single_use","foodContactStatus":"food_contact"}`, item); err != nil {
		return uuid.Nil, err
	}
	w := system()
	created, err := catalog.CreateCatalogItem(w, item)
	if err := commit(w, err); err != nil {
		return uuid.Nil, err
	}
	var parts []uuid.UUID
	for _, c := range []string{`{"name":"Korpus","role":"body","materialCode":"GLASS","massG":"180"}`,
		`{"name":"Zakrętka","role":"closure","materialCode":"PLASTIC_PP","massG":"4"}`} {
		in := &catalog.ComponentCreate{}
		if err := bind(c, in); err != nil {
			return uuid.Nil, err
		}
		w := system()
		comp, err := catalog.CreateComponent(w, created.ID, in)
		if err := commit(w, err); err != nil {
			return uuid.Nil, err
		}
		parts = append(parts, comp.ID)
	}
	doc := documents.Document{ID: domain.NewID(), OrganizationID: org, DocumentType: "laboratory_report", Title: "Raport", VersionCount: 1, Revision: 1}
	report := documents.DocumentVersion{ID: domain.NewID(), OrganizationID: org, DocumentID: doc.ID, Version: 1, FileName: "raport.pdf",
		ObjectKey: "bench", SHA256: strings.Repeat("0", 64), ProcessingStatus: documents.ProcessingReviewRequired, ReviewStatus: documents.ReviewApproved, Revision: 1}
	if err := db.Create(&doc).Error; err != nil {
		return uuid.Nil, err
	}
	if err := db.Create(&report).Error; err != nil {
		return uuid.Nil, err
	}
	chem := func(part uuid.UUID) string {
		return `{"component":"` + part.String() + `","lab_report":"` + report.ID.String() + `","lab_name":"Lab","sampling_date":"2026-10-01",
			"lead":{"value":"10","unit":"mg/kg"},"cadmium":{"value":"1","unit":"mg/kg"},"mercury":{"value":"1","unit":"mg/kg"},
			"chromium_vi":{"value":"1","unit":"mg/kg"},"pfas_max_individual":{"value":"3","unit":"ppb"},"pfas_sum_targeted":{"value":"40","unit":"ppb"},
			"pfas_total":{"value":"2","unit":"ppm"},"total_fluorine":{"value":"5","unit":"mg/kg"}}`
	}
	entries := [][2]string{
		{"packaging-classification", `{"packaging_function":"sales","is_packaging":true,"reuse_type":"single_use","contact_sensitive":true,
			"contact_sensitive_basis":"food_contact","food_contact":true,"annex_ii_category":1,"predominant_material":"glass","composite":false}`},
		{"chemical-safety", chem(parts[0])}, {"chemical-safety", chem(parts[1])},
		{"recyclability", `{"annex_ii_category":1,"dfr_score":{"value":"96","unit":"%"}}`},
		{"conformity-dossiers", `{"manufacturer":"Huta","placed_on_market_on":"2026-09-01","elements":[{"element":"TD-a","complete":true}]}`},
		{"eu-declarations", `{"declaration_number":"D1","packaging_identification":"Słoik","manufacturer":"Huta","sole_responsibility_statement":true,
			"object_description":"Słoik","union_legislation":"PPWR","languages":"pl","signature_status":"unsigned","placed_on_market_on":"2026-09-01"}`},
		{"communications", `{"identifier":"LOT-1","manufacturer_contact_marked":true}`},
		{"restricted-formats", `{"plastic":false,"single_use":true,"use_context":"none"}`},
	}
	for _, e := range entries {
		reg, _ := register.ByName(e[0])
		in := registers.NewRegisterEntryCreate(reg)
		if err := bind(`{"catalog_revision":3,"method":"test_method","values":`+e[1]+`}`, in); err != nil {
			return uuid.Nil, err
		}
		w := system()
		entry, err := registers.CreateRegisterEntry(w, created.ID, in)
		if err := commit(w, err); err != nil {
			return uuid.Nil, fmt.Errorf("%s: %w", e[0], err)
		}
		review := registers.NewRegisterReview()
		if err := bind(`{"decision":"accepted","reason":"bench","revision":1}`, review); err != nil {
			return uuid.Nil, err
		}
		w = system()
		_, err = registers.ReviewRegisterEntry(w, created.ID, e[0], entry.ID, review)
		if err := commit(w, err); err != nil {
			return uuid.Nil, err
		}
	}
	return created.ID, nil
}

// cloneItem copies the template item n times, with its data version,
// components and register entries, in a few statements: the bulk run then
// reads items as full as the template.
func cloneItem(ctx context.Context, db *gorm.DB, org, template uuid.UUID, n int) error {
	return db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		steps := []string{
			`CREATE TEMP TABLE clones ON COMMIT DROP AS SELECT gen_random_uuid() AS id, g AS n FROM generate_series(1, ?) g`,
			`INSERT INTO catalog_items (id, organization_id, internal_code, name, sourcing_type, mass_g, main_material_code, stock_unit,
				stock_tracked, food_contact_status, reuse_type, status, revision)
			 SELECT c.id, i.organization_id, 'CLONE-' || c.n, i.name, i.sourcing_type, i.mass_g, i.main_material_code, i.stock_unit,
				i.stock_tracked, i.food_contact_status, i.reuse_type, i.status, i.revision FROM clones c, catalog_items i WHERE i.id = @template`,
			`INSERT INTO catalog_item_data_versions (id, organization_id, catalog_item_id, revision, specifications, components, markets, sha256)
			 SELECT gen_random_uuid(), v.organization_id, c.id, v.revision, v.specifications, v.components, v.markets, v.sha256
			 FROM clones c, catalog_item_data_versions v WHERE v.catalog_item_id = @template`,
			`CREATE TEMP TABLE clone_parts ON COMMIT DROP AS SELECT c.id AS item, p.id AS template_part, gen_random_uuid() AS part
			 FROM clones c, catalog_item_components p WHERE p.catalog_item_id = @template`,
			`INSERT INTO catalog_item_components (id, organization_id, catalog_item_id, name, role, material_code, mass_g)
			 SELECT cp.part, p.organization_id, cp.item, p.name, p.role, p.material_code, p.mass_g
			 FROM clone_parts cp JOIN catalog_item_components p ON p.id = cp.template_part`,
			`INSERT INTO ppwr_register_entries (id, organization_id, catalog_item_id, register, catalog_revision, data_version_id, "values",
				method, evidence, valid_from, status, review_status, reviewed_at, revision, created_at, updated_at)
			 SELECT gen_random_uuid(), e.organization_id, c.id, e.register, e.catalog_revision, e.data_version_id,
				CASE WHEN e."values"->>'component' IS NOT NULL THEN jsonb_set(e."values", '{component}',
					to_jsonb((SELECT cp.part FROM clone_parts cp WHERE cp.item = c.id AND cp.template_part::text = e."values"->>'component')))
				ELSE e."values" END,
				e.method, e.evidence, e.valid_from, e.status, e.review_status, e.reviewed_at, e.revision, e.created_at, e.updated_at
			 FROM clones c, ppwr_register_entries e WHERE e.catalog_item_id = @template`,
		}
		if err := tx.Exec(steps[0], n).Error; err != nil {
			return err
		}
		for _, s := range steps[1:] {
			var args []any
			if strings.Contains(s, "@template") {
				args = append(args, map[string]any{"template": template})
			}
			if err := tx.Exec(s, args...).Error; err != nil {
				return err
			}
		}
		return nil
	})
}

// bareRun assesses n items with the same domain command a bulk run's
// activity uses, in a plain loop in this process: what the run costs
// without Temporal, heartbeats and the worker.
func bareRun(ctx context.Context, db *gorm.DB, org uuid.UUID, n int) (time.Duration, error) {
	var ids []uuid.UUID
	if err := db.Model(&catalog.CatalogItem{}).Where("organization_id = ? AND internal_code LIKE 'CLONE-%'", org).Order("id").Limit(n).
		Pluck("id", &ids).Error; err != nil {
		return 0, err
	}
	start := time.Now()
	for _, id := range ids {
		w := work.New(ctx, db, work.Actor{Kind: work.ActorSystem, OrganizationID: org, Reference: "bench"})
		in := &assessments.AssessmentCreate{Item: input.Of(id)}
		if _, err := assessments.CreateAssessment(w, in); err != nil {
			w.Rollback()
			return 0, err
		}
		if err := domain.Commit(w, domain.AuditEntry{Operation: "benchAssess"}); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}
