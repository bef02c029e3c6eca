package register

import (
	"ppwr/internal/dictionaries"
)

// ComplianceProfile is the organization's compliance profile: per Member
// State, the facts about the operator that its own obligations read
// (refill, the re-use targets and their report, the HORECA duties of Arts
// 28-33). It is declared like a register, with the same typed values,
// units, document references and review, but it is not one of All: its
// entries are the organization's, not an item's. A value left out is
// unknown, and a rule reading it says so.
var ComplianceProfile = &Register{
	Slug: "compliance-profile", Reviewable: true,
	Articles: []string{"Art. 28", "Art. 29", "Art. 31", "Art. 32", "Art. 33"},
	Fields: []Field{
		must(enum("country", dictionaries.Default().MemberStates()...)),
		must(boolean("micro_enterprise")),
		boolean("final_distributor"),
		quantity("sales_area", SquareMetres),
		boolean("beverage_final_distributor"),
		boolean("horeca_takeaway"),
		boolean("byo_container_offered"),
		document("byo_policy"),
		boolean("reuse_offer_takeaway"),
		text("takeaway_reuse_system", 300),
		boolean("refill_offered"),
		boolean("refill_rules_published"),
		quantity("refill_area", SquareMetres),
		boolean("transport_packaging_user"),
		boolean("intra_group_or_same_country_transport"),
		boolean("grouped_box_user"),
		// Art. 31(3): the first year reported is 2030.
		objects("reuse_reports", 100, must(integer("year", 2030, 2100)), must(date("submitted_on")), document("document")),
	},
	Rules: []Rule{
		func(v Values, _ Subject, fail Fail) {
			// Art. 28(5): the refill area is part of the sales area.
			sales, ok := v.Quantity("sales_area")
			if refill, ok2 := v.Quantity("refill_area"); ok && ok2 && refill.GreaterThan(sales) {
				fail("refill_area", "field.exceeds_sales_area")
			}
			// Beverage and HORECA take-away duties are a final distributor's.
			for _, name := range []string{"beverage_final_distributor", "horeca_takeaway"} {
				if v.Bool(name) && v.Has("final_distributor") && !v.Bool("final_distributor") {
					fail(name, "field.requires_final_distributor")
				}
			}
			years := map[int]bool{}
			for i, r := range v.List("reuse_reports") {
				year, _ := r.Int("year")
				if years[year] {
					fail("reuse_reports."+itoa(i)+".year", "field.duplicate")
				}
				years[year] = true
			}
		},
	},
}
