package ppwr_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/records"
	"ppwr/domain/reports"
)

// eprWorld is an organization with a second user who reviews, and items
// whose accepted packaging classification names an Annex II category.
type eprWorld struct {
	*desk
	// flows are the flows posted, to compute what the reports must hold.
	flows []eprFlow
}

type eprFlow struct {
	key, country, day, kind string
	category                *int
	material                string
	mass                    decimal.Decimal
}

func newEPRWorld(t *testing.T) *eprWorld { return &eprWorld{desk: newDesk(t)} }

// item creates an item of the material and, when category is set, its
// packaging classification with that Annex II category, accepted by the
// reviewer.
func (w *eprWorld) item(t *testing.T, material, family string, category *int) string {
	t.Helper()
	res := w.send(t, w.tn, http.MethodPost, "/catalog-items", map[string]any{"internalCode": "EPR-" + uuid.NewString()[:8], "name": "Opakowanie",
		"sourcingType": "own_production", "massG": "100", "mainMaterialCode": material, "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "not_food_contact"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	if category == nil {
		return id
	}
	base := "/catalog-items/" + id + "/ppwr/packaging-classification"
	res = w.send(t, w.tn, http.MethodPost, base, map[string]any{"catalog_revision": res.JSON["revision"], "method": "test_method",
		"values": map[string]any{"packaging_function": "sales", "is_packaging": true, "reuse_type": "single_use",
			"contact_sensitive": false, "food_contact": false, "annex_ii_category": *category, "predominant_material": family,
			"composite": false}})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	res = w.send(t, w.reviewer, http.MethodPost, base+"/"+res.JSON["id"].(string)+"/review", map[string]any{"decision": "accepted", "reason": "OK", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return id
}

// flow posts a direct flow and remembers it.
func (w *eprWorld) flow(t *testing.T, item string, category *int, material, kind, country, day, mass string) {
	t.Helper()
	res := w.send(t, w.tn, http.MethodPost, "/flows", map[string]any{"item": item, "kind": kind, "quantity": "1", "unit": "piece", "mass_g": mass,
		"country": country, "event_on": day})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	w.flows = append(w.flows, eprFlow{key: "flow:" + res.JSON["id"].(string), country: country, day: day, kind: kind,
		category: category, material: material, mass: decimal.RequireFromString(mass)})
}

// expected is what a report of the country and the days [from, to] must
// hold per category and material: the sum of those flows and their keys.
func (w *eprWorld) expected(country, from, to string, kinds ...string) map[string]eprFlowSum {
	out := map[string]eprFlowSum{}
	for _, f := range w.flows {
		if f.country != country || f.day < from || f.day > to || (len(kinds) > 0 && !contains(kinds, f.kind)) {
			continue
		}
		k := lineKey(f.category, f.material)
		s := out[k]
		s.mass, s.keys = s.mass.Add(f.mass), append(s.keys, f.key)
		out[k] = s
	}
	return out
}

type eprFlowSum struct {
	mass decimal.Decimal
	keys []string
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func lineKey(category *int, material string) string {
	if category == nil {
		return "none/" + material
	}
	return strconv.Itoa(*category) + "/" + material
}

// lines reads every line of a report and the report the list carries.
func (w *eprWorld) lines(t *testing.T, report string) ([]map[string]any, map[string]any) {
	t.Helper()
	res := w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+report+"/lines?per_page=100", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	var out []map[string]any
	for _, l := range res.JSON["data"].([]any) {
		out = append(out, l.(map[string]any))
	}
	return out, res.JSON["report"].(map[string]any)
}

// flowLines are the lines from flows keyed as lineKey does.
func flowLines(t *testing.T, lines []map[string]any) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, l := range lines {
		if l["source"] != "flows" {
			continue
		}
		var category *int
		if c, ok := l["category"].(float64); ok {
			n := int(c)
			category = &n
		}
		k := lineKey(category, l["material_code"].(string))
		require.NotContains(t, out, k, "one line per category and material")
		out[k] = l
	}
	return out
}

func intp(n int) *int { return &n }

// The report's lines are the sums of the year's flows into its market,
// per Annex II category and material, whatever another year or market
// holds; a period, the kinds of flow and items without a category are
// taken into account.
func TestEPRReportLinesAreTheFlowsOfTheYearAndMarket(t *testing.T) {
	w := newEPRWorld(t)
	glass, pet := intp(1), intp(7)
	jar, bottle, box := w.item(t, "GLASS_CLEAR", "glass", glass), w.item(t, "PLASTIC_PET", "plastic", pet), w.item(t, "PAPER_CARDBOARD", "paper_board", nil)
	w.flow(t, jar, glass, "GLASS_CLEAR", "placed", "PL", "2025-01-03", "1500.5")
	w.flow(t, jar, glass, "GLASS_CLEAR", "used", "PL", "2025-12-31", "2499.5")
	w.flow(t, jar, glass, "GLASS_CLEAR", "placed", "PL", "2025-06-15", "0.001")
	w.flow(t, bottle, pet, "PLASTIC_PET", "placed", "PL", "2025-03-01", "300.25")
	w.flow(t, bottle, pet, "PLASTIC_PET", "used", "PL", "2025-07-01", "99.75")
	w.flow(t, box, nil, "PAPER_CARDBOARD", "placed", "PL", "2025-05-05", "100")
	w.flow(t, jar, glass, "GLASS_CLEAR", "placed", "DE", "2025-02-02", "1000000")
	w.flow(t, bottle, pet, "PLASTIC_PET", "placed", "PL", "2024-12-31", "7777")
	w.flow(t, jar, glass, "GLASS_CLEAR", "placed", "PL", "2026-01-01", "5555")

	check := func(t *testing.T, body map[string]any, want map[string]eprFlowSum, wantTotal string) {
		t.Helper()
		res := w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", body)
		require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
		report := res.JSON
		id := report["id"].(string)
		assert.Equal(t, apitest.Base+w.tn.Path("/ppwr/epr-reports/"+id+"/lines"), res.Header().Get("Location"))
		lines, listed := w.lines(t, id)
		assert.Equal(t, report, listed, "the lines list carries the report as created")
		got := flowLines(t, lines)
		require.Len(t, got, len(want), "%v", lines)
		total, flows := decimal.Zero, 0
		for k, s := range want {
			l := got[k]
			require.NotNil(t, l, k)
			assert.Equal(t, s.mass.String(), l["mass_g"], k)
			assert.Equal(t, len(s.keys), int(l["flow_count"].(float64)), k)
			assert.ElementsMatch(t, s.keys, l["flow_sample"], k)
			assert.Equal(t, records.GramsToKg(s.mass).String(), l["mass_kg"], k)
			assert.Equal(t, records.GramsToT(s.mass).String(), l["mass_t"], k)
			assert.Nil(t, l["reason"])
			total, flows = total.Add(s.mass), flows+len(s.keys)
		}
		assert.Equal(t, wantTotal, total.String(), "the test's own sum")
		assert.Equal(t, wantTotal, report["total_g"])
		assert.Equal(t, float64(flows), report["flow_count"])
		assert.Equal(t, float64(len(want)), report["line_count"])
		assert.Equal(t, "simplified", report["form"])
		assert.Equal(t, "10", report["form_threshold_t"])
		assert.Contains(t, report["form_basis"], "Art. 44(8)")
		assert.Equal(t, "unreviewed", report["review_status"])
		if s, ok := want[lineKey(nil, "PAPER_CARDBOARD")]; ok {
			assert.Equal(t, []any{map[string]any{"code": "flows_without_category", "count": float64(len(s.keys)), "flows": []any{s.keys[0]}}},
				report["warnings"])
		} else {
			assert.Equal(t, []any{}, report["warnings"])
		}
	}

	t.Run("the calendar year, both kinds", func(t *testing.T) {
		want := w.expected("PL", "2025-01-01", "2025-12-31")
		require.Len(t, want, 3)
		assert.Equal(t, "4000.001", want[lineKey(glass, "GLASS_CLEAR")].mass.String(), "the year's flows, not 2024's or 2026's, nor DE's")
		check(t, map[string]any{"country": "PL", "year": 2025}, want, "4500.001")
	})
	t.Run("a part of the year", func(t *testing.T) {
		check(t, map[string]any{"country": "PL", "year": 2025, "period_from": "2025-01-01", "period_to": "2025-06-30"},
			w.expected("PL", "2025-01-01", "2025-06-30"), "1900.751")
	})
	t.Run("placed flows only", func(t *testing.T) {
		check(t, map[string]any{"country": "PL", "year": 2025, "flow_kinds": []string{"placed"}},
			w.expected("PL", "2025-01-01", "2025-12-31", "placed"), "1900.751")
	})
	t.Run("another market", func(t *testing.T) {
		check(t, map[string]any{"country": "DE", "year": 2025}, w.expected("DE", "2025-01-01", "2025-12-31"), "1000000")
	})
	t.Run("a market without flows", func(t *testing.T) {
		check(t, map[string]any{"country": "FR", "year": 2025}, map[string]eprFlowSum{}, "0")
	})

	assert.Contains(t, w.EventTypes(w.tn.Org), "epr_report.created")
	assert.NotEmpty(t, w.AuditEntries(w.tn.Org, "createEPRReport"))
}

// The form is simplified below 10 t and full from 10 t ("less than 10
// tonnes", Art. 44(8)), from the flows and as manual lines move the total;
// manual lines need a reason and the report's revision.
func TestEPRReportFormAndManualLines(t *testing.T) {
	w := newEPRWorld(t)
	jar := w.item(t, "GLASS_CLEAR", "glass", intp(1))
	w.flow(t, jar, intp(1), "GLASS_CLEAR", "placed", "FR", "2025-04-01", "10000000")
	w.flow(t, jar, intp(1), "GLASS_CLEAR", "placed", "DE", "2025-04-01", "1000000")

	res := w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", map[string]any{"country": "FR", "year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, "full", res.JSON["form"], "exactly 10 t is the full form")
	assert.Equal(t, "10", res.JSON["total_t"])

	res = w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", map[string]any{"country": "DE", "year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	report := res.JSON
	id := report["id"].(string)
	assert.Equal(t, "simplified", report["form"])

	line := func(body map[string]any) *apitest.Response {
		return w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports/"+id+"/lines", body)
	}
	res = line(map[string]any{"category": 20, "material": "WOOD_PALLET", "mass_g": "8999999.999", "reason": "Palety spoza systemu", "revision": 1})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	added := res.JSON["line"].(map[string]any)
	assert.Equal(t, "manual", added["source"])
	assert.Equal(t, float64(20), added["category"])
	assert.Equal(t, "WOOD_PALLET", added["material_code"])
	assert.Equal(t, "Palety spoza systemu", added["reason"])
	assert.Equal(t, float64(0), added["flow_count"])
	assert.Equal(t, "8999999.999", added["mass_g"])
	assert.Equal(t, "9000", added["mass_kg"], "kg rounded half away from zero to 3 decimals")
	assert.Equal(t, "9", added["mass_t"], "tonnes rounded to 6 decimals")
	report = res.JSON["report"].(map[string]any)
	assert.Equal(t, "9999999.999", report["total_g"])
	assert.Equal(t, "simplified", report["form"], "below 10 t by a milligram")
	assert.Equal(t, float64(2), report["revision"])
	assert.Equal(t, float64(2), report["line_count"])

	assert.Equal(t, http.StatusConflict, line(map[string]any{"category": 1, "mass_g": "1", "reason": "x", "revision": 1}).Code, "a stale revision")
	res = line(map[string]any{"category": 1, "mass_g": "0.001", "reason": "Korekta", "revision": 2})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Nil(t, res.JSON["line"].(map[string]any)["material_code"])
	report = res.JSON["report"].(map[string]any)
	assert.Equal(t, "10000000", report["total_g"])
	assert.Equal(t, "full", report["form"], "10 t reached by hand")

	lines, listed := w.lines(t, id)
	require.Len(t, lines, 3)
	assert.Equal(t, []any{"flows", "manual", "manual"}, []any{lines[0]["source"], lines[1]["source"], lines[2]["source"]}, "in the order added")
	assert.Equal(t, report, listed)
	assert.Contains(t, w.EventTypes(w.tn.Org), "epr_report.line_added")

	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"no reason":      {map[string]any{"category": 1, "mass_g": "1", "revision": 3}, "reason"},
		"blank reason":   {map[string]any{"category": 1, "mass_g": "1", "reason": " ", "revision": 3}, "reason"},
		"category 23":    {map[string]any{"category": 23, "mass_g": "1", "reason": "x", "revision": 3}, "category"},
		"no category":    {map[string]any{"mass_g": "1", "reason": "x", "revision": 3}, "category"},
		"zero mass":      {map[string]any{"category": 1, "mass_g": "0", "reason": "x", "revision": 3}, "mass_g"},
		"mass as number": {map[string]any{"category": 1, "mass_g": 5, "reason": "x", "revision": 3}, "mass_g"},
		"unknown":        {map[string]any{"category": 1, "material": "KRYPTONITE", "mass_g": "1", "reason": "x", "revision": 3}, "material"},
		"no revision":    {map[string]any{"category": 1, "mass_g": "1", "reason": "x"}, "revision"},
	} {
		res := line(c.body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.FieldErrors(), c.field, name)
	}
}

// Review is four-eyes and decided once; a rejected report is corrected by
// a line, an approved one takes no more.
func TestEPRReportReview(t *testing.T) {
	w := newEPRWorld(t)
	res := w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", map[string]any{"country": "PL", "year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	review := func(tn apitest.Tenant, body map[string]any) *apitest.Response {
		return w.send(t, tn, http.MethodPost, "/ppwr/epr-reports/"+id+"/review", body)
	}

	res = review(w.tn, map[string]any{"decision": "approved", "reason": "Sam sobie", "revision": 1})
	assert.Equal(t, http.StatusForbidden, res.Code)
	assert.Equal(t, "separate_reviewer_required", res.ErrorCode())
	assert.Equal(t, http.StatusConflict, review(w.reviewer, map[string]any{"decision": "approved", "reason": "x", "revision": 2}).Code)
	res = review(w.reviewer, map[string]any{"decision": "accepted", "reason": "x", "revision": 1})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "decision")
	res = review(w.reviewer, map[string]any{"decision": "approved", "revision": 1})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "reason")

	res = review(w.reviewer, map[string]any{"decision": "rejected", "reason": "Brak palet", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "rejected", res.JSON["review_status"])
	assert.Equal(t, "Brak palet", res.JSON["review_reason"])
	assert.Equal(t, w.reviewer.User.String(), res.JSON["reviewed_by"])
	assert.Equal(t, float64(2), res.JSON["revision"])
	res = review(w.reviewer, map[string]any{"decision": "approved", "reason": "x", "revision": 2})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "epr_report_reviewed", res.ErrorCode())

	res = w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports/"+id+"/lines", map[string]any{"category": 20, "mass_g": "5000", "reason": "Palety", "revision": 2})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	report := res.JSON["report"].(map[string]any)
	assert.Equal(t, "unreviewed", report["review_status"], "the correction returns to review")
	assert.Nil(t, report["reviewed_at"])

	res = review(w.reviewer, map[string]any{"decision": "approved", "reason": "Zgodne", "revision": 3})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "approved", res.JSON["review_status"])
	_, listed := w.lines(t, id)
	assert.Equal(t, res.JSON, listed)

	res = w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports/"+id+"/lines", map[string]any{"category": 1, "mass_g": "1", "reason": "Za późno", "revision": 4})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Equal(t, "epr_report_approved", res.ErrorCode())
	assert.Contains(t, w.EventTypes(w.tn.Org), "epr_report.reviewed")
}

// The export is the report and its lines, in CSV (default) and XLSX.
func TestEPRReportExport(t *testing.T) {
	w := newEPRWorld(t)
	jar, box := w.item(t, "GLASS_CLEAR", "glass", intp(1)), w.item(t, "PAPER_CARDBOARD", "paper_board", nil)
	w.flow(t, jar, intp(1), "GLASS_CLEAR", "placed", "PL", "2025-04-01", "1234.5678")
	w.flow(t, box, nil, "PAPER_CARDBOARD", "placed", "PL", "2025-04-02", "10")
	res := w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", map[string]any{"country": "PL", "year": 2025})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	res = w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports/"+id+"/lines", map[string]any{"category": 2, "mass_g": "500", "reason": "Kartony, zwrot", "revision": 1})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	lines, report := w.lines(t, id)
	require.Len(t, lines, 3)

	wantHeader := map[string]string{"report": id, "country": "PL", "year": "2025", "period_from": "2025-01-01", "period_to": "2025-12-31",
		"flow_kinds": "placed used", "form": "simplified", "form_threshold_t": "10", "total_g": "1744.5678", "total_kg": "1.745",
		"total_t": "0.001745", "flow_count": "2", "line_count": "3", "warnings": "flows_without_category: 1",
		"review_status": "unreviewed", "revision": "2"}
	assert.Equal(t, wantHeader["total_g"], report["total_g"])
	wantLines := [][]string{{"line", "source", "category", "material_code", "mass_g", "mass_kg", "mass_t", "flow_count", "flow_sample", "reason"}}
	for _, l := range lines {
		category, material, reason, sample := "", "", "", ""
		if c, ok := l["category"].(float64); ok {
			category = strconv.Itoa(int(c))
		}
		if m, ok := l["material_code"].(string); ok {
			material = m
		}
		if r, ok := l["reason"].(string); ok {
			reason = r
		}
		for i, k := range l["flow_sample"].([]any) {
			if i > 0 {
				sample += " "
			}
			sample += k.(string)
		}
		wantLines = append(wantLines, []string{l["id"].(string), l["source"].(string), category, material, l["mass_g"].(string),
			l["mass_kg"].(string), l["mass_t"].(string), strconv.Itoa(int(l["flow_count"].(float64))), sample, reason})
	}
	// The simplified form's table: glass from the jar's flow, paper from
	// the box's (without a category), and the manual line without a
	// material apart.
	wantGroups := [][]string{{"material_group", "mass_g", "mass_kg", "mass_t"},
		{"glass", "1234.5678", "1.235", "0.001235"}, {"plastic", "0", "0", "0"}, {"paper_cardboard", "10", "0.01", "0.00001"},
		{"ferrous_metal", "0", "0", "0"}, {"aluminium", "0", "0", "0"}, {"wood", "0", "0", "0"}, {"other", "0", "0", "0"},
		{"unspecified", "500", "0.5", "0.0005"}, {"total", "1744.5678", "1.745", "0.001745"}}
	page := w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+id+"/lines", nil)
	require.Equal(t, http.StatusOK, page.Code, page.Body.String())
	for i, g := range page.JSON["material_groups"].([]any) {
		assert.Equal(t, wantGroups[i+1], []string{g.(map[string]any)["group"].(string), g.(map[string]any)["mass_g"].(string),
			g.(map[string]any)["mass_kg"].(string), g.(map[string]any)["mass_t"].(string)})
	}
	assert.Len(t, page.JSON["material_groups"], len(wantGroups)-2, "every group and unspecified; the total is the report's")
	checkHeader := func(t *testing.T, rows [][]string) {
		t.Helper()
		require.Equal(t, []string{"field", "value"}, rows[0])
		got := map[string]string{}
		for _, r := range rows[1:] {
			require.Len(t, r, 2)
			got[r[0]] = r[1]
		}
		for k, v := range wantHeader {
			assert.Equal(t, v, got[k], k)
		}
		assert.Contains(t, got["notice"], "nothing has been filed")
		assert.Contains(t, got["rounding"], "half away from zero")
	}

	res = w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+id+"/export", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "text/csv", res.Header().Get("Content-Type"))
	assert.Contains(t, res.Header().Get("Content-Disposition"), "epr-PL-2025-"+id+".csv")
	r := csv.NewReader(bytes.NewReader(res.Body.Bytes()))
	r.FieldsPerRecord = -1
	rows, err := r.ReadAll()
	require.NoError(t, err)
	split, groups := -1, -1
	for i, row := range rows {
		switch row[0] {
		case "line":
			split = i
		case "material_group":
			groups = i
		}
	}
	require.Positive(t, split, "the lines table follows the report")
	require.Greater(t, groups, split, "the material groups follow the lines")
	checkHeader(t, rows[:split])
	assert.Equal(t, wantLines, rows[split:groups], "the blank rows between the tables are skipped by the reader")
	assert.Equal(t, wantGroups, rows[groups:])

	res = w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+id+"/export?format=xlsx", nil)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, reports.XLSXType, res.Header().Get("Content-Type"))
	assert.Contains(t, res.Header().Get("Content-Disposition"), ".xlsx")
	sheets := apitest.ReadXLSX(t, res.Body.Bytes())
	require.Len(t, sheets, 3)
	checkHeader(t, sheets["report"])
	assert.Equal(t, wantLines, sheets["lines"])
	assert.Equal(t, wantGroups, sheets["material_groups"])
	// Masses and counts are number cells holding the report's digits.
	lineCells := apitest.ReadXLSXCells(t, res.Body.Bytes(), "lines")
	require.Len(t, lineCells, len(wantLines))
	for i, row := range lineCells[1:] {
		for c := 4; c <= 7; c++ {
			assert.Equal(t, apitest.XLSXCell{Text: wantLines[i+1][c], Number: true}, row[c], "line %d, %s", i, wantLines[0][c])
		}
		assert.False(t, row[0].Number)
	}
	for i, row := range apitest.ReadXLSXCells(t, res.Body.Bytes(), "material_groups")[1:] {
		for c := 1; c <= 3; c++ {
			assert.True(t, row[c].Number, "%s %s", row[0].Text, wantGroups[0][c])
		}
		assert.Equal(t, wantGroups[i+1][3], row[3].Text, "%s in tonnes, as written", row[0].Text)
	}
	numbers := map[string]apitest.XLSXCell{}
	for _, row := range apitest.ReadXLSXCells(t, res.Body.Bytes(), "report")[1:] {
		if len(row) == 2 { // an empty value ends the row
			numbers[row[0].Text] = row[1]
		}
	}
	for _, field := range []string{"year", "form_threshold_t", "total_g", "total_kg", "total_t", "flow_count", "line_count", "revision"} {
		assert.Equal(t, apitest.XLSXCell{Text: wantHeader[field], Number: true}, numbers[field], field)
	}
	assert.False(t, numbers["country"].Number)

	res = w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+id+"/export?format=pdf", nil)
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "format")
}

// A report's body is checked field by field, and another organization's
// report is not found by any operation.
func TestEPRReportRefusals(t *testing.T) {
	w := newEPRWorld(t)
	next := strconv.Itoa(time.Now().UTC().Year() + 1)
	for name, c := range map[string]struct {
		body  map[string]any
		field string
	}{
		"not a Member State":    {map[string]any{"country": "US", "year": 2025}, "country"},
		"unknown country":       {map[string]any{"country": "XX", "year": 2025}, "country"},
		"lower case":            {map[string]any{"country": "pl", "year": 2025}, "country"},
		"no country":            {map[string]any{"year": 2025}, "country"},
		"no year":               {map[string]any{"country": "PL"}, "year"},
		"future year":           {map[string]any{"country": "PL", "year": time.Now().UTC().Year() + 1}, "year"},
		"year as text":          {map[string]any{"country": "PL", "year": "2025"}, "year"},
		"from in another year":  {map[string]any{"country": "PL", "year": 2025, "period_from": "2024-12-31"}, "period_from"},
		"to in another year":    {map[string]any{"country": "PL", "year": 2025, "period_to": "2026-01-01"}, "period_to"},
		"from in a future year": {map[string]any{"country": "PL", "year": 2025, "period_from": next + "-01-01"}, "period_from"},
		"to before from":        {map[string]any{"country": "PL", "year": 2025, "period_from": "2025-05-01", "period_to": "2025-04-30"}, "period_to"},
		"unknown flow kind":     {map[string]any{"country": "PL", "year": 2025, "flow_kinds": []string{"sold"}}, "flow_kinds"},
		"empty flow kinds":      {map[string]any{"country": "PL", "year": 2025, "flow_kinds": []string{}}, "flow_kinds"},
		"not a date":            {map[string]any{"country": "PL", "year": 2025, "period_from": "2025-02-30"}, "period_from"},
		"year before the range": {map[string]any{"country": "PL", "year": 2023}, "year"},
	} {
		res := w.send(t, w.tn, http.MethodPost, "/ppwr/epr-reports", c.body)
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, name)
		assert.Contains(t, res.FieldErrors(), c.field, name)
	}

	key := apitest.IdemKey()
	create := func() *apitest.Response {
		return w.Do(apitest.Req{Method: http.MethodPost, Path: w.tn.Path("/ppwr/epr-reports"), Token: w.tn.Token,
			Body: map[string]any{"country": "PL", "year": 2025}, Headers: map[string]string{"Idempotency-Key": key}})
	}
	first := create()
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	again := create()
	assert.Equal(t, first.JSON["id"], again.JSON["id"], "a retried create is the same report")
	id := first.JSON["id"].(string)

	for name, res := range map[string]*apitest.Response{
		"lines":   w.send(t, w.other, http.MethodGet, "/ppwr/epr-reports/"+id+"/lines", nil),
		"export":  w.send(t, w.other, http.MethodGet, "/ppwr/epr-reports/"+id+"/export", nil),
		"line":    w.send(t, w.other, http.MethodPost, "/ppwr/epr-reports/"+id+"/lines", map[string]any{"category": 1, "mass_g": "1", "reason": "x", "revision": 1}),
		"review":  w.send(t, w.other, http.MethodPost, "/ppwr/epr-reports/"+id+"/review", map[string]any{"decision": "approved", "reason": "x", "revision": 1}),
		"unknown": w.send(t, w.tn, http.MethodGet, "/ppwr/epr-reports/"+uuid.NewString()+"/lines", nil),
	} {
		assert.Equal(t, http.StatusNotFound, res.Code, name)
	}
	lines, report := w.lines(t, id)
	assert.Empty(t, lines)
	assert.Equal(t, float64(1), report["revision"], "nothing changed it")
}
