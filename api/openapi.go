package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
	"ppwr/webhooksig"
)

// renderOpenAPI builds the document once per locale at start-up.
func (s *Server) renderOpenAPI() error {
	s.openapi = map[string][]byte{}
	for _, l := range i18n.Locales {
		doc, err := json.Marshal(translate(s.openAPIDocument(l), l))
		if err != nil {
			return fmt.Errorf("openapi: %w", err)
		}
		s.openapi[string(l)] = doc
	}
	return nil
}

// translate replaces the message keys (input.Msg) that schemas carry for
// their descriptions with their text in l.
func translate(v any, l i18n.Locale) any {
	switch t := v.(type) {
	case input.Msg:
		return i18n.T(l, string(t))
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = translate(val, l)
		}
		return out
	case kit.Schema:
		return translate(map[string]any(t), l)
	case map[string]map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = translate(val, l)
		}
		return out
	case map[string]kit.Schema:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[k] = translate(val, l)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = translate(val, l)
		}
		return out
	}
	return v
}

func (s *Server) serveOpenAPI(c *gin.Context) {
	l := i18n.Parse(c.Query("locale"))
	c.Header("Cache-Control", "public, max-age=300")
	c.Header("Content-Language", string(l))
	c.Data(http.StatusOK, "application/json", s.openapi[string(l)])
}

// ModelNames are the names of the components derived from Go types (used
// by tests).
func (s *Server) ModelNames() []string { return slices.Sorted(maps.Keys(s.schemas)) }

// OpenAPIDocument returns the document for a locale (used by tests).
func (s *Server) OpenAPIDocument(l i18n.Locale) []byte { return s.openapi[string(l)] }

func (s *Server) openAPIDocument(l i18n.Locale) map[string]any {
	t := func(key string, args ...any) string { return i18n.T(l, key, args...) }
	paths := map[string]map[string]any{}
	tagSet := map[string]bool{}
	schemas, responses := map[string]any{}, map[string]any{}
	for name, schema := range s.schemas {
		schemas[name] = schema
	}
	// The spec names one URL's parameter differently on different methods
	// (GET {systemId}/items, POST {recordId}/items); OpenAPI treats those as
	// one path, so the document keeps the first spelling for each shape.
	canonical := map[string]string{}
	for i := range s.operations {
		op := &s.operations[i]
		path, seen := canonical[op.PathShape()]
		if !seen {
			path, canonical[op.PathShape()] = op.Path, op.Path
			paths[path] = map[string]any{}
		}
		paths[path][strings.ToLower(op.Method)] = operationDoc(op, pathParam.FindAllStringSubmatch(path, -1), responses, t)
		if op.Request != nil && op.Request.Name != "" {
			schemas[op.Request.Name] = op.Request.Schema
		}
		if item := op.Success.List; item != "" {
			schemas[kit.ListName(item)] = kit.ListOf(item, s.schemas[item])
		}
		tagSet[op.Tag] = true
	}
	tagSet["events"] = true // the webhooks section's tag
	var tags []map[string]any
	for _, name := range sortedKeys(tagSet) {
		tags = append(tags, map[string]any{"name": name, "description": t("tag." + name)})
	}
	webhookDocs := map[string]any{}
	for _, p := range webhooks.EventCatalogue {
		webhookDocs[p.EventType()] = webhookDoc(p, t)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       t("openapi.title"),
			"version":     "1.0.0",
			"description": t("openapi.description"),
		},
		"servers":  []any{map[string]any{"url": s.Config.PublicBaseURL + kit.BasePath}},
		"tags":     tags,
		"security": []any{map[string]any{"bearerAuth": []string{}}},
		"paths":    paths,
		"webhooks": webhookDocs,
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"bearerAuth": map[string]any{"type": "http", "scheme": "bearer", "description": t("openapi.security")},
			},
			"parameters": commonParameters(t),
			"headers":    commonHeaders(t),
			"responses":  responses,
			"schemas":    schemas,
		},
	}
}

// eventSchema is the envelope of one event type with its typed data,
// both derived from their Go types.
func eventSchema(p domain.Payload) kit.Schema {
	return kit.SchemaOf(reflect.TypeFor[domain.EventEnvelope](), func(s *kit.Shape) {
		s.Const("type", p.EventType())
		s.Const("schema_version", domain.EventSchemaVersion)
		s.Derived("data", kit.SchemaOf(reflect.TypeOf(p), nil))
	})
}

// webhookDoc describes one event type: a signed POST of its envelope to
// the customer's endpoint. The schema is inline: code generators prune
// components that only webhooks refer to.
func webhookDoc(p domain.Payload, t func(string, ...any) string) map[string]any {
	eventType := p.EventType()
	return map[string]any{"post": map[string]any{
		"operationId": "event." + eventType,
		"summary":     t("webhook.summary", eventType),
		"description": t("webhook.description"),
		"tags":        []string{"events"},
		"security":    []any{},
		"parameters": []any{map[string]any{
			"name": webhooksig.Header, "in": "header", "required": true, "schema": kit.Str(), "description": t("webhook.signature"),
		}},
		"requestBody": map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": eventSchema(p)}}},
		"responses":   map[string]any{"2XX": map[string]any{"description": t("webhook.response")}},
	}}
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
		"XLocale": map[string]any{"name": "X-Locale", "in": "header", "description": t("param.x_locale"), "schema": kit.Enum("pl", "en")},
		"IdempotencyKey": map[string]any{"name": "Idempotency-Key", "in": "header", "required": true,
			"description": t("param.idempotency_key"), "schema": kit.Schema{"type": "string", "minLength": idempotencyKeyMin, "maxLength": idempotencyKeyMax}},
		"Cursor":  map[string]any{"name": "cursor", "in": "query", "description": t("param.cursor"), "schema": kit.Str()},
		"PerPage": map[string]any{"name": "per_page", "in": "query", "description": t("param.per_page"), "schema": kit.Schema{"type": "integer", "minimum": 1, "maximum": kit.MaxPerPage, "default": kit.DefaultPerPage}},
	}
}

// commonHeaders are the response headers the pipeline sends.
func commonHeaders(t func(string, ...any) string) map[string]any {
	header := func(key string, schema kit.Schema) map[string]any {
		return map[string]any{"description": t(key), "schema": schema}
	}
	return map[string]any{
		"X-Request-ID":        header("header.request_id", kit.UUID()),
		"Content-Language":    header("header.content_language", kit.Enum("en", "pl")),
		"Idempotent-Replayed": header("header.idempotent_replayed", kit.Enum("true")),
		"Retry-After":         header("header.retry_after", kit.Schema{"type": "integer", "minimum": 1}),
		"WWW-Authenticate":    header("header.www_authenticate", kit.Str()),
		"Allow":               header("header.allow", kit.Str()),
	}
}

func headerRefs(names ...string) map[string]any {
	out := map[string]any{}
	for _, n := range names {
		out[n] = map[string]any{"$ref": "#/components/headers/" + n}
	}
	return out
}

// errorResponses are an operation's error answers: for each status, the
// codes it can answer with that status (errorCodes), the headers those
// codes send, and the envelope with its code narrowed to them. Every
// answer names its language; a refusal stored for an Idempotency-Key
// replays with Idempotent-Replayed. Operations share the answers they
// have alike: each is a component of responses, named after its status
// and codes, which the operation refers to by status.
func errorResponses(op *kit.Operation, components map[string]any, t func(string, ...any) string) map[string]any {
	byStatus := map[int][]kit.Code{}
	for _, c := range errorCodes(op) {
		byStatus[c.Status] = append(byStatus[c.Status], c)
	}
	out := map[string]any{}
	for st, codes := range byStatus {
		names := []string{"X-Request-ID", "Content-Language"}
		enum := make([]string, len(codes))
		for i, c := range codes {
			enum[i] = c.Code
			names = append(names, c.Headers...)
		}
		sort.Strings(enum)
		component := strings.Join(append([]string{strconv.Itoa(st)}, enum...), "-")
		if op.Idempotent && storedRefusal(st) {
			names = append(names, "Idempotent-Replayed")
			component += "-replayable"
		}
		components[component] = map[string]any{
			"description": t("response." + strconv.Itoa(st)),
			"headers":     headerRefs(names...),
			"content": map[string]any{"application/json": map[string]any{"schema": kit.Schema{"allOf": []any{
				kit.Ref("ErrorEnvelope"),
				kit.Schema{"properties": map[string]any{"error": kit.Schema{"properties": map[string]any{"code": kit.Enum(enum...)}}}},
			}}}},
		}
		out[strconv.Itoa(st)] = map[string]any{"$ref": "#/components/responses/" + component}
	}
	return out
}

// storedRefusal reports whether an answer of status st can be a refusal
// the unit of work stored for an Idempotency-Key: one the handler or the
// write's own steps gave, not one of the steps before (authentication,
// rate limit, routing) nor a server error, which is never stored.
func storedRefusal(st int) bool {
	return st >= 400 && st < 500 && st != http.StatusUnauthorized && st != http.StatusMethodNotAllowed && st != http.StatusTooManyRequests
}

func operationDoc(op *kit.Operation, pathParams [][]string, responseComponents map[string]any, t func(string, ...any) string) map[string]any {
	params := []any{}
	for _, m := range pathParams {
		params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": kit.UUID(), "description": t("param.path_id", m[1])})
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

	responses := errorResponses(op, responseComponents, t)
	for _, st := range append([]int{op.Success.Status}, op.Success.Also...) {
		responses[strconv.Itoa(st)] = successDoc(op, st, t)
	}

	doc := map[string]any{
		"operationId":       op.ID,
		"summary":           t("op." + op.ID),
		"description":       accessDescription(op, t),
		"tags":              []string{op.Tag},
		"parameters":        params,
		"responses":         responses,
		"x-ppwr-ability":    nullableString(string(op.Ability)),
		"x-ppwr-permission": nullableString(string(op.Permission)),
		"x-ppwr-idempotent": op.Idempotent,
		"x-ppwr-extension":  op.Beyond,
	}
	if op.Public {
		doc["security"] = []any{}
	}
	if r := op.Request; r != nil {
		schema := r.Schema
		if r.Name != "" {
			schema = kit.Ref(r.Name)
		}
		doc["requestBody"] = map[string]any{"required": r.Required, "content": map[string]any{r.ContentType: map[string]any{"schema": schema}}}
	}
	return doc
}

func nullableString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func paramDoc(p kit.Param, in string, t func(string, ...any) string) map[string]any {
	return map[string]any{"name": p.Name, "in": in, "required": p.Required, "schema": p.Schema, "description": t(p.DescKey)}
}

func accessDescription(op *kit.Operation, t func(string, ...any) string) string {
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
	if op.Rate == kit.RateRecommendations {
		parts = append(parts, t("openapi.rate_recommendations"))
	}
	if op.Beyond {
		parts = append(parts, t("openapi.extension"))
	}
	return strings.Join(parts, " ")
}

func successDoc(op *kit.Operation, status int, t func(string, ...any) string) map[string]any {
	r := op.Success
	headers := headerRefs("X-Request-ID", "Content-Language")
	if op.Idempotent {
		headers = headerRefs("X-Request-ID", "Content-Language", "Idempotent-Replayed")
	}
	for _, h := range r.Headers {
		headers[h.Name] = map[string]any{"description": t(h.DescKey), "schema": h.Schema}
	}
	doc := map[string]any{"description": t("response." + strconv.Itoa(status)), "headers": headers}
	if r.Schema != nil {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		content := map[string]any{ct: map[string]any{"schema": r.Schema}}
		if len(r.ContentTypes) > 0 {
			content = map[string]any{}
			for _, ct := range r.ContentTypes {
				content[ct] = map[string]any{"schema": r.Schema}
			}
		}
		for ct, schema := range r.Negotiated {
			content[ct] = map[string]any{"schema": schema}
		}
		doc["content"] = content
	}
	return doc
}
