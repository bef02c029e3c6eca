package reports_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/api/kit"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

type desk struct {
	*apitest.API
	tn    apitest.Tenant
	relay *worker.Relay
}

func newDesk(t *testing.T) *desk {
	a := apitest.New(t, apitest.WithServices())
	c, queue := testenv.Temporal(t), "ppwr-reports-"+uuid.NewString()
	w := worker.New(worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, Storage: testenv.Storage(t)})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return &desk{API: a, tn: a.NewTenant(apitest.TenantSpec{}), relay: &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}}
}

func (d *desk) send(t *testing.T, method, path string, body any) *apitest.Response {
	t.Helper()
	return d.Do(apitest.Req{Method: method, Path: d.tn.Path(path), Token: d.tn.Token, Body: body,
		Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (d *desk) ok(t *testing.T, status int, method, path string, body any) map[string]any {
	t.Helper()
	res := d.send(t, method, path, body)
	require.Equal(t, status, res.Code, res.Body.String())
	return res.JSON
}

// built creates a report, runs its workflow and downloads the file. The
// report asks to be polled until it is built, and shows its rows written.
func (d *desk) built(t *testing.T, body map[string]any) (map[string]any, []byte) {
	t.Helper()
	accepted := d.send(t, http.MethodPost, "/reports", body)
	require.Equal(t, http.StatusAccepted, accepted.Code, accepted.Body.String())
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), accepted.Header().Get("Retry-After"))
	r := accepted.JSON
	assert.Equal(t, "queued", r["status"])
	assert.Equal(t, map[string]any{"stage": "queued", "done": 0.0, "total": nil}, withoutTime(r["progress"]))
	path := "/reports/" + r["id"].(string)
	queued := d.send(t, http.MethodGet, path, nil)
	assert.Equal(t, strconv.Itoa(kit.PollSeconds), queued.Header().Get("Retry-After"), "a queued report is polled")
	res := d.send(t, http.MethodGet, path+"/download", nil)
	require.Equal(t, http.StatusConflict, res.Code, "not built yet")
	assert.Equal(t, "5", res.Header().Get("Retry-After"))
	_, err := d.relay.StartWorkflows(t.Context())
	require.NoError(t, err)
	require.Eventually(t, func() bool { return d.ok(t, http.StatusOK, http.MethodGet, path, nil)["status"] == "completed" },
		time.Minute, 50*time.Millisecond)
	res = d.send(t, http.MethodGet, path+"/download", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Contains(t, res.Header().Get("Content-Disposition"), r["file_name"].(string))
	built := d.send(t, http.MethodGet, path, nil)
	assert.Empty(t, built.Header().Get("Retry-After"), "a built report is not polled")
	rows := built.JSON["row_count"]
	assert.Equal(t, map[string]any{"stage": "writing_rows", "done": rows, "total": rows}, withoutTime(built.JSON["progress"]))
	return built.JSON, res.Body.Bytes()
}

// withoutTime is a progress without its updated_at (the document
// requires one, and the harness checks every answer against it).
func withoutTime(progress any) map[string]any {
	p, _ := progress.(map[string]any)
	if p["updated_at"] == nil {
		return p
	}
	delete(p, "updated_at")
	return p
}

func (d *desk) item(t *testing.T, material, grams string) string {
	return d.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "R-" + uuid.NewString()[:8],
		"name": "Karton", "sourcingType": "purchased", "massG": grams, "mainMaterialCode": material, "stockUnit": "piece",
		"stockTracked": true, "reuseType": "single_use", "foodContactStatus": "not_food_contact"})["id"].(string)
}

func readCSV(t *testing.T, raw []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	require.NoError(t, err)
	return rows
}

func TestTheThreeReportKinds(t *testing.T) {
	d := newDesk(t)
	box, bottle := d.item(t, "PAPER_CARDBOARD", "120"), d.item(t, "PLASTIC_PET", "25")
	for _, f := range [][3]string{{box, "2025-03-05", "1200"}, {box, "2025-03-20", "600.5"}, {bottle, "2025-04-01", "123456789012.123456789"}, {box, "2025-05-01", "99"}} {
		d.ok(t, http.StatusCreated, http.MethodPost, "/flows", map[string]any{"item": f[0], "kind": "placed", "quantity": "10",
			"unit": "piece", "mass_g": f[2], "country": "PL", "event_on": f[1]})
	}
	report, raw := d.built(t, map[string]any{"kind": "placed_on_market", "format": "csv", "from": "2025-03-01", "to": "2025-04-30"})
	assert.EqualValues(t, 2, report["row_count"])
	assert.Equal(t, [][]string{
		{"period", "material_group", "material_code", "reusable", "flows", "mass_g"},
		{"2025-03", "paper", "PAPER_CARDBOARD", "false", "2", "1800.5"},
		{"2025-04", "plastics", "PLASTIC_PET", "false", "1", "123456789012.123456789"},
	}, readCSV(t, raw), "May is outside the period")
	_, raw = d.built(t, map[string]any{"kind": "placed_on_market", "from": "2025-03-01", "to": "2025-04-30"})
	assert.Equal(t, []string{"2025-03", "paper", "PAPER_CARDBOARD", "False", "2", "1800.5"}, apitest.ReadXLSX(t, raw)["placed_on_market"][1], "xlsx by default")
	// Counts and masses are number cells, the masses with all their digits
	// (a float would keep 123456789012.12346).
	cells := apitest.ReadXLSXCells(t, raw, "placed_on_market")
	require.Len(t, cells, 3)
	for _, row := range cells[1:] {
		assert.True(t, row[4].Number && row[5].Number, "%v", row)
		assert.False(t, row[2].Number, "%v", row)
	}
	assert.Equal(t, []string{"1800.5", "123456789012.123456789"}, []string{cells[1][5].Text, cells[2][5].Text})

	rev := d.ok(t, http.StatusOK, http.MethodGet, "/catalog-items/"+box, nil)["revision"]
	d.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items/"+box+"/supply-events", map[string]any{"catalog_revision": rev,
		"direction": "produced", "quantity_units": "40", "event_on": "2025-03-01"})
	d.ok(t, http.StatusCreated, http.MethodPost, "/catalog-items/"+box+"/supply-events", map[string]any{"catalog_revision": rev,
		"direction": "used", "quantity_units": "15", "event_on": "2025-03-02", "usage_channel": "own_operations", "country": "PL"})
	report, raw = d.built(t, map[string]any{"kind": "stock_ledger", "item": box})
	assert.EqualValues(t, 2, report["row_count"])
	ledger := readCSV(t, raw)
	require.Len(t, ledger, 3)
	assert.Equal(t, "40", ledger[1][3], "the production adds 40 pieces")
	assert.Equal(t, "-15", ledger[2][3], "the use takes 15")

	report, raw = d.built(t, map[string]any{"kind": "evidence_coverage"})
	assert.EqualValues(t, 2, report["row_count"])
	coverage := apitest.ReadXLSX(t, raw)["evidence_coverage"]
	assert.Equal(t, "registers_covered", coverage[0][4])
	assert.Len(t, coverage, 3)

	for name, body := range map[string]map[string]any{
		"from and to":          {"kind": "placed_on_market"},
		"an item":              {"kind": "stock_ledger"},
		"a format of the kind": {"kind": "evidence_coverage", "format": "csv"},
		"an item that exists":  {"kind": "stock_ledger", "item": uuid.NewString()},
		"a period in order":    {"kind": "placed_on_market", "from": "2025-05-01", "to": "2025-04-01"},
		"a kind it knows":      {"kind": "balance_sheet"},
	} {
		assert.Equal(t, http.StatusUnprocessableEntity, d.send(t, http.MethodPost, "/reports", body).Code, "a report needs %s", name)
	}
	other := d.NewTenant(apitest.TenantSpec{})
	res := d.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/reports/" + report["id"].(string)), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}
