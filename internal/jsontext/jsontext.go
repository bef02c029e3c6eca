// Package jsontext appends JSON text byte for byte as encoding/json writes
// it, for documents written so often (a row of a large import, an item's
// data version) that json.Marshal's reflection shows in the profile.
package jsontext

import (
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, as json.Marshal writes it: text
// that needs no escape as it is, anything else through json.Marshal.
func AppendString(b []byte, s string) []byte {
	if !plain(s) {
		q, _ := json.Marshal(s) // a string always marshals
		return append(b, q...)
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// plain reports whether json.Marshal writes s unchanged between its
// quotes: valid UTF-8 without control characters, quotes, backslashes,
// the characters it escapes for HTML, and U+2028 and U+2029.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}
