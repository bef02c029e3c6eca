package bdo_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

func TestAReportRunIsASnapshotWithItsExports(t *testing.T) {
	a := apitest.New(t, apitest.WithServices())
	y := &year{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	c, queue := testenv.Temporal(t), "ppwr-bdo-"+uuid.NewString()
	w := worker.New(worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t)})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	relay := &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}

	bottle, box := y.item(t, "PLASTIC_PET", "25"), y.item(t, "PAPER_CARDBOARD", "120")
	placed := y.flow(t, bottle, "25000", "PL", "2025-03-01", false)
	reusable := y.flow(t, box, "1200.5", "PL", "2025-06-01", true)
	// A billion boxes and a fraction: grams with more digits than a float
	// keeps (120,000,000,014.81481468 g).
	produced := y.supply(t, box, "produced", "1000000000.123456789", "", "2025-02-01").JSON["id"].(string)

	res := y.send(t, y.tn, http.MethodPost, "/bdo-reports", map[string]any{"year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	draft := res.JSON
	assert.Equal(t, "needs_review", draft["status"], "nothing is classified yet")
	assert.Equal(t, "not_calculated", draft["settlement_mode"])
	warnings := draft["warnings"].([]any)
	require.Len(t, warnings, 1)
	assert.Equal(t, "unclassified_sources", warnings[0].(map[string]any)["code"])
	assert.EqualValues(t, 3, warnings[0].(map[string]any)["count"])
	download := y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/" + draft["id"].(string) + "/download"), Token: y.tn.Token})
	assert.Equal(t, http.StatusConflict, download.Code, "the exports are not rendered yet")
	assert.Equal(t, "5", download.Header().Get("Retry-After"))

	sources := y.get(t, "/bdo-reports/sources?year=2025")["data"].([]any)
	var all []any
	for _, s := range sources {
		s := s.(map[string]any)
		all = append(all, map[string]any{"key": s["key"], "section": s["suggested_section"]})
	}
	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": all})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports", map[string]any{"year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), res.Header().Get("Retry-After"), "a run whose exports start rendering is polled from its create")
	report := res.JSON
	assert.Equal(t, "prepared", report["status"])
	assert.Empty(t, report["warnings"])
	assert.EqualValues(t, 3, report["source_count"])
	totals := map[string]map[string]any{}
	for _, tt := range report["totals"].([]any) {
		tt := tt.(map[string]any)
		totals[tt["section"].(string)+"/"+tt["material_group"].(string)] = tt
	}
	assert.Equal(t, "0.025", totals["placed_on_market/plastics"]["single_use_mg"])
	assert.Equal(t, "0.001201", totals["placed_on_market/paper"]["reusable_mg"], "1,200.5 g is 0.0012005 Mg, 0.001201 at six decimals, half away from zero")
	assert.Equal(t, "1200.5", totals["placed_on_market/paper"]["reusable_g"], "the grams stay exact")
	assert.Equal(t, "120000.000015", totals["manufactured/paper"]["single_use_mg"])

	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports/classifications", map[string]any{"year": 2025, "sources": []any{
		map[string]any{"key": "flow:" + placed, "section": "placed_on_market", "excluded": true, "exclusion_reason": "Korekta"}}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	rendering := y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/" + report["id"].(string)), Token: y.tn.Token})
	require.Equal(t, http.StatusOK, rendering.Code, rendering.Body.String())
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), rendering.Header().Get("Retry-After"), "exports being rendered are polled")
	stored := rendering.JSON
	assert.Equal(t, report["totals"], stored["totals"], "a classification never alters a stored report")
	assert.EqualValues(t, 3, stored["source_count"])
	assert.Equal(t, "queued", stored["progress"].(map[string]any)["stage"])

	_, err := relay.StartWorkflows(t.Context())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return y.get(t, "/bdo-reports/"+report["id"].(string))["export_status"] == "ready" },
		time.Minute, 50*time.Millisecond)
	rendered := y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/" + report["id"].(string)), Token: y.tn.Token})
	assert.Empty(t, rendered.Header().Get("Retry-After"), "rendered exports are not polled")
	progress := rendered.JSON["progress"].(map[string]any)
	assert.Equal(t, []any{"writing_sources", 3.0, 3.0}, []any{progress["stage"], progress["done"], progress["total"]}, "every source written")
	download = y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/" + report["id"].(string) + "/download"), Token: y.tn.Token})
	require.Equal(t, http.StatusOK, download.Code, download.Body.String())
	assert.Equal(t, "application/octet-stream", download.Header().Get("Content-Type"))
	assert.Contains(t, download.Header().Get("Content-Disposition"), "bdo-2025-"+report["id"].(string)+".xlsx")
	sheets := apitest.ReadXLSX(t, download.Body.Bytes())
	assert.Equal(t, []string{"Material group", "Single-use [Mg]", "Reusable [Mg]", "Total [Mg]", "Sources"}, sheets["placed_on_market"][1])
	assert.Contains(t, sheets["placed_on_market"], []string{"plastics", "0.025", "0", "0.025", "1"})
	assert.Contains(t, sheets["placed_on_market"], []string{"paper", "0", "0.001201", "0.001201", "1"})
	assert.Len(t, sheets["sources"], 4, "a header and the three sources")
	// Masses and counts are number cells with every digit the report has.
	number := func(text string) apitest.XLSXCell { return apitest.XLSXCell{Text: text, Number: true} }
	assert.Contains(t, apitest.ReadXLSXCells(t, download.Body.Bytes(), "manufactured"),
		[]apitest.XLSXCell{{Text: "paper"}, number("120000.000015"), number("0"), number("120000.000015"), number("1")})
	assert.Contains(t, apitest.ReadXLSXCells(t, download.Body.Bytes(), "placed_on_market"),
		[]apitest.XLSXCell{{Text: "paper"}, number("0"), number("0.001201"), number("0.001201"), number("1")})
	masses := map[string]apitest.XLSXCell{}
	for _, row := range apitest.ReadXLSXCells(t, download.Body.Bytes(), "sources")[1:] {
		masses[row[0].Text] = row[6]
	}
	require.Len(t, masses, 3)
	for _, s := range sources {
		s := s.(map[string]any)
		assert.Equal(t, number(s["mass_g"].(string)), masses[s["key"].(string)], s["key"])
	}
	assert.Equal(t, number("1200.5"), masses["flow:"+reusable])
	assert.Contains(t, masses, "supply:"+produced)
	assert.Equal(t, number("120000000014.81481468"), masses["supply:"+produced], "not 120000000014.81482")
	assert.Contains(t, sheets["reference levels"][0][0], "Reference only")

	download = y.Do(apitest.Req{Method: http.MethodGet, Path: y.tn.Path("/bdo-reports/" + report["id"].(string) + "/download?format=json"), Token: y.tn.Token})
	require.Equal(t, http.StatusOK, download.Code)
	var exported struct {
		SettlementMode string           `json:"settlement_mode"`
		Sources        []map[string]any `json:"sources"`
	}
	require.NoError(t, json.Unmarshal(download.Body.Bytes(), &exported))
	assert.Equal(t, "not_calculated", exported.SettlementMode)
	require.Len(t, exported.Sources, 3)
	keys := []string{}
	for _, s := range exported.Sources {
		keys = append(keys, s["key"].(string))
	}
	assert.Contains(t, keys, "flow:"+reusable)

	// A render repeated after a worker died (its result unrecorded) renders
	// the same snapshot again: the snapshot is the request's, never the
	// workflow's, so nothing is counted twice.
	require.NoError(t, a.DB.Exec(`UPDATE bdo_reports SET export_status = 'rendering' WHERE id = ?`, report["id"]).Error)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.BDO{DB: a.DB, Storage: testenv.Storage(t)})
	_, err = env.ExecuteActivity((&activities.BDO{}).RenderBDOReport, bdo.BDOReportInput{Org: domain.OrgOf(y.tn.Org), ReportID: uuid.MustParse(report["id"].(string))})
	require.NoError(t, err)
	var snapshot int64
	require.NoError(t, a.DB.Table("bdo_report_sources").Where("report_id = ?", report["id"]).Count(&snapshot).Error)
	assert.EqualValues(t, 3, snapshot)
	assert.Equal(t, "ready", y.get(t, "/bdo-reports/"+report["id"].(string))["export_status"])

	other := a.NewTenant(apitest.TenantSpec{})
	res = a.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/bdo-reports/" + report["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
	res = y.send(t, y.tn, http.MethodPost, "/bdo-reports", map[string]any{"year": 2023})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
}
