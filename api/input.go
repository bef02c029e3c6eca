package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// input reads a JSON object body field by field, so that every bad field is
// reported at once under its own name (encoding/json stops at the first
// type error and cannot tell absent from null). Unknown fields are ignored.
type input struct {
	raw    map[string]json.RawMessage
	fields []FieldError
}

// readInput parses the request body as a JSON object (the pipeline already
// rejected syntax errors; an empty body is an empty object).
func readInput(c *gin.Context) (*input, error) {
	in := &input{raw: map[string]json.RawMessage{}}
	body := bytes.TrimSpace(requestBody(c))
	if len(body) == 0 {
		return in, nil
	}
	if body[0] != '{' || json.Unmarshal(body, &in.raw) != nil {
		return nil, newProblem(http.StatusUnprocessableEntity, CodeInvalidJSON, "error.json_object_expected")
	}
	return in, nil
}

// fail records a problem with a field.
func (in *input) fail(name, key string, args ...any) {
	in.fields = append(in.fields, Field(name, key, args...))
}

// err is nil when no field failed, else the 422 naming them all.
func (in *input) err() error {
	if len(in.fields) == 0 {
		return nil
	}
	return Invalid(in.fields...)
}

// present reports whether the field was sent (null counts as sent).
func (in *input) present(name string) bool {
	_, ok := in.raw[name]
	return ok
}

func (in *input) isNull(name string) bool {
	return string(bytes.TrimSpace(in.raw[name])) == "null"
}

// value decodes a present, non-null field into dst; it records "required"
// when a required field is absent or null, and typeKey when the JSON type
// is wrong. It returns whether dst was set.
func (in *input) value(name string, required bool, dst any, typeKey string) bool {
	if !in.present(name) || in.isNull(name) {
		if required {
			in.fail(name, "field.required")
		}
		return false
	}
	if json.Unmarshal(in.raw[name], dst) != nil {
		in.fail(name, typeKey)
		return false
	}
	return true
}

// text reads a string, trimmed; a required one must not be blank.
func (in *input) text(name string, required bool, maxLen int) (string, bool) {
	var s string
	if !in.value(name, required, &s, "field.string") {
		return "", false
	}
	s = strings.TrimSpace(s)
	switch {
	case required && s == "":
		in.fail(name, "field.required")
		return "", false
	case len([]rune(s)) > maxLen:
		in.fail(name, "field.too_long", maxLen)
		return "", false
	}
	return s, true
}

// oneOf reads a string that must be one of allowed.
func (in *input) oneOf(name string, required bool, allowed []string) (string, bool) {
	s, ok := in.text(name, required, 100)
	if ok && !slices.Contains(allowed, s) {
		in.fail(name, "field.one_of", strings.Join(allowed, ", "))
		return "", false
	}
	return s, ok
}

// code reads a dictionary code, checked with known.
func (in *input) code(name string, required bool, known func(string) bool) (string, bool) {
	s, ok := in.text(name, required, 100)
	if ok && !known(s) {
		in.fail(name, "field.unknown_code")
		return "", false
	}
	return s, ok
}

// positiveDecimal reads a decimal sent as a JSON string ("12.5"): JSON
// numbers are refused because they lose precision in many clients.
func (in *input) positiveDecimal(name string, required bool) (decimal.Decimal, bool) {
	var s string
	if !in.value(name, required, &s, "field.decimal_string") {
		return decimal.Zero, false
	}
	d, err := decimal.NewFromString(strings.TrimSpace(s))
	if err != nil {
		in.fail(name, "field.decimal_string")
		return decimal.Zero, false
	}
	if !d.IsPositive() {
		in.fail(name, "field.positive")
		return decimal.Zero, false
	}
	return d, true
}

func (in *input) boolean(name string, required bool) (bool, bool) {
	var b bool
	ok := in.value(name, required, &b, "field.boolean")
	return b, ok
}

func (in *input) integer(name string, required bool) (int, bool) {
	var n int
	ok := in.value(name, required, &n, "field.integer")
	return n, ok
}

// reference reads an optional uuid that may be null (to clear it). It
// returns the id (uuid.Nil for null) and whether the field was sent validly.
func (in *input) reference(name string) (uuid.UUID, bool) {
	if !in.present(name) {
		return uuid.Nil, false
	}
	if in.isNull(name) {
		return uuid.Nil, true
	}
	var s string
	if !in.value(name, false, &s, "field.uuid") {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(s)
	if err != nil {
		in.fail(name, "field.uuid")
		return uuid.Nil, false
	}
	return id, true
}

// date reads a YYYY-MM-DD date.
func (in *input) date(name string, required bool) (time.Time, bool) {
	var s string
	if !in.value(name, required, &s, "field.date_format") {
		return time.Time{}, false
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		in.fail(name, "field.date_format")
		return time.Time{}, false
	}
	return d, true
}
