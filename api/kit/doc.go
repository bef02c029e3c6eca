// Package kit is the kernel every area of the API is built on: operation
// rows and their builders, typed binding of bodies and queries, problems
// and error codes, the request's state (credential, organization, locale,
// path ids, unit of work), pagination, and schema helpers. Areas import
// kit and the domain packages, never another area nor the api root (a
// test checks it).
//
// # Adding an operation
//
// Declare its row in its area's Area function, with the spec's method,
// path, ability, permission and Idempotency-Key rule, and hand it a
// handler and its success response:
//
//	kit.Post("createFolder", kit.Org+"/folders", tag, a.CatalogWrite, a.CatalogCreate).
//		Handle(kit.JSON(h.createFolder), kit.CreatedResponse(kit.Ref("Folder"), "getFolder"))
//
// A create names the GET that reads the record it creates ("getFolder"):
// kit.Created answers its Location from that read's path, so it always
// resolves, and a server is not assembled with a Location whose read is
// missing (ResolveLocations).
//
// kit.JSON binds the body type (catalog.FolderCreate), whose Declare method
// names its fields and rules once: the binding, the 422 messages and the
// body's OpenAPI schema all come from it. kit.Query does the same for query
// parameters and kit.Do binds nothing. kit.Multipart documents an upload's
// form and leaves its body to the handler to stream
// (c.Request.MultipartReader()); the pipeline never reads it. A handler
// decodes, runs a command of its domain package (domain/<area>) on
// kit.Work(c) (writes) or reads through domain.Tenant (reads),
// and renders; it returns domain errors, which ProblemOf maps onto the
// error envelope, and its row declares them with Answers, so that the
// operation's responses in the OpenAPI document list them with the codes
// its row implies (its access rules, path, parameters, body,
// Idempotency-Key); the test harness refuses any answer outside them.
// A list answers ListOK(item), a named envelope component. Every row has
// a handler: a server is not assembled with a row that lacks one.
//
// # Adding an area
//
// An area owns its package api/<area> (rows, schemas, error codes,
// handlers), its domain package domain/<area> (aggregates, inputs,
// commands, event payloads added to webhooks.EventCatalogue), placed in
// the domain's tiers (api/layers_test.go), workflows/<area>.go and
// activities/<area>.go, and its migrations. It adds one line to api.Areas
// and, for each workflow, a declaration (domain.Workflow) beside its
// record and a line in workflows.Definitions, which worker.New registers.
// The domain command that decides a workflow records its start with
// domain.Start in its unit of work, so the relay starts it after commit,
// and exactly once; handlers only call the command.
package kit
