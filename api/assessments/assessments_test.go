package assessments_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/internal/access"
	"ppwr/internal/work"
)

// bench is a food-contact jar with a glass body and a plastic closure on
// the Polish market, and a second user who reviews.
type bench struct {
	*apitest.API
	tn, reviewer    apitest.Tenant
	item            string
	body, closure   string
	scenario, proof string
}

func newBench(t *testing.T) *bench { return newJar(t, "own_production") }

// newJar is the bench whose jar reaches the organization as sourcing
// says, on an API with the options, on the Polish market.
func newJar(t *testing.T, sourcing string, opts ...apitest.Option) *bench {
	b := newBenchOf(t, map[string]any{"internalCode": "JAR-" + uuid.NewString()[:8], "name": "Słoik 500 ml",
		"sourcingType": sourcing, "massG": "184", "mainMaterialCode": "GLASS", "stockUnit": "piece",
		"reuseType": "single_use", "foodContactStatus": "food_contact"}, opts...)
	b.body = b.created(t, b.tn, "/catalog-items/"+b.item+"/components", map[string]any{"name": "Korpus", "role": "body", "materialCode": "GLASS", "massG": "180"})["id"].(string)
	b.closure = b.created(t, b.tn, "/catalog-items/"+b.item+"/components", map[string]any{"name": "Zakrętka", "role": "closure", "materialCode": "PLASTIC_PP", "massG": "4"})["id"].(string)
	b.market(t, "PL")
	return b
}

// newBenchOf is a bench, on an API with the options, whose item is made
// of the body given, with no component and no market yet.
func newBenchOf(t *testing.T, item map[string]any, opts ...apitest.Option) *bench {
	a := apitest.New(t, opts...)
	b := &bench{API: a, tn: a.NewTenant(apitest.TenantSpec{})}
	b.reviewer = a.AddUser(b.tn.Org, apitest.TenantSpec{Role: access.Member, Permissions: []string{
		string(access.EvidenceReviewPerm), string(access.CatalogView), string(access.AssessmentsPublish), string(access.AssessmentsView)}})
	b.item = b.created(t, b.tn, "/catalog-items", item)["id"].(string)
	b.proof = a.StoredVersion(b.tn.Org, documents.ReviewApproved)
	return b
}

// market puts the item on the market of the country, its scenario.
func (b *bench) market(t *testing.T, country string) {
	t.Helper()
	res := b.send(t, b.tn, http.MethodPut, "/catalog-items/"+b.item+"/markets", map[string]any{"market_revision": b.revision(t), "markets": []string{country}})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	b.scenario = res.JSON["markets"].([]any)[0].(map[string]any)["id"].(string)
}

func (b *bench) send(t *testing.T, tn apitest.Tenant, method, path string, body any) *apitest.Response {
	t.Helper()
	return b.Do(apitest.Req{Method: method, Path: tn.Path(path), Token: tn.Token, Body: body, Headers: map[string]string{"Idempotency-Key": apitest.IdemKey()}})
}

func (b *bench) created(t *testing.T, tn apitest.Tenant, path string, body any) map[string]any {
	t.Helper()
	res := b.send(t, tn, http.MethodPost, path, body)
	require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
	return res.JSON
}

func (b *bench) get(t *testing.T, path string) map[string]any {
	t.Helper()
	res := b.Do(apitest.Req{Method: http.MethodGet, Path: b.tn.Path(path), Token: b.tn.Token})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return res.JSON
}

func (b *bench) revision(t *testing.T) int {
	return int(b.get(t, "/catalog-items/"+b.item)["revision"].(float64))
}

// accepted records a register entry, superseding another when given, and
// has the reviewer accept it.
func (b *bench) accepted(t *testing.T, register string, values map[string]any, supersedes string) string {
	t.Helper()
	body := map[string]any{"catalog_revision": b.revision(t), "method": "test_method", "values": values}
	if supersedes != "" {
		body["supersedes"] = supersedes
	}
	path := "/catalog-items/" + b.item + "/ppwr/" + register
	id := b.created(t, b.tn, path, body)["id"].(string)
	res := b.send(t, b.reviewer, http.MethodPost, path+"/"+id+"/review", map[string]any{"decision": "accepted", "reason": "Sprawdzone", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	return id
}

func qty(value, unit string) map[string]any { return map[string]any{"value": value, "unit": unit} }

func (b *bench) chemistry(component, pfas string) map[string]any {
	return map[string]any{"component": component, "lab_report": b.proof, "lab_name": "Laboratorium", "sampling_date": "2026-10-01",
		"lead": qty("10", "mg/kg"), "cadmium": qty("1", "mg/kg"), "mercury": qty("1", "mg/kg"), "chromium_vi": qty("1", "mg/kg"),
		"pfas_max_individual": qty(pfas, "ppb"), "pfas_sum_targeted": qty("40", "ppb"), "pfas_total": qty("2", "ppm"),
		"total_fluorine": qty("5", "mg/kg"), "no_substances_of_concern": true}
}

// complete fills every register the item's rules read in force today
// (not the organization's compliance profile); it returns the closure's
// chemical-safety entry.
func (b *bench) complete(t *testing.T) string {
	b.accepted(t, "packaging-classification", map[string]any{"packaging_function": "sales", "is_packaging": true, "reuse_type": "single_use",
		"contact_sensitive": true, "contact_sensitive_basis": "food_contact", "food_contact": true, "annex_ii_category": 1,
		"predominant_material": "glass", "composite": false}, "")
	b.accepted(t, "chemical-safety", b.chemistry(b.body, "3"), "")
	closure := b.accepted(t, "chemical-safety", b.chemistry(b.closure, "3"), "")
	b.dossier(t)
	b.accepted(t, "eu-declarations", map[string]any{"declaration_number": "DoC-1", "packaging_identification": "Słoik 500 ml",
		"manufacturer": "Huta Szkła S.A.", "sole_responsibility_statement": true, "object_description": "Słoik",
		"union_legislation": "Regulation (EU) 2025/40", "languages": "pl", "signature_status": "unsigned", "placed_on_market_on": "2026-09-01"}, "")
	b.accepted(t, "communications", map[string]any{"identifier": "LOT-2026-11", "manufacturer_contact_marked": true,
		"labels": []any{map[string]any{"type": "harmonised_material_label", "artwork": b.proof}}, "misleading_marks_checked": true}, "")
	b.accepted(t, "minimization", b.minimised(), "")
	b.accepted(t, "role-duties", map[string]any{"scenario": b.scenario, "economic_roles": []string{"manufacturer", "producer"},
		"micro_enterprise": false, "epr_producer": true, "epr_registration_number": "000012345"}, "")
	b.accepted(t, "restricted-formats", map[string]any{"plastic": false, "single_use": true, "use_context": "none"}, "")
	return closure
}

// minimised is a complete Annex IV assessment of the jar: its mass
// within the justified minimum and no feature that only adds volume.
func (b *bench) minimised() map[string]any {
	return map[string]any{"mass": qty("184", "g"), "minimum_mass": qty("180", "g"), "batch_variation": qty("3", "%"),
		"criteria":     []any{map[string]any{"criterion": "product protection", "limiting_requirement": "drop test from 1.2 m"}},
		"double_walls": false, "false_bottoms": false, "unnecessary_layers": false}
}

// dossier records complete, accepted technical documentation.
func (b *bench) dossier(t *testing.T) {
	elements := []any{}
	for _, e := range []string{"TD-a", "TD-b", "TD-c", "TD-d", "TD-e", "TD-f", "TD-risk", "TD-5(6)"} {
		elements = append(elements, map[string]any{"element": e, "complete": true, "document": b.proof})
	}
	b.accepted(t, "conformity-dossiers", map[string]any{"manufacturer": "Huta Szkła S.A.", "placed_on_market_on": "2026-09-01", "elements": elements}, "")
}

func (b *bench) assess(t *testing.T, date string) map[string]any {
	t.Helper()
	return b.created(t, b.tn, "/assessments", map[string]any{"item": b.item, "date": date})
}

// result is the assessment's result of a rule.
func result(t *testing.T, a map[string]any, rule string) map[string]any {
	t.Helper()
	for _, r := range a["results"].([]any) {
		if r := r.(map[string]any); r["rule"] == rule {
			return r
		}
	}
	t.Fatalf("no result for %s", rule)
	return nil
}

func outcomes(a map[string]any) map[string]string {
	out := map[string]string{}
	for _, r := range a["results"].([]any) {
		out[r.(map[string]any)["rule"].(string)] = r.(map[string]any)["outcome"].(string)
	}
	return out
}

func (b *bench) openFindings(t *testing.T) []any {
	return b.get(t, "/issues?status=open&kind=ppwr_rule_finding")["data"].([]any)
}

func TestACompleteItemPassesAndAPFASFailureIsFoundAndResolved(t *testing.T) {
	b := newBench(t)
	closure := b.complete(t)
	// The operator: a manufacturer that neither refills nor sells take-away.
	b.profiled(t, map[string]any{"country": "PL", "micro_enterprise": false, "final_distributor": false, "horeca_takeaway": false,
		"refill_offered": false}, true)

	first := b.assess(t, "2026-11-26")
	assert.Equal(t, "pass", first["status"], first)
	got := outcomes(first)
	for _, rule := range []string{"R03", "R04", "R05", "R06", "R33", "R34", "R36", "R37", "R58"} {
		assert.Equal(t, "pass", got[rule], rule)
	}
	for _, rule := range []string{"R08", "R09", "R41", "R44"} {
		assert.Equal(t, "not_yet_applicable", got[rule], rule)
	}
	assert.Equal(t, false, first["stale"])
	assert.Equal(t, []any{b.scenario}, first["markets"], "the item's active scenarios by default")
	assert.Empty(t, b.openFindings(t))

	failing := b.accepted(t, "chemical-safety", b.chemistry(b.closure, "30"), closure)
	assert.Equal(t, true, b.get(t, "/assessments/"+first["id"].(string))["stale"], "a newer entry makes the assessment stale")
	second := b.assess(t, "2026-11-26")
	assert.Equal(t, "fail", second["status"])
	assert.Equal(t, "fail", outcomes(second)["R04"], "30 ppb is above 25 ppb")
	assert.Equal(t, "pass", outcomes(second)["R05"])
	findings := b.openFindings(t)
	require.Len(t, findings, 1)
	assert.Contains(t, findings[0].(map[string]any)["message"], "R04")

	b.accepted(t, "chemical-safety", b.chemistry(b.closure, "24.99"), failing)
	third := b.assess(t, "2026-11-26")
	assert.Equal(t, "pass", outcomes(third)["R04"])
	assert.Empty(t, b.openFindings(t), "a passing assessment resolves the finding")
	assert.Subset(t, b.EventTypes(b.tn.Org), []string{"assessment.created", "compliance_issue.opened", "compliance_issue.resolved"})

	path := "/assessments/" + third["id"].(string) + "/review"
	review := map[string]any{"decision": "published", "reason": "Dane kompletne", "revision": 1}
	res := b.send(t, b.tn, http.MethodPost, path, review)
	assert.Equal(t, http.StatusForbidden, res.Code, "whoever ran it does not publish it")
	res = b.send(t, b.reviewer, http.MethodPost, path, review)
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "published", res.JSON["review_status"])
	res = b.send(t, b.reviewer, http.MethodPost, "/assessments/"+second["id"].(string)+"/review", review)
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a stale assessment is not published")
	assert.Equal(t, "assessment_stale", res.ErrorCode())

	list := b.get(t, "/assessments?item="+b.item+"&per_page=2")
	require.Len(t, list["data"], 2)
	assert.Equal(t, third["id"], list["data"].([]any)[0].(map[string]any)["id"], "newest first")
}

func TestTheFirstOfJanuary2030AddsExactlyTheRulesStartingThatDay(t *testing.T) {
	b := newBench(t)
	b.complete(t)
	before, after := outcomes(b.assess(t, "2029-12-31")), outcomes(b.assess(t, "2030-01-01"))
	var changed []string
	for rule, outcome := range before {
		if after[rule] != outcome {
			changed = append(changed, rule)
		}
	}
	assert.ElementsMatch(t, startingOn2030, changed, "R08, R14, R41 and R49 wait for pending acts")
	assert.Equal(t, "pass", after["R44"])
	assert.Equal(t, "pass", after["R22"], "the jar's Annex IV assessment")
}

// startingOn2030 are the rules that start on 1 January 2030 by a date of
// their own, in the catalogue's order.
var startingOn2030 = []string{"R12", "R22", "R44", "R48", "R50", "R51", "R52", "R53", "R54"}

func TestAnAssessmentNamesWhatIsMissing(t *testing.T) {
	b := newBench(t)
	a := b.assess(t, "2026-11-26")
	assert.Equal(t, "incomplete", a["status"])
	for _, r := range a["results"].([]any) {
		r := r.(map[string]any)
		if r["rule"] == "R33" {
			assert.Equal(t, "documentation_missing", r["outcome"])
			assert.Equal(t, []any{"conformity-dossiers"}, r["missing"])
		}
		if r["rule"] == "R03" {
			assert.Equal(t, "insufficient_data", r["outcome"], "no data never passes")
			assert.Len(t, r["missing"], 2, "one laboratory entry per component")
		}
	}
	res := b.send(t, b.tn, http.MethodPost, "/assessments", map[string]any{"item": uuid.NewString(), "rule_sets": []string{"no_such_set"}})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "rule_sets")
	res = b.send(t, b.tn, http.MethodPost, "/assessments", map[string]any{"item": uuid.NewString()})
	require.Equal(t, http.StatusUnprocessableEntity, res.Code)
	assert.Contains(t, res.FieldErrors(), "item")
	only := b.created(t, b.tn, "/assessments", map[string]any{"item": b.item, "rule_sets": []string{"marking"}})
	require.Len(t, only["results"], 62, "every rule is listed")
	for rule, outcome := range outcomes(only) {
		if rule == "R36" || rule == "R37" {
			assert.Equal(t, "insufficient_data", outcome, rule)
			continue
		}
		assert.Equal(t, "not_assessed", outcome, "%s: its rule set was not selected", rule)
	}
	assert.Equal(t, "incomplete", only["status"], "a rule not assessed never passes")
}

func TestTheSummaryOnEitherSideOf2030(t *testing.T) {
	b := newBench(t)
	b.complete(t)
	b.assess(t, "2026-11-26")
	rulesOf := func(list []any) []string {
		var out []string
		for _, r := range list {
			out = append(out, r.(map[string]any)["rule"].(string))
		}
		return out
	}
	before := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2029-12-31")
	after := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date=2030-01-01")
	added := []string{}
	for _, r := range rulesOf(after["applicable"].([]any)) {
		if !slices.Contains(rulesOf(before["applicable"].([]any)), r) {
			added = append(added, r)
		}
	}
	assert.Equal(t, startingOn2030, added, "exactly the rules starting on 1 January 2030")
	assert.Contains(t, rulesOf(before["upcoming"].([]any)), "R44")
	assert.Contains(t, rulesOf(after["upcoming"].([]any)), "R08", "a pending act keeps R08 upcoming")
	assert.Equal(t, "R25", after["next_deadline"].(map[string]any)["rule"], "the earliest date still waiting: the harmonised label's")
	assert.Equal(t, "2028-08-12", after["next_deadline"].(map[string]any)["applies_from"])
	assert.Equal(t, true, after["next_deadline"].(map[string]any)["applies_from_pending_act"])
	require.Len(t, after["rules"], 62, "the summary lists every rule")
	first := after["rules"].([]any)[0].(map[string]any)
	assert.Equal(t, "R01", first["rule"])
	assert.Equal(t, "applies", first["state"])

	today := b.get(t, "/catalog-items/"+b.item+"/ppwr-summary")
	assert.NotEmpty(t, today["notice"])
	require.NotNil(t, today["assessment"], "the fresh assessment")
	assert.Equal(t, "pass", today["assessment"].(map[string]any)["outcomes"].(map[string]any)["R03"])
	covered := map[string]bool{}
	for _, r := range today["registers"].([]any) {
		covered[r.(map[string]any)["register"].(string)] = r.(map[string]any)["covered"].(bool)
	}
	assert.True(t, covered["chemical-safety"])
	assert.False(t, covered["recyclability"])
	assert.Len(t, today["markets"], 1)

	res := b.Do(apitest.Req{Method: http.MethodGet, Path: b.tn.Path("/catalog-items/" + b.item + "/ppwr-summary?date=2030-13-01"), Token: b.tn.Token})
	assert.Equal(t, http.StatusUnprocessableEntity, res.Code)
	other := b.NewTenant(apitest.TenantSpec{})
	res = b.Do(apitest.Req{Method: http.MethodGet, Path: other.Path("/catalog-items/" + b.item + "/ppwr-summary"), Token: other.Token})
	assert.Equal(t, http.StatusNotFound, res.Code)
}

// A change to what an assessment read records the item's refresh, whose
// activity marks the assessment stale once, with an event.
func TestAChangeRecordsTheRefreshThatMarksStale(t *testing.T) {
	b := newBench(t)
	b.accepted(t, "communications", map[string]any{"identifier": "LOT-1", "manufacturer_contact_marked": true}, "")
	item := uuid.MustParse(b.item)
	assert.Zero(t, b.refreshStarts(t), "an item never assessed needs no refresh")

	first := b.assess(t, "2026-11-26")
	b.accepted(t, "restricted-formats", map[string]any{"plastic": false, "single_use": true, "use_context": "none"}, "")
	assert.Equal(t, int64(2), b.refreshStarts(t), "the new entry and its review each record the refresh of their window")

	w := work.New(context.Background(), b.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: b.tn.Org, Reference: "test"})
	marked, err := assessments.MarkAssessmentsStale(w, item)
	require.NoError(t, err)
	require.NoError(t, domain.Commit(w, domain.AuditEntry{Operation: "refreshAssessments"}))
	assert.Equal(t, 1, marked)
	assert.Contains(t, b.EventTypes(b.tn.Org), "assessment.stale")
	assert.Equal(t, true, b.get(t, "/assessments/"+first["id"].(string))["stale"])

	w = work.New(context.Background(), b.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: b.tn.Org, Reference: "test"})
	marked, err = assessments.MarkAssessmentsStale(w, item)
	require.NoError(t, err)
	w.Rollback()
	assert.Zero(t, marked, "a retried refresh marks nothing twice")
}

func (b *bench) refreshStarts(t *testing.T) int64 {
	var n int64
	require.NoError(t, b.DB.Model(&domain.WorkflowStart{}).Where("workflow_id LIKE ? AND workflow_type = ?",
		"assessment/"+b.item+"/refresh/%", catalog.AssessmentRefreshWorkflow.Type).Count(&n).Error)
	return n
}

// A stored value that does not read as its declared kind fails the
// assessment with a logged internal error and records nothing: reading it
// as absent would assess the item wrongly.
func TestAnEntryThatCannotBeReadFailsTheAssessment(t *testing.T) {
	b := newBench(t)
	id := b.accepted(t, "communications", map[string]any{"identifier": "LOT-2026-11", "manufacturer_contact_marked": true}, "")
	require.NoError(t, b.DB.Exec(`UPDATE ppwr_register_entries SET values = jsonb_set(values, '{manufacturer_contact_marked}', '"yes"')
		WHERE id = ?`, id).Error)
	res := b.send(t, b.tn, http.MethodPost, "/assessments", map[string]any{"item": b.item, "date": "2026-11-26"})
	require.Equal(t, http.StatusInternalServerError, res.Code, res.Body.String())
	assert.Equal(t, "internal_error", res.ErrorCode())
	var stored int64
	require.NoError(t, b.DB.Model(&assessments.Assessment{}).Where("catalog_item_id = ?", b.item).Count(&stored).Error)
	assert.Zero(t, stored)
}

func TestTheRuleCatalogueListsEveryRuleInTheReadersLanguage(t *testing.T) {
	b := newBench(t)
	catalogue := b.get(t, "/ppwr/rules")
	list := catalogue["rules"].([]any)
	require.Len(t, list, 62)
	first := list[0].(map[string]any)
	assert.Equal(t, "R01", first["rule"])
	assert.Equal(t, "aggregate", first["check"])
	byRule := map[string]map[string]any{}
	for _, r := range list {
		byRule[r.(map[string]any)["rule"].(string)] = r.(map[string]any)
	}
	assert.Equal(t, true, byRule["R08"]["applies_from_pending_act"], "the DfR acts are not known to be in force")
	assert.Equal(t, "operator", byRule["R56"]["level"])
	assert.Equal(t, "2027-02-12", byRule["R56"]["applies_from"])
	polish := b.Do(apitest.Req{Method: http.MethodGet, Path: b.tn.Path("/ppwr/rules"), Token: b.tn.Token, Headers: map[string]string{"X-Locale": "pl"}})
	require.Equal(t, http.StatusOK, polish.Code)
	assert.NotEqual(t, byRule["R25"]["scope"], polish.JSON["rules"].([]any)[24].(map[string]any)["scope"], "the scope decision in Polish")
}

// A finding stays one issue while its rule stays unmet, and a later
// assessment restates what closes it.
func TestALaterAssessmentRestatesWhatClosesAFinding(t *testing.T) {
	b := newBench(t)
	r33 := func() map[string]any {
		t.Helper()
		b.assess(t, "2026-11-26")
		for _, f := range b.openFindings(t) {
			if f := f.(map[string]any); strings.Contains(f["message"].(string), "R33") {
				return f
			}
		}
		t.Fatal("no open finding of R33")
		return nil
	}
	first := r33()
	assert.Contains(t, first["message"], "record: conformity-dossiers.")
	b.accepted(t, "conformity-dossiers", map[string]any{"manufacturer": "Huta Szkła S.A.", "placed_on_market_on": "2026-09-01",
		"elements": []any{map[string]any{"element": "TD-a", "complete": true, "document": b.proof}}}, "")
	second := r33()
	assert.Equal(t, first["id"], second["id"], "the same issue, not a second one")
	assert.Contains(t, second["message"], "conformity-dossiers.TD-b", "it now names the missing Annex VII elements")
}
