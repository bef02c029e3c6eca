// Package imports is the spec's "Imports" area: CSV/XLSX import jobs with a
// preview stage and an apply stage, and their templates.
// It is not built yet: its operations answer 501 after authentication.
package imports

import (
	"ppwr/api/kit"
	a "ppwr/internal/access"
)

const tag = "imports"

// Area declares the area's operations.
var Area = kit.Unbuilt(
	kit.Get("getCodesImportTemplate", kit.Org+"/import-templates/codes.csv", tag, a.ImportsRun, a.ImportsRunPerm).WithQuery(kit.QueryParam("populated", kit.Enum("0", "1"))),
	kit.Get("getDocumentsImportTemplate", kit.Org+"/import-templates/documents.csv", tag, a.ImportsRun, a.ImportsRunPerm).WithQuery(kit.QueryParam("populated", kit.Enum("0", "1"))),
	kit.List("listImports", kit.Org+"/imports", tag, a.ImportsRun, a.ImportsRunPerm),
	kit.Get("getImport", kit.Org+"/imports/{recordId}", tag, a.ImportsRun, a.ImportsRunPerm),
	kit.Post("createImport", kit.Org+"/imports", tag, a.ImportsRun, a.ImportsRunPerm),
	kit.List("listImportRows", kit.Org+"/imports/{importId}/rows", tag, a.ImportsRun, a.ImportsRunPerm),
	kit.Post("applyImport", kit.Org+"/imports/{recordId}/apply", tag, a.ImportsRun, a.ImportsRunPerm),
	kit.Get("downloadImportResult", kit.Org+"/imports/{recordId}/result.csv", tag, a.ImportsRun, a.ImportsRunPerm),
)
