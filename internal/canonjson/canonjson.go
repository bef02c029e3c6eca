// Package canonjson writes the canonical JSON form of a value, so that the
// same content always yields the same bytes and the same digest, and a
// reader can rebuild those bytes from the parsed document. The form is the
// JSON Canonicalization Scheme (RFC 8785) for documents whose numbers are
// integers: object keys sorted by their UTF-16 code units, no white space,
// strings escaped only where JSON requires it (`"`, `\` and control
// characters; \b \t \n \f \r in their short forms, others as \u00xx), and
// everything else, <, > and & included, written as UTF-8. Fractional
// numbers are refused: decimals travel as strings.
package canonjson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"unicode/utf16"
)

// Marshal is v's canonical JSON: v is marshalled with encoding/json and
// the result rewritten in canonical form.
func Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return Canonicalize(raw)
}

// Canonicalize rewrites a JSON text in canonical form.
func Canonicalize(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := write(&out, tree); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// maxSafeInteger is the largest integer every JSON reader holds exactly
// (2^53 - 1, as RFC 8785 assumes IEEE 754 doubles).
const maxSafeInteger = 1<<53 - 1

func write(out *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil:
		out.WriteString("null")
	case bool:
		out.WriteString(strconv.FormatBool(x))
	case json.Number:
		n, err := strconv.ParseInt(string(x), 10, 64)
		if err != nil || n > maxSafeInteger || n < -maxSafeInteger {
			return fmt.Errorf("canonjson: %s is not an integer a reader holds exactly", x)
		}
		out.WriteString(strconv.FormatInt(n, 10))
	case string:
		writeString(out, x)
	case []any:
		out.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				out.WriteByte(',')
			}
			if err := write(out, e); err != nil {
				return err
			}
		}
		out.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b string) int {
			return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
		})
		out.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				out.WriteByte(',')
			}
			writeString(out, k)
			out.WriteByte(':')
			if err := write(out, x[k]); err != nil {
				return err
			}
		}
		out.WriteByte('}')
	default:
		return fmt.Errorf("canonjson: unexpected %T", v)
	}
	return nil
}

const hex = "0123456789abcdef"

func writeString(out *bytes.Buffer, s string) {
	out.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			out.WriteString(`\"`)
		case r == '\\':
			out.WriteString(`\\`)
		case r == '\b':
			out.WriteString(`\b`)
		case r == '\t':
			out.WriteString(`\t`)
		case r == '\n':
			out.WriteString(`\n`)
		case r == '\f':
			out.WriteString(`\f`)
		case r == '\r':
			out.WriteString(`\r`)
		case r < 0x20:
			out.WriteString(`\u00`)
			out.WriteByte(hex[r>>4])
			out.WriteByte(hex[r&0xf])
		default:
			out.WriteRune(r)
		}
	}
	out.WriteByte('"')
}
