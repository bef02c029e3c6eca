package apitest

// Quantity is a register value with its unit.
func Quantity(value, unit string) map[string]any { return map[string]any{"value": value, "unit": unit} }

// RegisterRefs are the records of an organization that valid register
// entries about an item cite: a component and a market scenario of the
// item, and two approved document versions.
type RegisterRefs struct {
	Component, Scenario string
	Approved, Second    string
}

// RegisterExamples are a complete, valid entry's values for each PPWR
// register, citing refs: the register tests' story and every test that
// needs an entry of each register start from them.
func RegisterExamples(refs RegisterRefs) map[string]map[string]any {
	qty := Quantity
	return map[string]map[string]any{
		"packaging-classification": {"packaging_function": "sales", "is_packaging": true, "reuse_type": "single_use",
			"contact_sensitive": true, "contact_sensitive_basis": "food_contact", "food_contact": true, "annex_ii_category": 1,
			"predominant_material": "glass", "composite": false},
		"role-duties": {"scenario": refs.Scenario, "economic_roles": []string{"manufacturer", "producer"}, "micro_enterprise": false,
			"epr_producer": true, "epr_registration_number": "000012345",
			"duties": []any{map[string]any{"duty_code": "EU_DOC", "article": "Art. 39", "status": "done", "evidence": refs.Second}}},
		"chemical-safety": {"component": refs.Component, "lab_report": refs.Approved, "lab_name": "Laboratorium Sp. z o.o.",
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
			"criteria": []any{map[string]any{"criterion": "11(1)(a)", "met": true, "evidence": refs.Second}}},
		"reuse-units": {"unit_identifier": "CRATE-0001", "identifier_kind": "unit", "reuse_system": "Pool skrzynek PL",
			"added_on": "2026-01-15", "trips": 12, "rotations": 11, "counting": "counted"},
		"compostability": {"format": "tea_coffee_bag", "industrial_certificate": refs.Approved, "standard": "EN 13432",
			"home_compostable": false},
		"biobased": {"biobased_content": qty("42", "%"), "measurement_method": "EN 16640"},
		"communications": {"manufacturer_contact_marked": true, "identifier": "LOT-2026-11",
			"labels": []any{map[string]any{"type": "harmonised_material_label", "artwork": refs.Second}}},
		"conformity-dossiers": {"manufacturer": "Huta Szkła S.A., ul. Szklana 1, Kraków", "placed_on_market_on": "2026-09-01",
			"elements": []any{map[string]any{"element": "TD-a", "complete": true, "document": refs.Second}}},
		"eu-declarations": {"declaration_number": "DoC-2026-001", "packaging_identification": "Słoik 500 ml",
			"manufacturer": "Huta Szkła S.A., ul. Szklana 1, Kraków", "sole_responsibility_statement": true,
			"object_description": "Słoik szklany 500 ml", "union_legislation": "Regulation (EU) 2025/40", "languages": "pl",
			"signature_status": "unsigned", "placed_on_market_on": "2026-09-01"},
	}
}
