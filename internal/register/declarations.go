package register

import (
	"regexp"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

const dateOnly = time.DateOnly

// The vocabularies of the registers, from the PPWR definitions
// (ppwr-facts §3.3).
var (
	PackagingFunctions = []string{"sales", "grouped", "transport", "ecommerce", "service", "takeaway", "primary_production"}
	EconomicRoles      = []string{"manufacturer", "supplier", "importer", "distributor", "authorised_representative",
		"fulfilment_service_provider", "final_distributor", "producer", "epr_authorised_representative", "online_platform"}
	MaterialFamilies = []string{"plastic", "paper_board", "glass", "steel", "aluminium", "wood_cork", "textile", "ceramic", "composite", "other"}
	// ContactSensitiveBases are the regimes of Art. 3(1)(49).
	ContactSensitiveBases = []string{"food_contact", "feed", "cosmetics", "medical_device", "in_vitro_diagnostic", "medicinal",
		"food_supplement", "dangerous_goods", "absorbent_hygiene"}
	// RecyclabilityGrades are the bands of Annex II Table 3.
	RecyclabilityGrades = []string{"A", "B", "C", "non_recyclable"}
	// CarrierBagClasses are the classes of Art. 3(1)(55)-(59).
	CarrierBagClasses = []string{"very_lightweight", "lightweight", "thick", "very_thick"}
	// DossierElements are the Annex VII technical-documentation elements.
	DossierElements = []string{"TD-a", "TD-b", "TD-c", "TD-d", "TD-e", "TD-f", "TD-risk"}
	// DossierInclusions are what other articles put into the technical
	// documentation (ppwr-facts §1.5), each named by its article: they are
	// required only where that article applies to the item, so they are
	// not among an incomplete dossier's missing_elements.
	DossierInclusions = []string{"TD-5(6)", "TD-7(6)", "TD-9(4)", "TD-10(4)", "TD-11(3)", "TD-14", "TD-26(2)"}
	// RecycledContentExemptions are the bases of the Art. 7(4) exemptions
	// from the minimum recycled content (ppwr-facts §1.1, R16).
	RecycledContentExemptions = []string{"medicinal_immediate", "medicinal_outer", "medicinal_manufacturing_supply", "medical_device",
		"compostable_plastic", "dangerous_goods", "infant_food", "food_contact_health_risk"}
	// CompostableFormats are the formats Art. 9(1) requires to be
	// compostable.
	CompostableFormats = []string{"tea_coffee_bag", "soft_single_serve_pod", "fruit_vegetable_sticky_label"}
	// Exemptions are the articles whose exemptions a classification can
	// claim.
	// 29(7) marks a beverage the re-use target of 29(6) excludes (highly
	// perishable drinks, milk, wine, aromatised wine, fermented fruit
	// drinks, spirits).
	Exemptions = []string{"6(11)", "7(4)", "7(5)", "12(11)", "24(5)", "29(4)", "29(7)", "50(4)"}
	// ReusabilityCriteria are the points of Art. 11(1).
	ReusabilityCriteria = []string{"11(1)(a)", "11(1)(b)", "11(1)(c)", "11(1)(d)", "11(1)(e)", "11(1)(f)", "11(1)(g)", "11(1)(h)", "11(1)(i)"}
	// ReconditioningSteps are the steps of Annex VI Part B.
	ReconditioningSteps = []string{"condition_check", "damaged_parts_removal", "cleaning", "repair", "fitness_inspection"}
	// Article29Formats are the formats Art. 29 sets re-use targets for:
	// the transport formats of 29(1), grouped boxes of 29(5) and beverage
	// containers of 29(6).
	Article29Formats = []string{"pallet", "foldable_plastic_box", "box", "tray", "crate", "intermediate_bulk_container",
		"pail", "drum", "canister", "pallet_wrap", "strap", "grouped_box", "beverage_container"}
)

// All are the registers, in the spec's order.
var All = []*Register{
	packagingClassification, roleDuties, chemicalSafety, recyclability, minimization, emptySpace, restrictedFormats,
	reuseAssessments, reuseUnits, compostability, biobased, communications, conformityDossiers, euDeclarations,
}

func text(name string, maxLen int) Field { return Field{Name: name, Kind: Text, Max: maxLen} }
func enum(name string, values ...string) Field {
	return Field{Name: name, Kind: Enum, Values: values}
}
func enums(name string, values ...string) Field {
	return Field{Name: name, Kind: Enums, Values: values}
}
func boolean(name string) Field { return Field{Name: name, Kind: Bool} }

// truth is a statement that must be made: only true is accepted, and
// falseKey is the message refusing false.
func truth(name, falseKey string) Field { return Field{Name: name, Kind: Bool, FalseKey: falseKey} }
func integer(name string, lowest, highest int) Field {
	return Field{Name: name, Kind: Int, Min: lowest, Max: highest}
}
func date(name string) Field                   { return Field{Name: name, Kind: Date} }
func quantity(name string, u input.Unit) Field { return Field{Name: name, Kind: Quantity, Unit: u} }
func document(name string) Field               { return Field{Name: name, Kind: Document} }
func component(name string) Field              { return Field{Name: name, Kind: Component} }
func objects(name string, most int, f ...Field) Field {
	return Field{Name: name, Kind: Objects, Max: most, Fields: f}
}

// must makes a field required.
func must(f Field) Field { f.Required = true; return f }

// requiredWhen requires field when another field holds a value.
func requiredWhen(field string, when input.When) Requirement {
	return func(f *input.Fields) { f.RequiredWhen(field, when) }
}

// whenGiven requires field when other was sent.
func whenGiven(field, other string) Requirement {
	return func(f *input.Fields) { f.RequiredWith(field, other) }
}

// unlessGiven requires field when other was not sent.
func unlessGiven(field, other string) Requirement {
	return func(f *input.Fields) { f.RequiredUnless(field, other) }
}

// whenTrue requires field when the boolean flag is true.
func whenTrue(field, flag string) Requirement { return requiredWhen(field, input.Is(flag, true)) }

var hundred = decimal.NewFromInt(100)

var packagingClassification = &Register{
	Slug: "packaging-classification", Reviewable: true,
	Articles: []string{"Art. 3(1)", "Annex I", "Annex II Table 1", "Art. 6(11)", "Art. 7(4)-(5)", "Art. 12(11)", "Art. 24(5)", "Art. 29(4)", "Art. 29(7)",
		"Art. 50(1), 50(4)"},
	Fields: []Field{
		must(enum("packaging_function", PackagingFunctions...)),
		must(boolean("is_packaging")),
		text("annex_i_reference", 200),
		must(enum("reuse_type", "single_use", "reusable")),
		boolean("reusable_in_system"),
		must(boolean("contact_sensitive")),
		enum("contact_sensitive_basis", ContactSensitiveBases...),
		must(boolean("food_contact")),
		integer("annex_ii_category", 1, 22),
		must(enum("predominant_material", MaterialFamilies...)),
		must(boolean("composite")),
		quantity("minor_material_share", Percent),
		boolean("sup_beverage_bottle"),
		// A beverage container of any material: with a metal predominant
		// material it is a format of Art. 50(1)(b).
		boolean("beverage_container"),
		quantity("capacity", Litres),
		boolean("drs_covered"),
		quantity("carrier_bag_wall_thickness", Micrometres),
		boolean("innovative"),
		enums("exemptions", Exemptions...),
		enum("recycled_content_exemption", RecycledContentExemptions...),
		enum("art_9_format", CompostableFormats...),
		boolean("non_metal_machine_pod"),
		enum("article_29_format", Article29Formats...),
	},
	Derived: []Derived{
		{Name: "treated_as_mono_material", Kind: Bool, Compute: func(v Values, _ Subject) Value {
			// Art. 3(1)(24): a minor material of at most 5 % of the unit's
			// mass does not make the packaging composite.
			share, ok := v.Quantity("minor_material_share")
			if !v.Bool("composite") || !ok {
				return nil
			}
			return BoolValue(share.LessThanOrEqual(decimal.NewFromInt(5)))
		}},
		{Name: "carrier_bag_class", Kind: Enum, Values: CarrierBagClasses, Compute: func(v Values, _ Subject) Value {
			t, ok := v.Quantity("carrier_bag_wall_thickness")
			switch {
			case !ok:
				return nil
			case t.LessThan(decimal.NewFromInt(15)):
				return TextValue("very_lightweight")
			case t.LessThan(decimal.NewFromInt(50)):
				return TextValue("lightweight")
			case t.LessThanOrEqual(decimal.NewFromInt(99)):
				return TextValue("thick")
			}
			return TextValue("very_thick")
		}},
	},
	Requires: []Requirement{
		whenTrue("annex_ii_category", "is_packaging"),
		whenTrue("contact_sensitive_basis", "contact_sensitive"),
		whenTrue("minor_material_share", "composite"),
		whenTrue("capacity", "sup_beverage_bottle"),
		whenTrue("capacity", "beverage_container"),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			if v.Bool("food_contact") && !v.Bool("contact_sensitive") {
				fail("contact_sensitive", "field.food_contact_is_contact_sensitive")
			}
		},
	},
}

var roleDuties = &Register{
	Slug: "role-duties", Reviewable: true,
	Articles: []string{"Art. 3(1)(12)-(21)", "Art. 15-22", "Art. 44", "Art. 45"},
	Fields: []Field{
		must(Field{Name: "scenario", Kind: Scenario}),
		must(enums("economic_roles", EconomicRoles...)),
		must(boolean("micro_enterprise")),
		must(boolean("epr_producer")),
		text("epr_registration_number", 100),
		boolean("direct_sales_from_other_member_state"),
		text("epr_authorised_representative", 300),
		text("producer_responsibility_organisation", 300),
		objects("duties", 100,
			must(text("duty_code", 50)), must(text("article", 50)),
			must(enum("status", "open", "done", "not_applicable")), document("evidence")),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			if slices.Contains(v.Strings("economic_roles"), "producer") != v.Bool("epr_producer") {
				fail("epr_producer", "field.epr_producer_role")
			}
		},
	},
}

var casNumber = regexp.MustCompile(`^[1-9][0-9]{1,6}-[0-9]{2}-[0-9]$`)

var chemicalSafety = &Register{
	Slug: "chemical-safety", Reviewable: true,
	Articles: []string{"Art. 5(1)", "Art. 5(4)", "Art. 5(5)", "Art. 5(6)", "Art. 12(1)", "Art. 12(7)", "Annex VII"},
	Fields: []Field{
		must(component("component")),
		must(document("lab_report")),
		must(text("lab_name", 300)),
		must(date("sampling_date")),
		must(quantity("lead", MgPerKg)),
		must(quantity("cadmium", MgPerKg)),
		must(quantity("mercury", MgPerKg)),
		must(quantity("chromium_vi", MgPerKg)),
		quantity("pfas_max_individual", PPB),
		quantity("pfas_sum_targeted", PPB),
		quantity("pfas_total", PPM),
		quantity("total_fluorine", MgPerKg),
		document("fluorine_proof"),
		objects("substances_of_concern", 200,
			must(text("name", 300)), text("cas_number", 12), must(quantity("concentration", MgPerKg)), text("material", 100)),
		// A stored entry always has a list, so an empty one cannot tell
		// "none" from "not listed": the statement says none.
		boolean("no_substances_of_concern"),
		enum("derogation", "2001/171/EC", "2009/292/EC"),
	},
	Derived: []Derived{
		{Name: "heavy_metals_sum", Kind: Quantity, Unit: "mg/kg", Compute: func(v Values, _ Subject) Value {
			return sum(v, MgPerKg.Canonical, "lead", "cadmium", "mercury", "chromium_vi")
		}},
	},
	Rules: []Rule{
		foodContactRequires("pfas_max_individual"),
		foodContactRequires("pfas_sum_targeted"),
		foodContactRequires("pfas_total"),
		foodContactRequires("total_fluorine"),
		func(v Values, _ Subject, fail Fail) {
			// Art. 5(5)(c): above 50 mg/kg of total fluorine the supplier
			// must prove whether it is PFAS.
			if f, ok := v.Quantity("total_fluorine"); ok && f.GreaterThan(decimal.NewFromInt(50)) && !v.Has("fluorine_proof") {
				fail("fluorine_proof", "field.fluorine_proof_required")
			}
			if v.Bool("no_substances_of_concern") && len(v.List("substances_of_concern")) > 0 {
				fail("no_substances_of_concern", "field.substances_listed")
			}
			for i, s := range v.List("substances_of_concern") {
				if cas := s.String("cas_number"); cas != "" && !casNumber.MatchString(cas) {
					fail("substances_of_concern."+itoa(i)+".cas_number", "field.cas_number")
				}
			}
		},
	},
}

func foodContactRequires(field string) Rule {
	return func(v Values, s Subject, fail Fail) {
		if s.FoodContact && !v.Has(field) {
			fail(field, "field.required_for_food_contact")
		}
	}
}

// sum adds quantities of one unit; nil unless all are there.
func sum(v Values, unit string, names ...string) Value {
	total := decimal.Zero
	for _, n := range names {
		q, ok := v.Quantity(n)
		if !ok {
			return nil
		}
		total = total.Add(q)
	}
	return QuantityValue(total, unit)
}

var recyclability = &Register{
	Slug: "recyclability", Reviewable: true,
	Articles: []string{"Art. 6", "Art. 6(9)", "Art. 6(10)", "Art. 6(11)", "Annex II Tables 1-4"},
	Fields: []Field{
		must(integer("annex_ii_category", 1, 22)),
		text("dfr_criteria_version", 200),
		quantity("dfr_score", Percent),
		objects("separate_components", 50, must(component("component")), must(quantity("dfr_score", Percent))),
		objects("table_4_parameters", 100,
			must(enum("parameter", "additives", "labels", "sleeves", "closures", "adhesives", "colours", "composition",
				"barriers_coatings", "inks_lacquers", "residues", "dismantling")),
			component("component"), must(text("assessment", 1000))),
		boolean("recycled_at_scale"),
		enum("exemption", "medicinal_packaging", "medical_device_packaging", "infant_food_packaging", "dangerous_goods_packaging",
			"natural_material_sales_packaging"),
		boolean("innovative"),
		document("innovative_notification"),
		date("first_placed_on"),
	},
	Derived: []Derived{
		{Name: "grade", Kind: Enum, Values: RecyclabilityGrades, Compute: func(v Values, _ Subject) Value {
			score, ok := v.Quantity("dfr_score")
			if !ok {
				return nil
			}
			return TextValue(Grade(score))
		}},
	},
	Requires: []Requirement{
		unlessGiven("dfr_score", "exemption"),
		whenTrue("innovative_notification", "innovative"),
		whenTrue("first_placed_on", "innovative"),
	},
}

// Grade is the Annex II Table 3 band of a design-for-recycling score in
// percent: A from 95, B from 80, C from 70, below that technically not
// recyclable.
func Grade(score decimal.Decimal) string {
	switch {
	case score.GreaterThanOrEqual(decimal.NewFromInt(95)):
		return "A"
	case score.GreaterThanOrEqual(decimal.NewFromInt(80)):
		return "B"
	case score.GreaterThanOrEqual(decimal.NewFromInt(70)):
		return "C"
	}
	return "non_recyclable"
}

var minimization = &Register{
	Slug: "minimization", Reviewable: true,
	Articles: []string{"Art. 10", "Annex IV", "Art. 24(5)"},
	Fields: []Field{
		must(quantity("mass", Grams)),
		quantity("volume", Millilitres),
		quantity("wall_thickness", Millimetres),
		must(objects("criteria", 20, must(text("criterion", 300)), must(text("limiting_requirement", 2000)))),
		quantity("minimum_mass", Grams),
		quantity("minimum_volume", Millilitres),
		quantity("batch_variation", Percent),
		enums("methods", "tests", "market_research", "modelling"),
		text("standards", 2000),
		must(boolean("double_walls")),
		must(boolean("false_bottoms")),
		must(boolean("unnecessary_layers")),
		enum("exception", "design_protected_before_2025_02_11", "geographical_indication"),
		document("exception_evidence"),
	},
	Derived: []Derived{
		{Name: "mass_above_minimum", Kind: Quantity, Unit: "g", Compute: func(v Values, _ Subject) Value {
			m, ok := v.Quantity("mass")
			lowest, ok2 := v.Quantity("minimum_mass")
			if !ok || !ok2 {
				return nil
			}
			return QuantityValue(m.Sub(lowest), "g")
		}},
	},
	Requires: []Requirement{
		whenGiven("exception_evidence", "exception"),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			// Art. 10(2): double walls, false bottoms and unnecessary layers
			// stand only under a protected-design or GI exception.
			if (v.Bool("double_walls") || v.Bool("false_bottoms") || v.Bool("unnecessary_layers")) && !v.Has("exception") {
				fail("exception", "field.volume_feature_needs_exception")
			}
		},
	},
}

var emptySpace = &Register{
	Slug: "empty-space", Reviewable: true,
	Articles: []string{"Art. 24"},
	Fields: []Field{
		must(enum("packaging_function", PackagingFunctions...)),
		{Name: "outer_length", Kind: Quantity, Unit: Millimetres, Required: true, Prefill: "LENGTH_MM"},
		{Name: "outer_width", Kind: Quantity, Unit: Millimetres, Required: true, Prefill: "WIDTH_MM"},
		{Name: "outer_height", Kind: Quantity, Unit: Millimetres, Required: true, Prefill: "HEIGHT_MM"},
		must(quantity("contained_volume", Millilitres)),
		text("filler_type", 200),
		quantity("filler_volume", Millilitres),
		text("method_act", 300),
		quantity("internal_volume", Millilitres),
		quantity("product_volume", Millilitres),
		quantity("pack_fill_level", Percent),
		text("headspace_justification", 2000),
		enum("exemption", "sales_packaging_used_for_ecommerce", "reusable_in_reuse_system"),
	},
	Derived: []Derived{
		{Name: "total_volume", Kind: Quantity, Unit: "ml", Compute: func(v Values, _ Subject) Value {
			if t, ok := totalVolume(v); ok {
				return QuantityValue(t, "ml")
			}
			return nil
		}},
		{Name: "empty_space_ratio", Kind: Quantity, Unit: "%", Compute: func(v Values, _ Subject) Value {
			// Art. 24(3): fillers count as empty space, so only the contained
			// sales packaging fills the volume.
			t, ok := totalVolume(v)
			contained, ok2 := v.Quantity("contained_volume")
			if !ok || !ok2 || !t.IsPositive() {
				return nil
			}
			return QuantityValue(t.Sub(contained).Mul(hundred).Div(t).Round(2), "%")
		}},
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			t, ok := totalVolume(v)
			if !ok {
				return
			}
			contained, _ := v.Quantity("contained_volume")
			filler, _ := v.Quantity("filler_volume")
			if contained.GreaterThan(t) {
				fail("contained_volume", "field.exceeds_total_volume", t.String())
			} else if filler.GreaterThan(t.Sub(contained)) {
				fail("filler_volume", "field.exceeds_total_volume", t.Sub(contained).String())
			}
			internal, ok := v.Quantity("internal_volume")
			if product, ok2 := v.Quantity("product_volume"); ok && ok2 && product.GreaterThan(internal) {
				fail("product_volume", "field.exceeds_internal_volume")
			}
		},
	},
}

// totalVolume is the outer volume in ml from the dimensions in mm.
func totalVolume(v Values) (decimal.Decimal, bool) {
	l, ok1 := v.Quantity("outer_length")
	w, ok2 := v.Quantity("outer_width")
	h, ok3 := v.Quantity("outer_height")
	if !ok1 || !ok2 || !ok3 {
		return decimal.Zero, false
	}
	return l.Mul(w).Mul(h).Div(decimal.NewFromInt(1000)), true
}

var restrictedFormats = &Register{
	Slug: "restricted-formats", Reviewable: true,
	Articles: []string{"Art. 25", "Annex V", "Art. 70(4)", "Art. 67(5)"},
	Fields: []Field{
		integer("annex_v_point", 1, 6),
		must(boolean("plastic")),
		must(boolean("single_use")),
		must(enum("use_context", "none", "point_of_sale_grouping", "fresh_fruit_vegetables", "horeca_on_premises",
			"horeca_portion_packs", "accommodation", "very_lightweight_carrier_bag")),
		quantity("pre_packed_mass", Grams),
		boolean("exemption_claimed"),
		enum("exemption_basis", "member_state_exemption", "no_drinking_water", "medical_care", "take_away", "hygiene",
			"micro_enterprise", "handling_grouped"),
		document("exemption_evidence"),
	},
	Requires: []Requirement{
		requiredWhen("pre_packed_mass", input.Is("use_context", "fresh_fruit_vegetables")),
		whenTrue("exemption_basis", "exemption_claimed"),
	},
}

var reuseAssessments = &Register{
	Slug: "reuse-assessments", Reviewable: true,
	Articles: []string{"Art. 11", "Art. 12(2)", "Art. 26", "Art. 27", "Annex VI Parts A-B", "Art. 29"},
	Fields: []Field{
		must(objects("criteria", len(ReusabilityCriteria),
			must(enum("criterion", ReusabilityCriteria...)), must(boolean("met")), document("evidence"), text("note", 2000))),
		integer("intended_rotations", 1, 1000000),
		integer("minimum_rotations", 1, 1000000),
		must(enum("reuse_system_type", "closed_loop", "open_loop")),
		text("system_operator", 300),
		document("governance_guidelines"),
		enums("reconditioning_steps", ReconditioningSteps...),
		objects("participant_confirmations", 100, must(text("participant", 300)), must(document("confirmation"))),
		enum("article_29_format", Article29Formats...),
	},
	Derived: []Derived{
		{Name: "all_criteria_met", Kind: Bool, Compute: func(v Values, _ Subject) Value {
			met := map[string]bool{}
			for _, c := range v.List("criteria") {
				met[c.String("criterion")] = c.Bool("met")
			}
			for _, c := range ReusabilityCriteria {
				if !met[c] {
					return BoolValue(false)
				}
			}
			return BoolValue(true)
		}},
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			seen := map[string]bool{}
			for i, c := range v.List("criteria") {
				if seen[c.String("criterion")] {
					fail("criteria."+itoa(i)+".criterion", "field.duplicate")
				}
				seen[c.String("criterion")] = true
			}
		},
	},
}

var reuseUnits = &Register{
	Slug:     "reuse-units",
	Articles: []string{"Art. 12(2)", "Annex VI Part A pt 1(f)", "Art. 30", "Art. 31"},
	Fields: []Field{
		must(text("unit_identifier", 200)),
		must(enum("identifier_kind", "unit", "batch")),
		integer("units_in_batch", 1, 100000000),
		text("data_carrier_id", 300),
		must(text("reuse_system", 300)),
		must(date("added_on")),
		must(integer("trips", 0, 1000000)),
		must(integer("rotations", 0, 1000000)),
		must(enum("counting", "counted", "estimated")),
		integer("reconditioning_events", 0, 1000000),
		integer("rejects", 0, 100000000),
		integer("return_events", 0, 1000000),
		date("end_of_life_on"),
	},
	Requires: []Requirement{
		requiredWhen("units_in_batch", input.Is("identifier_kind", "batch")),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			added, ok := v.Date("added_on")
			end, ok2 := v.Date("end_of_life_on")
			if ok && ok2 && end.Before(added) {
				fail("end_of_life_on", "field.before_added_on")
			}
		},
	},
}

var compostability = &Register{
	Slug: "compostability", Reviewable: true,
	Articles: []string{"Art. 9", "Annex III", "Art. 3(1)(50)-(51)", "Art. 12(1)", "Art. 7(4)(e)"},
	Fields: []Field{
		must(enum("format", append(CompostableFormats, "member_state_mandated")...)),
		must(document("industrial_certificate")),
		must(text("standard", 300)),
		must(boolean("home_compostable")),
		document("home_certificate"),
		text("test_lab", 300),
		text("label_text", 1000),
	},
	Requires: []Requirement{
		whenTrue("home_certificate", "home_compostable"),
	},
}

var biobased = &Register{
	Slug: "biobased", Reviewable: true,
	Articles: []string{"Art. 3(1)(53)", "Art. 8", "Art. 12(4)"},
	Fields: []Field{
		must(quantity("biobased_content", Percent)),
		must(text("measurement_method", 300)),
		text("feedstock", 300),
		text("certification", 300),
		document("certificate"),
		text("claim_text", 1000),
	},
	Requires: []Requirement{
		whenGiven("certificate", "claim_text"),
	},
}

var communications = &Register{
	Slug: "communications", Reviewable: true,
	Articles: []string{"Art. 12", "Art. 14", "Art. 15(5)-(7)", "Art. 18(3)-(4)", "Art. 55(1)"},
	Fields: []Field{
		// The labels are the item's inventory of labels, marks and
		// symbols (Art. 12(8)): other_mark is any the Regulation does not
		// name.
		objects("labels", 50,
			must(enum("type", "harmonised_material_label", "reusable_label", "recycled_content_label", "biobased_content_label",
				"drs_label", "epr_symbol", "compostable_label", "other_mark")),
			must(document("artwork")), text("languages", 100)),
		text("data_carrier_url", 1000),
		// Art. 12(1) 2nd subpara: the data carrier marks the substances of
		// concern.
		boolean("soc_digital_marking"),
		objects("languages_by_market", len(MemberStates),
			must(enum("country", MemberStates...)), must(enums("label_languages", LabelLanguages...))),
		boolean("sold_online"),
		boolean("label_information_online"),
		truth("misleading_marks_checked", "field.misleading_marks_checked"),
		text("identifier", 200),
		must(boolean("manufacturer_contact_marked")),
		boolean("importer_contact_marked"),
		objects("claims", 50,
			must(text("text", 2000)), must(enum("scope", "unit", "part", "all_packaging")), must(document("substantiation")),
			boolean("exceeds_legal_minimum")),
		// The lots still made available, for the sell-off window of
		// Art. 12(12): stock is not split into lots (package stock).
		objects("lots", 500,
			must(text("lot", 200)), must(date("made_or_imported_on")), must(boolean("harmonised_label")), date("last_made_available_on")),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			seen := map[string]bool{}
			for i, m := range v.List("languages_by_market") {
				if c := m.String("country"); seen[c] {
					fail("languages_by_market."+itoa(i)+".country", "field.duplicate")
				} else {
					seen[c] = true
				}
			}
			for i, l := range v.List("lots") {
				made, ok := l.Date("made_or_imported_on")
				last, ok2 := l.Date("last_made_available_on")
				if ok && ok2 && last.Before(made) {
					fail("lots."+itoa(i)+".last_made_available_on", "field.before_made_or_imported_on")
				}
			}
		},
	},
}

var conformityDossiers = &Register{
	Slug: "conformity-dossiers", Reviewable: true,
	Articles: []string{"Art. 15(2)-(4)", "Art. 38", "Annex VII", "Art. 5(6)", "Art. 7(6)", "Art. 9(4)", "Art. 10(4)", "Art. 11(3)", "Art. 14", "Art. 26(2)"},
	Fields: []Field{
		must(objects("elements", 50,
			must(enum("element", append(slices.Clone(DossierElements), DossierInclusions...)...)), must(boolean("complete")), document("document"),
			text("note", 2000))),
		text("standards", 2000),
		document("risk_analysis"),
		must(text("manufacturer", 500)),
		text("authorised_representative", 500),
		text("languages", 100),
		must(date("placed_on_market_on")),
	},
	Derived: []Derived{
		{Name: "missing_elements", Kind: Enums, Values: DossierElements, Compute: func(v Values, _ Subject) Value {
			done := map[string]bool{}
			for _, e := range v.List("elements") {
				done[e.String("element")] = done[e.String("element")] || e.Bool("complete")
			}
			missing := []string{}
			for _, e := range DossierElements {
				if !done[e] {
					missing = append(missing, e)
				}
			}
			return EnumsValue(missing)
		}},
		{Name: "retention_until", Kind: Date, Compute: retentionUntil},
	},
}

// RetentionYears is how long an operator keeps the records of its
// packaging: 5 years for single-use packaging, 10 for reusable (the
// technical documentation of Art. 15(3), the supply chain of Art. 22).
func RetentionYears(reusable bool) int {
	if reusable {
		return 10
	}
	return 5
}

// retentionUntil is the end of the retention of Art. 15(3), counted from
// placing on the market.
func retentionUntil(v Values, s Subject) Value {
	placed, ok := v.Date("placed_on_market_on")
	if !ok {
		return nil
	}
	return TextValue(placed.AddDate(RetentionYears(s.Reusable), 0, 0).Format(dateOnly))
}

var euDeclarations = &Register{
	Slug: "eu-declarations", Reviewable: true,
	Articles: []string{"Art. 39", "Annex VIII", "Art. 15(2)", "Annex VII pt 4"},
	Fields: []Field{
		must(text("declaration_number", 100)),
		must(text("packaging_identification", 500)),
		must(text("manufacturer", 1000)),
		text("authorised_representative", 1000),
		must(truth("sole_responsibility_statement", "field.sole_responsibility")),
		must(text("object_description", 2000)),
		must(text("union_legislation", 2000)),
		text("standards", 2000),
		text("notified_body", 1000),
		text("additional_information", 2000),
		must(text("languages", 100)),
		document("declaration_document"),
		must(enum("signature_status", "unsigned", "signed_outside_service")),
		must(date("placed_on_market_on")),
	},
	Derived: []Derived{{Name: "retention_until", Kind: Date, Compute: retentionUntil}},
}
