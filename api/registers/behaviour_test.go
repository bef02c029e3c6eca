package registers_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
)

func values(res map[string]any) map[string]any { return res["values"].(map[string]any) }

func TestComputedValuesAreTheServicesNotTheClients(t *testing.T) {
	w := newWorld(t, "food_contact")
	valid := validValues(w)

	chem := with(valid["chemical-safety"], "heavy_metals_sum", qty("0", "mg/kg"))
	res := w.create(t, "chemical-safety", w.entry(t, w.item, chem))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	v := values(res.JSON)
	assert.Equal(t, qtyAny("15.9", "mg/kg"), v["heavy_metals_sum"], "12.5 + 1 + 0.4 ppm + 2, whatever the client sent")
	assert.Equal(t, qtyAny("0.4", "mg/kg"), v["mercury"], "ppm is stored as mg/kg")
	assert.Equal(t, qtyAny("20", "ppb"), v["pfas_sum_targeted"], "µg/kg is stored as ppb")
	fields := []string{}
	for _, e := range res.JSON["evidence"].([]any) {
		if f, ok := e.(map[string]any)["field"].(string); ok {
			fields = append(fields, f)
		}
	}
	assert.Contains(t, fields, "values.lab_report", "the laboratory report is the entry's evidence")

	res = w.create(t, "recyclability", w.entry(t, w.item, valid["recyclability"]))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, "B", values(res.JSON)["grade"], "85 % is grade B (Annex II Table 3)")
	res = w.create(t, "recyclability", w.entry(t, w.item, with(valid["recyclability"], "dfr_score", qty("69.99", "%"))))
	assert.Equal(t, "non_recyclable", values(res.JSON)["grade"])

	res = w.create(t, "empty-space", w.entry(t, w.item, valid["empty-space"]))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	v = values(res.JSON)
	assert.Equal(t, qtyAny("6000", "ml"), v["total_volume"], "300 × 200 × 100 mm")
	assert.Equal(t, qtyAny("30", "%"), v["empty_space_ratio"], "(6000 − 4200) / 6000")
	assert.Equal(t, qtyAny("300", "mm"), v["outer_length"], "30 cm is stored as mm")
}

func qtyAny(value, unit string) map[string]any { return map[string]any{"value": value, "unit": unit} }

func TestCrossFieldRulesNameTheirField(t *testing.T) {
	w := newWorld(t, "food_contact")
	valid := validValues(w)
	cases := []struct {
		register string
		values   map[string]any
		field    string
	}{
		{"chemical-safety", without(valid["chemical-safety"], "pfas_total"), "values.pfas_total"},
		{"chemical-safety", with(valid["chemical-safety"], "total_fluorine", qty("50.5", "mg/kg")), "values.fluorine_proof"},
		{"chemical-safety", with(valid["chemical-safety"], "component", w.otherComponent), "values.component"},
		{"chemical-safety", with(valid["chemical-safety"], "lab_report", w.unapproved), "values.lab_report"},
		{"role-duties", with(valid["role-duties"], "scenario", w.otherScenario), "values.scenario"},
		{"role-duties", with(valid["role-duties"], "epr_producer", false), "values.epr_producer"},
		{"recyclability", with(valid["recyclability"], "dfr_score", qty("100.5", "%")), "values.dfr_score.value"},
		{"empty-space", with(valid["empty-space"], "contained_volume", qty("7", "l")), "values.contained_volume"},
		{"minimization", with(valid["minimization"], "false_bottoms", true), "values.exception"},
		{"packaging-classification", with(valid["packaging-classification"], "contact_sensitive", false), "values.contact_sensitive"},
		{"eu-declarations", with(valid["eu-declarations"], "sole_responsibility_statement", false), "values.sole_responsibility_statement"},
		{"reuse-units", with(valid["reuse-units"], "identifier_kind", "batch"), "values.units_in_batch"},
		{"reuse-assessments", with(valid["reuse-assessments"], "criteria", []any{
			map[string]any{"criterion": "11(1)(a)", "met": true}, map[string]any{"criterion": "11(1)(a)", "met": false}}), "values.criteria.1.criterion"},
	}
	for _, c := range cases {
		res := w.create(t, c.register, w.entry(t, w.item, c.values))
		require.Equal(t, http.StatusUnprocessableEntity, res.Code, "%s %s: %s", c.register, c.field, res.Body.String())
		assert.Contains(t, res.FieldErrors(), c.field, "%s: %s", c.register, res.Body.String())
	}
	assert.Zero(t, countEntries(t, w), "a refused entry writes nothing")
}

func countEntries(t *testing.T, w *world) int64 {
	var n int64
	require.NoError(t, w.DB.Table("ppwr_register_entries").Where("catalog_item_id = ?", w.item).Count(&n).Error)
	return n
}

func TestEmptySpaceDimensionsComeFromAcceptedEvidence(t *testing.T) {
	w := newWorld(t, "not_food_contact")
	body := without(without(without(validValues(w)["empty-space"], "outer_length"), "outer_width"), "outer_height")
	res := w.create(t, "empty-space", w.entry(t, w.item, body))
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, "without evidence the dimensions are required")
	assert.Contains(t, res.FieldErrors(), "values.outer_length")

	length := w.acceptedProposal(t, w.item, "LENGTH_MM", "300", "mm")
	w.acceptedProposal(t, w.item, "WIDTH_MM", "200", "mm")
	w.acceptedProposal(t, w.item, "HEIGHT_MM", "100", "mm")
	res = w.create(t, "empty-space", w.entry(t, w.item, body))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	assert.Equal(t, qtyAny("300", "mm"), values(res.JSON)["outer_length"])
	assert.Equal(t, qtyAny("30", "%"), values(res.JSON)["empty_space_ratio"])
	var cited map[string]any
	for _, e := range res.JSON["evidence"].([]any) {
		if e.(map[string]any)["id"] == length {
			cited = e.(map[string]any)
		}
	}
	require.NotNil(t, cited, "the proposal that filled the length is cited")
	assert.Equal(t, "values.outer_length", cited["field"])
	assert.Equal(t, float64(2), cited["page"])
	assert.Equal(t, "LENGTH_MM", cited["code"])
}

func TestRejectionOpensAnIssueThatAnAcceptedCorrectionResolves(t *testing.T) {
	w := newWorld(t, "not_food_contact")
	base := "/catalog-items/" + w.item + "/ppwr/recyclability"
	valid := validValues(w)["recyclability"]
	res := w.create(t, "recyclability", w.entry(t, w.item, valid))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	first := res.JSON["id"].(string)

	res = w.send(t, w.reviewer, http.MethodPost, base+"/"+first+"/review", map[string]any{"decision": "rejected", "revision": 1})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code, "a decision says why")
	assert.Contains(t, res.FieldErrors(), "reason")
	res = w.send(t, w.reviewer, http.MethodPost, base+"/"+first+"/review", map[string]any{"decision": "rejected", "reason": "Brak raportu DfR", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	issues := w.openIssues(t)
	require.Len(t, issues, 1)
	assert.Equal(t, "register_entry_rejected", issues[0]["kind"])

	body := w.entry(t, w.item, with(valid, "dfr_score", qty("96", "%")))
	body["supersedes"] = first
	res = w.create(t, "recyclability", body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	correction := res.JSON["id"].(string)
	assert.Equal(t, first, res.JSON["supersedes"])
	res = w.get(t, base+"/"+first)
	assert.Equal(t, "superseded", res.JSON["status"])
	assert.Equal(t, correction, res.JSON["superseded_by"])
	res = w.create(t, "recyclability", body)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a superseded entry is not corrected twice")
	assert.Contains(t, res.FieldErrors(), "supersedes")

	res = w.get(t, base+"?current=true")
	require.Len(t, res.JSON["data"], 1, "only the correction is current")
	assert.Equal(t, correction, res.JSON["data"].([]any)[0].(map[string]any)["id"])

	res = w.send(t, w.reviewer, http.MethodPost, base+"/"+correction+"/review", map[string]any{"decision": "accepted", "reason": "OK", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Empty(t, w.openIssues(t), "accepting the correction resolves the rejection's issue")
	assert.Subset(t, w.EventTypes(w.tn.Org), []string{"ppwr_register_entry.created", "ppwr_register_entry.reviewed", "compliance_issue.opened", "compliance_issue.resolved"})
}

func (w *world) openIssues(t *testing.T) []map[string]any {
	t.Helper()
	res := w.get(t, "/issues?status=open")
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	var out []map[string]any
	for _, i := range res.JSON["data"].([]any) {
		out = append(out, i.(map[string]any))
	}
	return out
}

func TestANewItemRevisionMarksEntriesAsBasedOnAnOlderOne(t *testing.T) {
	w := newWorld(t, "not_food_contact")
	res := w.create(t, "biobased", w.entry(t, w.item, validValues(w)["biobased"]))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	id := res.JSON["id"].(string)
	res = w.send(t, w.tn, http.MethodPost, "/catalog-items/"+w.item+"/components", map[string]any{"name": "Etykieta", "role": "label",
		"materialCode": "PAPER_CARDBOARD", "massG": "1"})
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	res = w.get(t, "/catalog-items/"+w.item+"/ppwr/biobased/"+id)
	assert.Equal(t, false, res.JSON["based_on_current_revision"])
}

func TestAnotherOrganizationSeesNoEntry(t *testing.T) {
	w := newWorld(t, "not_food_contact")
	res := w.create(t, "biobased", w.entry(t, w.item, validValues(w)["biobased"]))
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	other := w.NewTenant(apitest.TenantSpec{})
	path := "/organizations/" + other.Org.String() + "/catalog-items/" + w.item + "/ppwr/biobased/" + res.JSON["id"].(string)
	got := w.Do(apitest.Req{Method: http.MethodGet, Path: path, Token: other.Token})
	assert.Equal(t, http.StatusNotFound, got.Code)
}
