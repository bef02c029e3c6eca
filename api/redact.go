package api

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"

	"gorm.io/datatypes"
)

// secretWords mark field names whose values must never reach the audit
// log. Matching is on the name, at any depth and in any case, so a secret
// nested in an object or list is caught too.
var secretWords = []string{"token", "secret", "password", "passwd", "authorization", "apikey", "api_key", "api-key", "credential", "signature"}

// secretsByFirst are the secret words by their first letter.
var secretsByFirst = func() (out [256][]string) {
	for _, w := range secretWords {
		out[w[0]] = append(out[w[0]], w)
	}
	return out
}()

// secretKey reports whether a field name holds a secret. Plain substring
// tests: a regular expression here cost a tenth of a create's CPU time.
// An ASCII name, as nearly all are, is read once, folding its case in
// place, trying at each letter only the words it begins: lowering a copy
// of it and searching it for every word cost a create a microsecond.
func secretKey(name string) bool {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			// Unicode lowers some letters into ASCII ones (the Kelvin
			// sign into k).
			name = strings.ToLower(name)
			break
		}
	}
	for i := 0; i < len(name); i++ {
		for _, w := range secretsByFirst[lowerASCII(name[i])] {
			if len(name)-i >= len(w) && equalFoldASCII(name[i:i+len(w)], w) {
				return true
			}
		}
	}
	return false
}

// lowerASCII is c in lower case, if it is an ASCII letter.
func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// equalFoldASCII reports whether s is word, a lower-case ASCII word, in
// any case of its letters.
func equalFoldASCII(s, word string) bool {
	for j := range len(word) {
		if lowerASCII(s[j]) != word[j] {
			return false
		}
	}
	return true
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
func redactedSummary(u *url.URL, body []byte) datatypes.JSON {
	if u.RawQuery == "" && len(body) > 0 && len(body)+len(`{"body":}`) <= maxSummaryBytes && nothingToRedact(body) {
		// The body as sent: jsonb keeps the same value as from its decoding
		// and encoding, which were a tenth of a create's CPU time.
		out := make(datatypes.JSON, 0, len(body)+len(`{"body":}`))
		out = append(append(append(out, `{"body":`...), body...), '}')
		return out
	}
	return decodedSummary(u.Query(), body)
}

// decodedSummary is redactedSummary's view made by decoding the body,
// redacting its tree and encoding it again.
func decodedSummary(query url.Values, body []byte) datatypes.JSON {
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

// nothingToRedact reports whether body, valid JSON, is stored as jsonb just
// as its redaction would be: no name in it holds a secret word, and no
// escape is in it either, so no name reads otherwise once decoded and no
// NUL (which jsonb refuses) can be in it; it is valid UTF-8 (the decoding
// would replace what is not); and no number has an exponent (jsonb refuses
// one beyond its range, where the decoding into float64 failed and left
// the body out).
func nothingToRedact(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body) {
		return false
	}
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '"':
			// Without escapes, the next quote ends the string.
			end := i + 1 + bytes.IndexByte(body[i+1:], '"')
			if next := skipSpace(body, end+1); next < len(body) && body[next] == ':' && secretKey(string(body[i+1:end])) {
				return false
			}
			i = end
		case (c == 'e' || c == 'E') && i > 0 && '0' <= body[i-1] && body[i-1] <= '9':
			return false
		}
	}
	return true
}

// skipSpace is the index of the first byte from i on in b that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
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
