package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"ppwr/internal/i18n"
	"ppwr/models"
	"ppwr/webhooksig"
)

// Schema is a JSON Schema (OpenAPI 3.1 dialect) fragment.
type Schema map[string]any

func ref(name string) Schema      { return Schema{"$ref": "#/components/schemas/" + name} }
func str() Schema                 { return Schema{"type": "string"} }
func uuidSchema() Schema          { return Schema{"type": "string", "format": "uuid"} }
func dateSchema() Schema          { return Schema{"type": "string", "format": "date"} }
func dateTimeSchema() Schema      { return Schema{"type": "string", "format": "date-time"} }
func boolean() Schema             { return Schema{"type": "boolean"} }
func integer() Schema             { return Schema{"type": "integer"} }
func arrayOf(items Schema) Schema { return Schema{"type": "array", "items": items} }
func enum(values ...string) Schema {
	return Schema{"type": "string", "enum": values}
}

// nullable widens a schema's type with null (OpenAPI 3.1 has no nullable).
func nullable(s Schema) Schema {
	out := Schema{}
	for k, v := range s {
		out[k] = v
	}
	if t, ok := s["type"].(string); ok {
		out["type"] = []string{t, "null"}
		if e, ok := s["enum"].([]string); ok {
			out["enum"] = append(append([]any{}, toAny(e)...), nil)
		}
		return out
	}
	return Schema{"oneOf": []any{s, Schema{"type": "null"}}}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// object builds a closed-world description of a response object: every
// listed property is required (absent values are sent as null).
func object(props map[string]Schema) Schema {
	req := make([]string, 0, len(props))
	p := map[string]any{}
	for k, v := range props {
		req = append(req, k)
		p[k] = v
	}
	sort.Strings(req)
	return Schema{"type": "object", "required": req, "properties": p}
}

// listOf is the list envelope around items of the named schema.
func listOf(name string) Schema {
	return object(map[string]Schema{
		"data":      arrayOf(ref(name)),
		"links":     ref("ListLinks"),
		"requestId": uuidSchema(),
	})
}

func okJSON(schema Schema) Response { return Response{Status: http.StatusOK, Schema: schema} }

// renderOpenAPI builds the document once per locale at start-up.
func (s *Server) renderOpenAPI() error {
	s.openapi = map[string][]byte{}
	for _, l := range i18n.Locales {
		doc, err := json.Marshal(s.openAPIDocument(l))
		if err != nil {
			return fmt.Errorf("openapi: %w", err)
		}
		s.openapi[string(l)] = doc
	}
	return nil
}

func (s *Server) serveOpenAPI(c *gin.Context) {
	doc := s.openapi[string(i18n.Parse(c.Query("locale")))]
	c.Header("Cache-Control", "public, max-age=300")
	c.Data(http.StatusOK, "application/json", doc)
}

// OpenAPIDocument returns the document for a locale (used by tests).
func (s *Server) OpenAPIDocument(l i18n.Locale) []byte { return s.openapi[string(l)] }

func (s *Server) openAPIDocument(l i18n.Locale) map[string]any {
	t := func(key string, args ...any) string { return i18n.T(l, key, args...) }
	paths := map[string]map[string]any{}
	tagSet := map[string]bool{}
	// The spec names one URL's parameter differently on different methods
	// (GET {systemId}/items, POST {recordId}/items); OpenAPI treats those as
	// one path, so the document keeps the first spelling for each shape.
	canonical := map[string]string{}
	for i := range s.operations {
		op := &s.operations[i]
		shape := pathParam.ReplaceAllString(op.Path, "{}")
		path, seen := canonical[shape]
		if !seen {
			path, canonical[shape] = op.Path, op.Path
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(op.Method)] = operationDoc(op, pathParam.FindAllStringSubmatch(path, -1), t)
		tagSet[op.Tag] = true
	}
	tagSet["events"] = true // the webhooks section's tag
	var tags []map[string]any
	for _, name := range sortedKeys(tagSet) {
		tags = append(tags, map[string]any{"name": name, "description": t("tag." + name)})
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       t("openapi.title"),
			"version":     "1.0.0",
			"description": t("openapi.description"),
		},
		"servers":  []any{map[string]any{"url": s.Config.PublicBaseURL + "/api/v1"}},
		"tags":     tags,
		"security": []any{map[string]any{"bearerAuth": []string{}}},
		"paths":    paths,
		"webhooks": webhooksDoc(t),
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer", "description": t("openapi.security")},
			},
			"parameters": commonParameters(t),
			"headers": map[string]any{
				"X-Request-ID": map[string]any{"description": t("header.request_id"), "schema": uuidSchema()},
				"Retry-After":  map[string]any{"description": t("header.retry_after"), "schema": Schema{"type": "integer", "minimum": 1}},
			},
			"responses": errorResponses(t),
			"schemas":   schemas(),
		},
	}
}

// webhooksDoc describes the outbound events: one entry per type of the
// catalogue, each a signed POST of the event envelope to the customer's
// endpoint.
func webhooksDoc(t func(string, ...any) string) map[string]any {
	out := map[string]any{}
	for _, eventType := range models.EventTypes {
		body := ref("Event")
		out[eventType] = map[string]any{"post": map[string]any{
			"operationId": "event." + eventType,
			"summary":     eventType,
			"description": t("webhook.description"),
			"tags":        []string{"events"},
			"security":    []any{},
			"parameters": []any{map[string]any{
				"name": webhooksig.Header, "in": "header", "required": true, "schema": str(), "description": t("webhook.signature"),
			}},
			"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{
				"schema": Schema{"allOf": []any{body, Schema{"type": "object", "properties": map[string]any{"type": Schema{"const": eventType}}}}},
			}}},
			"responses": map[string]any{"2XX": map[string]any{"description": t("webhook.response")}},
		}}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func commonParameters(t func(string, ...any) string) map[string]any {
	return map[string]any{
		"XLocale": map[string]any{"name": "X-Locale", "in": "header", "description": t("param.x_locale"), "schema": enum("pl", "en")},
		"IdempotencyKey": map[string]any{"name": "Idempotency-Key", "in": "header", "required": true,
			"description": t("param.idempotency_key"), "schema": Schema{"type": "string", "minLength": idempotencyKeyMin, "maxLength": idempotencyKeyMax}},
		"Cursor":  map[string]any{"name": "cursor", "in": "query", "description": t("param.cursor"), "schema": str()},
		"PerPage": map[string]any{"name": "per_page", "in": "query", "description": t("param.per_page"), "schema": Schema{"type": "integer", "minimum": 1, "maximum": maxPerPage, "default": defaultPerPage}},
	}
}

// errorStatuses are documented on every operation; the spec lists 404, 409
// and 422 even for reads.
var errorStatuses = []int{401, 403, 404, 409, 422, 429, 500}

func errorResponses(t func(string, ...any) string) map[string]any {
	out := map[string]any{}
	for _, st := range append(errorStatuses, 428, 501) {
		headers := map[string]any{"X-Request-ID": map[string]any{"$ref": "#/components/headers/X-Request-ID"}}
		if st == 429 {
			headers["Retry-After"] = map[string]any{"$ref": "#/components/headers/Retry-After"}
		}
		out[strconv.Itoa(st)] = map[string]any{
			"description": t("response." + strconv.Itoa(st)),
			"headers":     headers,
			"content":     map[string]any{"application/json": map[string]any{"schema": ref("ErrorEnvelope")}},
		}
	}
	return out
}

func operationDoc(op *Operation, pathParams [][]string, t func(string, ...any) string) map[string]any {
	params := []any{}
	for _, m := range pathParams {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": uuidSchema(), "description": t("param.path_id", m[1])})
	}
	params = append(params, map[string]any{"$ref": "#/components/parameters/XLocale"})
	if op.Idempotent {
		params = append(params, map[string]any{"$ref": "#/components/parameters/IdempotencyKey"})
	}
	if op.Paginated {
		params = append(params, map[string]any{"$ref": "#/components/parameters/Cursor"}, map[string]any{"$ref": "#/components/parameters/PerPage"})
	}
	for _, q := range op.Query {
		params = append(params, paramDoc(q, "query", t))
	}
	for _, h := range op.Headers {
		params = append(params, paramDoc(h, "header", t))
	}

	responses := map[string]any{}
	for _, st := range errorStatuses {
		if st == 401 && op.Public {
			continue
		}
		responses[strconv.Itoa(st)] = map[string]any{"$ref": "#/components/responses/" + strconv.Itoa(st)}
	}
	if len(op.Headers) > 0 {
		responses["428"] = map[string]any{"$ref": "#/components/responses/428"}
	}
	if op.Handler == nil {
		responses["501"] = map[string]any{"$ref": "#/components/responses/501"}
	} else {
		responses[strconv.Itoa(op.Success.Status)] = successDoc(op, t)
	}

	doc := map[string]any{
		"operationId":        op.ID,
		"summary":            t("op." + op.ID),
		"description":        accessDescription(op, t),
		"tags":               []string{op.Tag},
		"parameters":         params,
		"responses":          responses,
		"x-ppwr-ability":     nullableString(string(op.Ability)),
		"x-ppwr-permission":  nullableString(string(op.Permission)),
		"x-ppwr-idempotent":  op.Idempotent,
		"x-ppwr-implemented": op.Handler != nil,
	}
	if op.Public {
		doc["security"] = []any{}
	}
	if op.Request != nil {
		doc["requestBody"] = map[string]any{"required": true, "content": map[string]any{op.Request.ContentType: map[string]any{"schema": op.Request.Schema}}}
	}
	return doc
}

func nullableString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func paramDoc(p Param, in string, t func(string, ...any) string) map[string]any {
	return map[string]any{"name": p.Name, "in": in, "required": p.Required, "schema": p.Schema, "description": t(p.DescKey)}
}

func accessDescription(op *Operation, t func(string, ...any) string) string {
	if op.Public {
		return t("openapi.access_public")
	}
	parts := []string{}
	if op.Ability != "" {
		parts = append(parts, t("openapi.access_ability", op.Ability))
	}
	if op.Permission != "" {
		parts = append(parts, t("openapi.access_permission", op.Permission))
	}
	if len(parts) == 0 {
		parts = append(parts, t("openapi.access_key_only"))
	}
	if op.Rate == RateRecommendations {
		parts = append(parts, t("openapi.rate_recommendations"))
	}
	if op.Handler == nil {
		parts = append(parts, t("openapi.not_implemented"))
	}
	return strings.Join(parts, " ")
}

func successDoc(op *Operation, t func(string, ...any) string) map[string]any {
	r := op.Success
	headers := map[string]any{"X-Request-ID": map[string]any{"$ref": "#/components/headers/X-Request-ID"}}
	for _, h := range r.Headers {
		headers[h.Name] = map[string]any{"description": t(h.DescKey), "schema": h.Schema}
	}
	doc := map[string]any{"description": t("response." + strconv.Itoa(r.Status)), "headers": headers}
	if r.Schema != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		doc["content"] = map[string]any{ct: map[string]any{"schema": r.Schema}}
	}
	return doc
}
