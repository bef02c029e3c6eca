package api

import (
	"encoding/json"
	"net/url"
	"strings"

	"gorm.io/datatypes"
)

// secretWords mark field names whose values must never reach the audit
// log. Matching is on the name, at any depth and in any case, so a secret
// nested in an object or list is caught too.
var secretWords = []string{"token", "secret", "password", "passwd", "authorization", "apikey", "api_key", "api-key", "credential", "signature"}

// secretKey reports whether a field name holds a secret. Plain substring
// tests: a regular expression here cost a tenth of a create's CPU time.
func secretKey(name string) bool {
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

const (
	redacted = "[REDACTED]"
	// maxSummaryBytes keeps audit rows small; a larger body is summarised by
	// its top-level field names only.
	maxSummaryBytes = 8 << 10
)

// redactedSummary is the audit log's view of a request: query parameters and
// the JSON body with secret-looking fields replaced. Non-JSON bodies are not
// recorded; the record type and id already say what changed.
func redactedSummary(query url.Values, body []byte) datatypes.JSON {
	summary := map[string]any{}
	if len(query) > 0 {
		q := map[string]any{}
		for k, v := range query {
			values := make([]any, len(v))
			for i, s := range v {
				values[i] = s
			}
			q[storable(k)] = redactValue(k, values)
		}
		summary["query"] = q
	}
	var parsed any
	if len(body) > 0 && json.Unmarshal(body, &parsed) == nil {
		summary["body"] = redactTree(parsed)
	}
	out, err := json.Marshal(summary)
	if err != nil || len(out) > maxSummaryBytes {
		out = truncatedSummary(summary)
	}
	return datatypes.JSON(out)
}

func redactValue(key string, v any) any {
	if secretKey(key) {
		return redacted
	}
	return redactTree(v)
}

// storable replaces NUL characters, which a jsonb column refuses: an
// ignored field of a request may hold them.
func storable(s string) string { return strings.ReplaceAll(s, "\x00", "\uFFFD") }

func redactTree(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, val := range t {
			out[storable(k)] = redactValue(k, val)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, val := range t {
			out[i] = redactTree(val)
		}
		return out
	case string:
		return storable(t)
	default:
		return v
	}
}

func truncatedSummary(summary map[string]any) []byte {
	fields := []string{}
	if body, ok := summary["body"].(map[string]any); ok {
		for k := range body {
			fields = append(fields, k)
		}
	}
	out, _ := json.Marshal(map[string]any{"truncated": true, "body_fields": fields})
	return out
}
