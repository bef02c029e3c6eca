package registers_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/internal/register"
)

func qty(value, unit string) map[string]any { return map[string]any{"value": value, "unit": unit} }

// validValues are a complete, valid entry of each register about w.item.
func validValues(w *world) map[string]map[string]any {
	return map[string]map[string]any{
		"packaging-classification": {"packaging_function": "sales", "is_packaging": true, "reuse_type": "single_use",
			"contact_sensitive": true, "contact_sensitive_basis": "food_contact", "food_contact": true, "annex_ii_category": 1,
			"predominant_material": "glass", "composite": false},
		"role-duties": {"scenario": w.scenario, "economic_roles": []string{"manufacturer", "producer"}, "micro_enterprise": false,
			"epr_producer": true, "epr_registration_number": "000012345",
			"duties": []any{map[string]any{"duty_code": "EU_DOC", "article": "Art. 39", "status": "done", "evidence": w.second}}},
		"chemical-safety": {"component": w.component, "lab_report": w.approved, "lab_name": "Laboratorium Sp. z o.o.",
			"sampling_date": "2026-10-01", "lead": qty("12.5", "mg/kg"), "cadmium": qty("1", "mg/kg"), "mercury": qty("0.4", "ppm"),
			"chromium_vi": qty("2", "mg/kg"), "pfas_max_individual": qty("3", "ppb"), "pfas_sum_targeted": qty("20", "µg/kg"),
			"pfas_total": qty("5", "ppm"), "total_fluorine": qty("12", "mg/kg")},
		"recyclability": {"annex_ii_category": 1, "dfr_score": qty("85", "%")},
		"minimization": {"mass": qty("180", "g"), "minimum_mass": qty("172.5", "g"), "double_walls": false, "false_bottoms": false,
			"unnecessary_layers": false, "criteria": []any{map[string]any{"criterion": "product protection", "limiting_requirement": "drop test 1 m"}}},
		"empty-space": {"packaging_function": "ecommerce", "outer_length": qty("30", "cm"), "outer_width": qty("200", "mm"),
			"outer_height": qty("100", "mm"), "contained_volume": qty("4.2", "l")},
		"restricted-formats": {"plastic": false, "single_use": true, "use_context": "none"},
		"reuse-assessments": {"reuse_system_type": "closed_loop", "intended_rotations": 20,
			"criteria": []any{map[string]any{"criterion": "11(1)(a)", "met": true, "evidence": w.second}}},
		"reuse-units": {"unit_identifier": "CRATE-0001", "identifier_kind": "unit", "reuse_system": "Pool skrzynek PL",
			"added_on": "2026-01-15", "trips": 12, "rotations": 11, "counting": "counted"},
		"compostability": {"format": "tea_coffee_bag", "industrial_certificate": w.approved, "standard": "EN 13432",
			"home_compostable": false},
		"biobased": {"biobased_content": qty("42", "%"), "measurement_method": "EN 16640"},
		"communications": {"manufacturer_contact_marked": true, "identifier": "LOT-2026-11",
			"labels": []any{map[string]any{"type": "harmonised_material_label", "artwork": w.second}}},
		"conformity-dossiers": {"manufacturer": "Huta Szkła S.A., ul. Szklana 1, Kraków", "placed_on_market_on": "2026-09-01",
			"elements": []any{map[string]any{"element": "TD-a", "complete": true, "document": w.second}}},
		"eu-declarations": {"declaration_number": "DoC-2026-001", "packaging_identification": "Słoik 500 ml",
			"manufacturer": "Huta Szkła S.A., ul. Szklana 1, Kraków", "sole_responsibility_statement": true,
			"object_description": "Słoik szklany 500 ml", "union_legislation": "Regulation (EU) 2025/40", "languages": "pl",
			"signature_status": "unsigned", "placed_on_market_on": "2026-09-01"},
	}
}

// firstField is the register's first field of a kind, or "" if none.
func firstField(reg *register.Register, match func(register.Field) bool) string {
	for _, f := range reg.Fields {
		if match(f) {
			return f.Name
		}
	}
	return ""
}

func without(values map[string]any, name string) map[string]any {
	out := map[string]any{}
	for k, v := range values {
		if k != name {
			out[k] = v
		}
	}
	return out
}

func with(values map[string]any, name string, value any) map[string]any {
	out := without(values, name)
	out[name] = value
	return out
}

// TestEveryRegister runs the same story through each register: a valid
// entry, every refusal of a typed rule, the four-eyes review, pagination
// and the read.
func TestEveryRegister(t *testing.T) {
	w := newWorld(t, "food_contact")
	valid := validValues(w)
	require.Len(t, valid, len(register.All), "every register has a valid example here")
	for _, reg := range register.All {
		t.Run(reg.Slug, func(t *testing.T) {
			values := valid[reg.Slug]
			require.NotNil(t, values)
			base := "/catalog-items/" + w.item + "/ppwr/" + reg.Slug

			res := w.create(t, reg.Slug, w.entry(t, w.item, values))
			require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
			first := res.JSON
			assert.Equal(t, reg.Slug, first["register"])
			assert.Equal(t, w.item, first["item"])
			assert.Equal(t, "active", first["status"])
			assert.Equal(t, true, first["based_on_current_revision"])
			if reg.Reviewable {
				assert.Equal(t, "unreviewed", first["review_status"])
			} else {
				assert.Equal(t, "not_applicable", first["review_status"])
			}
			for _, f := range reg.Fields {
				assert.Contains(t, first["values"], f.Name, "every field is answered")
			}

			refused := func(body map[string]any, field string) {
				t.Helper()
				res := w.create(t, reg.Slug, body)
				require.Equal(t, http.StatusUnprocessableEntity, res.Code, res.Body.String())
				assert.Contains(t, res.FieldErrors(), field, res.Body.String())
			}
			if name := firstField(reg, func(f register.Field) bool { return f.Required && f.Prefill == "" }); name != "" {
				refused(w.entry(t, w.item, without(values, name)), "values."+name)
			}
			if name := firstField(reg, func(f register.Field) bool { return f.Kind == register.Quantity && values[f.Name] != nil }); name != "" {
				refused(w.entry(t, w.item, with(values, name, qty("1", "furlong"))), "values."+name+".unit")
			}
			body := w.entry(t, w.item, values)
			body["components"] = []string{w.otherComponent}
			refused(body, "components.0")
			body = w.entry(t, w.item, values)
			body["market_scenarios"] = []string{w.otherScenario}
			refused(body, "market_scenarios.0")
			for _, doc := range []string{w.unapproved, w.foreign} {
				body = w.entry(t, w.item, values)
				body["evidence"] = []any{map[string]any{"kind": "document_version", "id": doc}}
				refused(body, "evidence.0.id")
			}
			stale := w.entry(t, w.item, values)
			stale["catalog_revision"] = stale["catalog_revision"].(int) - 1
			assert.Equal(t, http.StatusConflict, w.create(t, reg.Slug, stale).Code)

			body = w.entry(t, w.item, values)
			body["evidence"] = []any{map[string]any{"kind": "document_version", "id": w.approved}}
			res = w.create(t, reg.Slug, body)
			require.Equal(t, http.StatusCreated, res.Code, res.Body.String())
			second := res.JSON

			if reg.Reviewable {
				review := map[string]any{"decision": "accepted", "reason": "Zgodne z raportem", "revision": 1}
				res = w.send(t, w.tn, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				require.Equal(t, http.StatusForbidden, res.Code, res.Body.String())
				assert.Equal(t, "separate_reviewer_required", res.ErrorCode())
				res = w.send(t, w.reviewer, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				require.Equal(t, http.StatusOK, res.Code, res.Body.String())
				assert.Equal(t, "accepted", res.JSON["review_status"])
				assert.Equal(t, w.reviewer.User.String(), res.JSON["reviewed_by"])
				review["revision"] = 2
				res = w.send(t, w.reviewer, http.MethodPost, base+"/"+second["id"].(string)+"/review", review)
				assert.Equal(t, http.StatusUnprocessableEntity, res.Code, "a decided entry is not reviewed twice")
				assert.Equal(t, "entry_already_reviewed", res.ErrorCode())
			}

			res = w.get(t, base+"?per_page=1")
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			page := res.JSON["data"].([]any)
			require.Len(t, page, 1)
			assert.Equal(t, second["id"], page[0].(map[string]any)["id"], "newest first")
			assert.Equal(t, second["evidence"], page[0].(map[string]any)["evidence"], "a list resolves evidence as a read does")
			next := res.JSON["links"].(map[string]any)["next"].(string)
			res = w.Do(apitest.Req{Method: http.MethodGet, Path: next[len(apitest.Base):], Token: w.tn.Token})
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			assert.Equal(t, first["id"], res.JSON["data"].([]any)[0].(map[string]any)["id"])

			res = w.get(t, base+"/"+second["id"].(string))
			require.Equal(t, http.StatusOK, res.Code, res.Body.String())
			titles := []string{}
			for _, e := range res.JSON["evidence"].([]any) {
				titles = append(titles, e.(map[string]any)["title"].(string))
			}
			assert.Contains(t, strings.Join(titles, "|"), "Raport z badań approved", "evidence is resolved to its document")
		})
	}
}
