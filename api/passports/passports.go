// Package passports is the spec's passports and sharing grants.
// It is not built yet: its operations answer 501 after authentication.
//
// The spec names these operations only in workflow lists, without their
// abilities and permissions; they follow the nearest documented area (see
// the README, "Choices where the spec is silent").
package passports

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "passports"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Post("createPassport", kit.Org+"/passports", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.Post("publishPassport", kit.Org+"/passports/{recordId}/publish", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.Post("sharePassport", kit.Org+"/passports/{recordId}/shares", tag, a.PPWRWrite, a.CatalogUpdate),
	kit.List("listSharingGrants", kit.Org+"/sharing-grants", tag, a.PPWRRead, a.CatalogView),
	kit.Post("revokeSharingGrant", kit.Org+"/sharing-grants/{recordId}/revoke", tag, a.PPWRWrite, a.CatalogUpdate),
)
