package api

import (
	"net/http"

	a "ppwr/internal/access"
)

// Tags group operations by the spec's areas, in the OpenAPI document too.
const (
	tagStart       = "start"
	tagCatalog     = "catalog"
	tagPacking     = "packing"
	tagMovements   = "movements"
	tagDocuments   = "documents"
	tagSuppliers   = "suppliers"
	tagImports     = "imports"
	tagAssessments = "assessments"
	tagRegisters   = "ppwr-registers"
	tagPPWR        = "ppwr"
	tagPassports   = "passports"
	tagReports     = "reports"
	tagBDO         = "bdo"
	tagCarbon      = "carbon"
	tagAudit       = "audit"
)

const org = "/organizations/{organizationId}"

// registers are the PPWR technical registers under
// /catalog-items/{catalogItemId}/ppwr/<register>, each with list, show,
// create and review.
var registers = []string{
	"biobased", "chemical-safety", "communications", "compostability", "conformity-dossiers",
	"empty-space", "eu-declarations", "minimization", "packaging-classification", "recyclability",
	"restricted-formats", "role-duties", "reuse-assessments",
}

func get(id, path, tag string, ab a.Ability, perm a.Permission) Operation {
	return Operation{ID: id, Method: http.MethodGet, Path: path, Tag: tag, Ability: ab, Permission: perm}
}

func list(id, path, tag string, ab a.Ability, perm a.Permission) Operation {
	o := get(id, path, tag, ab, perm)
	o.Paginated = true
	return o
}

// write is an operation that requires an Idempotency-Key, as most writes in
// the spec do; the few exceptions call notIdempotent.
func write(method, id, path, tag string, ab a.Ability, perm a.Permission) Operation {
	return Operation{ID: id, Method: method, Path: path, Tag: tag, Ability: ab, Permission: perm, Idempotent: true}
}

func post(id, path, tag string, ab a.Ability, perm a.Permission) Operation {
	return write(http.MethodPost, id, path, tag, ab, perm)
}

func (o Operation) notIdempotent() Operation { o.Idempotent = false; return o }

func (o Operation) query(params ...Param) Operation { o.Query = append(o.Query, params...); return o }

func (o Operation) header(params ...Param) Operation {
	o.Headers = append(o.Headers, params...)
	return o
}

func (o Operation) rate(r RateClass) Operation { o.Rate = r; return o }

// body documents the operation's JSON request body.
func (o Operation) body(schema Schema) Operation {
	o.Request = &Body{ContentType: "application/json", Schema: schema}
	return o
}

func (o Operation) handle(h HandlerFunc, success Response) Operation {
	o.Handler, o.Success = h, success
	return o
}

func queryParam(name string, schema Schema) Param {
	return Param{Name: name, Schema: schema, DescKey: "param." + name}
}

func requiredQuery(name string, schema Schema) Param {
	p := queryParam(name, schema)
	p.Required = true
	return p
}

// table is every operation of the spec. Rows without a handler answer 501
// after authentication until their area is built.
func (s *Server) table() []Operation {
	archived := queryParam("archived", boolean())
	item := queryParam("item", uuidSchema())
	ifMatch := Param{Name: "If-Match", Required: true, Schema: str(), DescKey: "param.if_match"}

	ops := []Operation{
		// Start
		get("listOrganizations", "/organizations", tagStart, "", "").handle(s.listOrganizations, okJSON(ref("OrganizationList"))),
		get("getDictionaries", org+"/dictionaries", tagStart, a.CatalogRead, a.CatalogView).handle(s.getDictionaries, okJSON(ref("Dictionaries"))),

		// Catalogue and structure
		list("listCatalogItems", org+"/catalog-items", tagCatalog, a.CatalogRead, a.CatalogView).
			query(archived, queryParam("folder", uuidSchema()), queryParam("family", uuidSchema()), queryParam("q", str())).
			handle(s.listCatalogItems, okJSON(ref("CatalogItemList"))),
		post("createCatalogItem", org+"/catalog-items", tagCatalog, a.CatalogWrite, a.CatalogCreate).
			body(ref("CatalogItemCreate")).handle(s.createCatalogItem, itemResponse(http.StatusCreated)),
		get("getCatalogItem", org+"/catalog-items/{catalogItemId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getCatalogItem, itemResponse(http.StatusOK)),
		write(http.MethodPatch, "updateCatalogItem", org+"/catalog-items/{catalogItemId}", tagCatalog, a.CatalogWrite, a.CatalogUpdate).notIdempotent().header(ifMatch).
			body(ref("CatalogItemPatch")).handle(s.updateCatalogItem, itemResponse(http.StatusOK)),
		post("archiveCatalogItem", org+"/catalog-items/{catalogItemId}/archive", tagCatalog, a.CatalogWrite, a.CatalogArchive).
			body(ref("RevisionOptional")).handle(s.archiveCatalogItem, itemResponse(http.StatusOK)),
		post("restoreCatalogItem", org+"/catalog-items/{catalogItemId}/restore", tagCatalog, a.CatalogWrite, a.CatalogArchive).
			body(ref("RevisionRequired")).handle(s.restoreCatalogItem, itemResponse(http.StatusOK)),
		list("listComponents", org+"/catalog-items/{catalogItemId}/components", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.listComponents, okJSON(ref("ComponentList"))),
		post("createComponent", org+"/catalog-items/{catalogItemId}/components", tagCatalog, a.CatalogWrite, a.CatalogUpdate).
			body(ref("ComponentCreate")).handle(s.createComponent, created(ref("Component"))),
		get("getComponent", org+"/catalog-items/{catalogItemId}/components/{recordId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getComponent, okJSON(ref("Component"))),
		list("listDataVersions", org+"/catalog-items/{catalogItemId}/data-versions", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.listDataVersions, okJSON(ref("DataVersionList"))),
		get("getDataVersion", org+"/catalog-items/{catalogItemId}/data-versions/{recordId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getDataVersion, okJSON(ref("DataVersion"))),
		list("listMarkets", org+"/catalog-items/{catalogItemId}/markets", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.listMarkets, okJSON(ref("MarketScenarioList"))),
		get("getMarket", org+"/catalog-items/{catalogItemId}/markets/{recordId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getMarket, okJSON(ref("MarketScenario"))),
		write(http.MethodPut, "replaceMarkets", org+"/catalog-items/{catalogItemId}/markets", tagCatalog, a.CatalogWrite, a.CatalogUpdate).
			body(ref("MarketsReplace")).handle(s.replaceMarkets, okJSON(ref("MarketsResult"))),
		list("listFamilies", org+"/families", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.listFamilies, okJSON(ref("FamilyList"))),
		post("createFamily", org+"/families", tagCatalog, a.CatalogWrite, a.CatalogCreate).
			body(ref("FamilyCreate")).handle(s.createFamily, created(ref("Family"))),
		get("getFamily", org+"/families/{recordId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getFamily, okJSON(ref("Family"))),
		write(http.MethodPut, "updateFamily", org+"/families/{recordId}", tagCatalog, a.CatalogWrite, a.CatalogUpdate).
			body(ref("FamilyUpdate")).handle(s.updateFamily, okJSON(ref("Family"))),
		list("listFolders", org+"/folders", tagCatalog, a.CatalogRead, a.CatalogView).query(queryParam("parent", uuidSchema())).
			handle(s.listFolders, okJSON(ref("FolderList"))),
		post("createFolder", org+"/folders", tagCatalog, a.CatalogWrite, a.CatalogCreate).
			body(ref("FolderCreate")).handle(s.createFolder, created(ref("Folder"))),
		get("getFolder", org+"/folders/{recordId}", tagCatalog, a.CatalogRead, a.CatalogView).
			handle(s.getFolder, okJSON(ref("Folder"))),
		write(http.MethodPut, "updateFolder", org+"/folders/{recordId}", tagCatalog, a.CatalogWrite, a.CatalogUpdate).
			body(ref("FolderUpdate")).handle(s.updateFolder, okJSON(ref("Folder"))),
		write(http.MethodDelete, "deleteFolder", org+"/folders/{recordId}", tagCatalog, a.CatalogWrite, a.CatalogUpdate).
			body(ref("FolderDelete")).handle(s.deleteFolder, okJSON(ref("FolderDeleted"))),
		list("listParties", org+"/parties", tagCatalog, a.CatalogRead, a.SuppliersManage).
			handle(s.listParties, okJSON(ref("PartyList"))),
		post("createParty", org+"/parties", tagCatalog, a.CatalogWrite, a.SuppliersManage).
			body(ref("PartyCreate")).handle(s.createParty, created(ref("Party"))),
		get("getParty", org+"/parties/{recordId}", tagCatalog, a.CatalogRead, a.SuppliersManage).
			handle(s.getParty, okJSON(ref("Party"))),

		// Order packing and inventory
		get("getInventory", org+"/catalog-items/{catalogItemId}/inventory", tagPacking, a.FlowsRead, a.CatalogView).query(queryParam("data_version", uuidSchema())),
		list("listPackagingSystems", org+"/packaging-systems", tagPacking, a.CatalogRead, a.CatalogView).query(archived),
		post("createPackagingSystem", org+"/packaging-systems", tagPacking, a.CatalogWrite, a.CatalogCreate),
		get("getPackagingSystem", org+"/packaging-systems/{recordId}", tagPacking, a.CatalogRead, a.CatalogView),
		write(http.MethodPut, "updatePackagingSystem", org+"/packaging-systems/{recordId}", tagPacking, a.CatalogWrite, a.CatalogUpdate),
		post("archivePackagingSystem", org+"/packaging-systems/{recordId}/archive", tagPacking, a.CatalogWrite, a.CatalogArchive),
		post("restorePackagingSystem", org+"/packaging-systems/{recordId}/restore", tagPacking, a.CatalogWrite, a.CatalogArchive),
		get("getPackagingSystemConfiguration", org+"/packaging-systems/{recordId}/configuration", tagPacking, a.CatalogRead, a.CatalogView),
		post("consumePackagingSystem", org+"/packaging-systems/{recordId}/consumptions", tagPacking, a.FlowsWrite, a.CatalogUpdate),
		post("upsertPackagingSystemLine", org+"/packaging-systems/{recordId}/items", tagPacking, a.CatalogWrite, a.CatalogUpdate),
		write(http.MethodDelete, "deletePackagingSystemLine", org+"/packaging-systems/{recordId}/items/{lineId}", tagPacking, a.CatalogWrite, a.CatalogUpdate),
		post("createReservation", org+"/packaging-systems/{recordId}/reservations", tagPacking, a.FlowsWrite, a.CatalogUpdate),
		list("listPackagingSystemLines", org+"/packaging-systems/{systemId}/items", tagPacking, a.CatalogRead, a.CatalogView),
		list("listPackagingSystemUsages", org+"/packaging-systems/{systemId}/usages", tagPacking, a.FlowsRead, a.CatalogView),
		post("createPackingConsumption", org+"/packing-consumptions", tagPacking, a.FlowsWrite, a.CatalogUpdate),
		post("recommendPacking", org+"/packing-recommendations", tagPacking, a.FlowsRead, a.CatalogView).notIdempotent().rate(RateRecommendations),
		list("listReservations", org+"/packing-reservations", tagPacking, a.FlowsRead, a.CatalogView),
		get("getReservation", org+"/packing-reservations/{recordId}", tagPacking, a.FlowsRead, a.CatalogView),
		post("consumeReservation", org+"/packing-reservations/{recordId}/consume", tagPacking, a.FlowsWrite, a.CatalogUpdate),
		post("releaseReservation", org+"/packing-reservations/{recordId}/release", tagPacking, a.FlowsWrite, a.CatalogUpdate),

		// Physical movements and reporting flows
		list("listSupplyEvents", org+"/catalog-items/{catalogItemId}/supply-events", tagMovements, a.FlowsRead, a.CatalogView),
		get("getSupplyEvent", org+"/catalog-items/{catalogItemId}/supply-events/{recordId}", tagMovements, a.FlowsRead, a.CatalogView),
		post("createSupplyEvent", org+"/catalog-items/{catalogItemId}/supply-events", tagMovements, a.FlowsWrite, a.CatalogUpdate),
		get("getSupplySummary", org+"/catalog-items/{catalogItemId}/supply-summary", tagMovements, a.FlowsRead, a.CatalogView),
		list("listFlows", org+"/flows", tagMovements, a.FlowsRead, a.ReportsView),
		get("getFlow", org+"/flows/{recordId}", tagMovements, a.FlowsRead, a.ReportsView),
		post("createFlow", org+"/flows", tagMovements, a.FlowsWrite, a.ReportsExport),

		// Files, evidence and links
		post("uploadDocument", org+"/documents", tagDocuments, a.DocumentsUpload, a.DocumentsUploadPerm),
		list("listDocuments", org+"/documents", tagDocuments, a.DocumentsRead, a.DocumentsView),
		get("getDocument", org+"/documents/{recordId}", tagDocuments, a.DocumentsRead, a.DocumentsView),
		list("listDocumentVersions", org+"/documents/{documentId}/versions", tagDocuments, a.DocumentsRead, a.DocumentsView),
		post("uploadDocumentVersion", org+"/documents/{recordId}/versions", tagDocuments, a.DocumentsUpload, a.DocumentsUploadPerm),
		get("getDocumentVersion", org+"/document-versions/{recordId}", tagDocuments, a.DocumentsRead, a.DocumentsView),
		get("downloadDocumentVersion", org+"/document-versions/{recordId}/download", tagDocuments, a.DocumentsRead, a.DocumentsView),
		post("analyzeDocumentVersion", org+"/document-versions/{recordId}/analyze", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm),
		// The decision also needs documents.approve or documents.revoke,
		// depending on the decision in the body; the handler checks that.
		post("decideDocumentVersion", org+"/document-versions/{recordId}/decision", tagDocuments, a.DocumentsReview, a.DocumentsView),
		post("createEvidenceProposal", org+"/document-versions/{recordId}/evidence-proposals", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm),
		list("listEvidenceProposals", org+"/evidence-proposals", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm).query(item),
		get("getEvidenceProposal", org+"/evidence-proposals/{recordId}", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm),
		post("decideEvidenceProposal", org+"/evidence-proposals/{proposalId}/decision", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm).notIdempotent(),
		list("listTraceabilityLinks", org+"/catalog-items/{catalogItemId}/traceability", tagDocuments, a.DocumentsRead, a.DocumentsView),
		post("createTraceabilityLink", org+"/catalog-items/{catalogItemId}/traceability", tagDocuments, a.EvidenceReview, a.EvidenceReviewPerm),
		post("generateDocument", org+"/catalog-items/{catalogItemId}/generated-documents", tagDocuments, a.DocumentsUpload, a.DocumentsUploadPerm),

		// Supplier collaboration
		list("listIssues", org+"/issues", tagSuppliers, a.SupplierRequestsRead, a.IssuesManage),
		get("getIssue", org+"/issues/{recordId}", tagSuppliers, a.SupplierRequestsRead, a.IssuesManage),
		list("listSupplierRequests", org+"/supplier-requests", tagSuppliers, a.SupplierRequestsRead, a.SupplierRequestsView),
		get("getSupplierRequest", org+"/supplier-requests/{recordId}", tagSuppliers, a.SupplierRequestsRead, a.SupplierRequestsView),
		list("listSupplierRequestLines", org+"/supplier-requests/{requestId}/lines", tagSuppliers, a.SupplierRequestsRead, a.SupplierRequestsView),
		post("createSupplierRequest", org+"/supplier-requests", tagSuppliers, a.SupplierRequestsWrite, a.SupplierRequestsCreate),
		post("sendSupplierRequest", org+"/supplier-requests/{recordId}/send", tagSuppliers, a.SupplierRequestsWrite, a.SupplierRequestsSend),
		post("cancelSupplierRequest", org+"/supplier-requests/{recordId}/cancel", tagSuppliers, a.SupplierRequestsWrite, a.SupplierRequestsSend),
		post("reviewSupplierRequestLine", org+"/supplier-requests/{recordId}/lines/{lineId}/review", tagSuppliers, a.SupplierRequestsWrite, a.EvidenceReviewPerm),

		// Imports
		get("getCodesImportTemplate", org+"/import-templates/codes.csv", tagImports, a.ImportsRun, a.ImportsRunPerm).query(queryParam("populated", enum("0", "1"))),
		get("getDocumentsImportTemplate", org+"/import-templates/documents.csv", tagImports, a.ImportsRun, a.ImportsRunPerm).query(queryParam("populated", enum("0", "1"))),
		list("listImports", org+"/imports", tagImports, a.ImportsRun, a.ImportsRunPerm),
		get("getImport", org+"/imports/{recordId}", tagImports, a.ImportsRun, a.ImportsRunPerm),
		post("createImport", org+"/imports", tagImports, a.ImportsRun, a.ImportsRunPerm),
		list("listImportRows", org+"/imports/{importId}/rows", tagImports, a.ImportsRun, a.ImportsRunPerm),
		post("applyImport", org+"/imports/{recordId}/apply", tagImports, a.ImportsRun, a.ImportsRunPerm),
		get("downloadImportResult", org+"/imports/{recordId}/result.csv", tagImports, a.ImportsRun, a.ImportsRunPerm),

		// Assessments
		list("listAssessments", org+"/assessments", tagAssessments, a.AssessmentsRead, a.AssessmentsView).query(item),
		post("createAssessment", org+"/assessments", tagAssessments, a.AssessmentsRun, a.AssessmentsRunPerm),
		get("getAssessment", org+"/assessments/{recordId}", tagAssessments, a.AssessmentsRead, a.AssessmentsView),
		post("reviewAssessment", org+"/assessments/{recordId}/review", tagAssessments, a.AssessmentsReview, a.AssessmentsPublish),
		get("getPPWRSummary", org+"/catalog-items/{catalogItemId}/ppwr-summary", tagAssessments, a.PPWRRead, a.CatalogView).query(queryParam("date", dateSchema())),
	}

	for _, r := range registers {
		base, name := org+"/catalog-items/{catalogItemId}/ppwr/"+r, registerName(r)
		ops = append(ops,
			list("list"+name+"s", base, tagRegisters, a.PPWRRead, a.CatalogView),
			get("get"+name, base+"/{recordId}", tagRegisters, a.PPWRRead, a.CatalogView),
			post("create"+name, base, tagRegisters, a.PPWRWrite, a.CatalogUpdate),
			post("review"+name, base+"/{recordId}/review", tagRegisters, a.PPWRReview, a.EvidenceReviewPerm),
		)
	}
	reuseUnits := org + "/catalog-items/{catalogItemId}/ppwr/reuse-units"

	ops = append(ops,
		list("listReuseUnits", reuseUnits, tagRegisters, a.PPWRRead, a.CatalogView),
		post("createReuseUnit", reuseUnits, tagRegisters, a.PPWRWrite, a.CatalogUpdate),
		get("getReuseUnit", reuseUnits+"/{recordId}", tagRegisters, a.PPWRRead, a.CatalogView),
		list("listRefillStations", org+"/ppwr/refill-stations", tagPPWR, a.PPWRRead, a.ReportsView),

		// BDO (page-numbered, not cursor, pagination: see its query parameters)
		get("listBDOSources", org+"/bdo-reports/sources", tagBDO, a.ReportsRead, a.ReportsView).query(
			requiredQuery("year", Schema{"type": "integer", "minimum": 2024, "maximum": 2026}),
			queryParam("page", Schema{"type": "integer", "minimum": 1, "default": 1}),
			queryParam("per_page", Schema{"type": "integer", "minimum": 1, "maximum": maxPerPage, "default": defaultPerPage})),
		post("classifyBDOSources", org+"/bdo-reports/classifications", tagBDO, a.ReportsRun, a.ReportsExport),
		post("createBDOReport", org+"/bdo-reports", tagBDO, a.ReportsRun, a.ReportsExport),
		get("getBDOReport", org+"/bdo-reports/{recordId}", tagBDO, a.ReportsRead, a.ReportsView),
		get("downloadBDOReport", org+"/bdo-reports/{recordId}/download", tagBDO, a.ReportsRead, a.ReportsExport).query(queryParam("format", enum("xlsx", "json"))),

		// Carbon
		list("listCarbonCalculations", org+"/carbon-calculations", tagCarbon, a.ReportsRead, a.ReportsView).query(queryParam("subject", uuidSchema()), queryParam("type", enum("item", "system"))),
		post("createCarbonCalculation", org+"/carbon-calculations", tagCarbon, a.ReportsRun, a.ReportsExport),
		get("getCarbonCalculation", org+"/carbon-calculations/{recordId}", tagCarbon, a.ReportsRead, a.ReportsView),
		list("listCarbonFactors", org+"/carbon-factors", tagCarbon, a.ReportsRead, a.ReportsView).query(queryParam("active", boolean())),
		post("createCarbonFactor", org+"/carbon-factors", tagCarbon, a.ReportsRun, a.ReportsExport),
		get("getCarbonFactorReference", org+"/carbon-factors/reference", tagCarbon, a.ReportsRead, a.ReportsView),
		get("getCarbonFactor", org+"/carbon-factors/{recordId}", tagCarbon, a.ReportsRead, a.ReportsView),
		post("archiveCarbonFactor", org+"/carbon-factors/{recordId}/archive", tagCarbon, a.ReportsRun, a.ReportsExport),

		// Audit
		list("listAuditLog", org+"/audit-log", tagAudit, a.AuditRead, a.AuditView).
			query(queryParam("from", dateSchema()), queryParam("to", dateSchema())).
			handle(s.listAuditLog, okJSON(ref("AuditEntryList"))),

		// Operations the spec names only in workflow lists. Their abilities
		// and permissions are not shown there; these follow the nearest
		// documented area (see README, "Choices where the spec is silent").
		post("createPassport", org+"/passports", tagPassports, a.PPWRWrite, a.CatalogUpdate),
		post("publishPassport", org+"/passports/{recordId}/publish", tagPassports, a.PPWRWrite, a.CatalogUpdate),
		post("sharePassport", org+"/passports/{recordId}/shares", tagPassports, a.PPWRWrite, a.CatalogUpdate),
		list("listSharingGrants", org+"/sharing-grants", tagPassports, a.PPWRRead, a.CatalogView),
		post("revokeSharingGrant", org+"/sharing-grants/{recordId}/revoke", tagPassports, a.PPWRWrite, a.CatalogUpdate),
		post("createReport", org+"/reports", tagReports, a.ReportsRun, a.ReportsExport),
		get("getReport", org+"/reports/{recordId}", tagReports, a.ReportsRead, a.ReportsView),
		get("downloadReport", org+"/reports/{recordId}/download", tagReports, a.ReportsRead, a.ReportsExport),
		post("createReuseSystem", org+"/ppwr/reuse-systems", tagPPWR, a.PPWRWrite, a.CatalogUpdate),
		get("getReuseStatistics", org+"/ppwr/reuse-statistics", tagPPWR, a.PPWRRead, a.ReportsView),
		post("createDepositScheme", org+"/ppwr/deposit-schemes", tagPPWR, a.PPWRWrite, a.CatalogUpdate),
		get("getDepositScheme", org+"/ppwr/deposit-schemes/{recordId}", tagPPWR, a.PPWRRead, a.CatalogView),
		post("reviewDepositScheme", org+"/ppwr/deposit-schemes/{recordId}/review", tagPPWR, a.PPWRReview, a.EvidenceReviewPerm),
		post("createAuthorityRequest", org+"/ppwr/authority-requests", tagPPWR, a.PPWRWrite, a.CatalogUpdate),
		get("getAuthorityRequest", org+"/ppwr/authority-requests/{recordId}", tagPPWR, a.PPWRRead, a.CatalogView),
		post("createEPRReport", org+"/ppwr/epr-reports", tagPPWR, a.ReportsRun, a.ReportsExport),
		post("createEPRReportLine", org+"/ppwr/epr-reports/{parentId}/lines", tagPPWR, a.ReportsRun, a.ReportsExport),
		list("listEPRReportLines", org+"/ppwr/epr-reports/{parentId}/lines", tagPPWR, a.ReportsRead, a.ReportsView),
		post("reviewEPRReport", org+"/ppwr/epr-reports/{recordId}/review", tagPPWR, a.PPWRReview, a.EvidenceReviewPerm),
		get("exportEPRReport", org+"/ppwr/epr-reports/{recordId}/export", tagPPWR, a.ReportsRead, a.ReportsExport),
		post("createRefillStation", org+"/ppwr/refill-stations", tagPPWR, a.PPWRWrite, a.CatalogUpdate),
	)
	return ops
}

// registerName turns "chemical-safety" into "ChemicalSafetyEntry", the stem
// of operation ids such as getChemicalSafetyEntry.
func registerName(slug string) string {
	out := []byte{}
	upper := true
	for i := 0; i < len(slug); i++ {
		ch := slug[i]
		if ch == '-' {
			upper = true
			continue
		}
		if upper && ch >= 'a' && ch <= 'z' {
			ch -= 'a' - 'A'
		}
		upper = false
		out = append(out, ch)
	}
	return string(out) + "Entry"
}
