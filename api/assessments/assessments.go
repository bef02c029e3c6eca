// Package assessments is the spec's PPWR assessments and the item summary.
// It is not built yet: its operations answer 501 after authentication.
package assessments

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "assessments"

var item = kit.QueryParam("item", kit.UUID())

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.List("listAssessments", kit.Org+"/assessments", tag, a.AssessmentsRead, a.AssessmentsView).WithQuery(item),
	kit.Post("createAssessment", kit.Org+"/assessments", tag, a.AssessmentsRun, a.AssessmentsRunPerm),
	kit.Get("getAssessment", kit.Org+"/assessments/{recordId}", tag, a.AssessmentsRead, a.AssessmentsView),
	kit.Post("reviewAssessment", kit.Org+"/assessments/{recordId}/review", tag, a.AssessmentsReview, a.AssessmentsPublish),
	kit.Get("getPPWRSummary", kit.Org+"/catalog-items/{catalogItemId}/ppwr-summary", tag, a.PPWRRead, a.CatalogView).WithQuery(kit.QueryParam("date", kit.Date())),
)
