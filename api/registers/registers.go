// Package registers is the spec's PPWR technical registers under
// /catalog-items/{catalogItemId}/ppwr/<register>: thirteen registers with
// list, show, create and review, and reuse-units with list, create and
// show. It is not built yet: its operations answer 501 after
// authentication.
package registers

import (
	"strings"

	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "ppwr-registers"

// names are the registers with list, show, create and review.
var names = []string{
	"biobased", "chemical-safety", "communications", "compostability", "conformity-dossiers",
	"empty-space", "eu-declarations", "minimization", "packaging-classification", "recyclability",
	"restricted-formats", "role-duties", "reuse-assessments",
}

// Area declares the registers' operations.
func Area(kit.Deps) kit.Area {
	var ops []kit.Operation
	for _, r := range names {
		base, name := kit.Org+"/catalog-items/{catalogItemId}/ppwr/"+r, entryName(r)
		ops = append(ops,
			kit.List("list"+name+"s", base, tag, a.PPWRRead, a.CatalogView),
			kit.Get("get"+name, base+"/{recordId}", tag, a.PPWRRead, a.CatalogView),
			kit.Post("create"+name, base, tag, a.PPWRWrite, a.CatalogUpdate),
			kit.Post("review"+name, base+"/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm),
		)
	}
	reuseUnits := kit.Org + "/catalog-items/{catalogItemId}/ppwr/reuse-units"
	ops = append(ops,
		kit.List("listReuseUnits", reuseUnits, tag, a.PPWRRead, a.CatalogView),
		kit.Post("createReuseUnit", reuseUnits, tag, a.PPWRWrite, a.CatalogUpdate),
		kit.Get("getReuseUnit", reuseUnits+"/{recordId}", tag, a.PPWRRead, a.CatalogView),
	)
	return kit.Area{Operations: ops}
}

// entryName turns "chemical-safety" into "ChemicalSafetyEntry", the stem
// of operation ids such as getChemicalSafetyEntry.
func entryName(slug string) string {
	var out strings.Builder
	for _, part := range strings.Split(slug, "-") {
		out.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return out.String() + "Entry"
}
