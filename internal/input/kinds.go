package input

import (
	"encoding/json"
	"errors"
	"math"
	"net/mail"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Text is a free-text field, trimmed. Required means sent and not blank;
// NotBlank refuses a blank value when one is sent.
type Text struct {
	Required, NotBlank, Nullable bool
	Max                          int // characters
	Desc                         Msg
}

// Text binds a text field.
func (f *Fields) Text(name string, dst *Opt[string], r Text) {
	if !f.Binding() {
		s := Schema{"type": "string", "maxLength": r.Max}
		if r.Required || r.NotBlank {
			s["minLength"] = 1
		}
		if r.Nullable {
			s = Nullable(s)
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, r.Nullable)
	*dst = Opt[string]{Sent: sent, Null: null}
	if !ok {
		return
	}
	s, ok := f.text(name, raw, "field.string")
	if !ok {
		return
	}
	s = strings.TrimSpace(s)
	switch {
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		f.Fail(name, "field.text_invalid")
	case s == "" && r.Required:
		f.Fail(name, "field.required")
	case s == "" && r.NotBlank:
		f.Fail(name, "field.blank")
	case utf8.RuneCountInString(s) > r.Max:
		f.Fail(name, "field.too_long", r.Max)
	default:
		dst.Value = s
		return
	}
}

// Email is an optional bare e-mail address (no display name).
type Email struct {
	Nullable bool
	Max      int
}

// Email binds an e-mail field; blank and null clear it.
func (f *Fields) Email(name string, dst *Opt[string], r Email) {
	if !f.Binding() {
		s := Schema{"type": "string", "format": "email", "maxLength": r.Max}
		if r.Nullable {
			s = Nullable(s)
		}
		f.describe(name, false, s)
		return
	}
	f.Text(name, dst, Text{Nullable: r.Nullable, Max: r.Max})
	if !dst.Set() || dst.Value == "" {
		return
	}
	if addr, err := mail.ParseAddress(dst.Value); err != nil || addr.Address != dst.Value || addr.Name != "" {
		f.Fail(name, "field.email")
	}
}

// Enum is a field whose value is one of Values. Refused maps a value
// clients commonly mistake for a valid one (matched case-insensitively)
// to the message that corrects them.
type Enum struct {
	Required bool
	Values   []string
	Refused  map[string]string
	Desc     Msg
}

// Enum binds an enumerated field.
func (f *Fields) Enum(name string, dst *Opt[string], r Enum) {
	if !f.Binding() {
		f.describe(name, r.Required, withDesc(Schema{"type": "string", "enum": r.Values}, r.Desc))
		return
	}
	f.word(name, dst, r.Required, func(s string) bool {
		for refused, key := range r.Refused {
			if strings.EqualFold(s, refused) {
				f.Fail(name, key)
				return false
			}
		}
		if !slices.Contains(r.Values, s) {
			f.Fail(name, "field.one_of", strings.Join(r.Values, ", "))
			return false
		}
		return true
	})
}

// Code is a field holding a code of the dictionaries, checked by Known.
type Code struct {
	Required, Nullable bool
	Known              func(string) bool
	Desc               Msg
}

// Code binds a dictionary code.
func (f *Fields) Code(name string, dst *Opt[string], r Code) {
	if !f.Binding() {
		s := Schema{"type": "string"}
		if r.Nullable {
			s = Nullable(s)
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	f.wordOrNull(name, dst, r.Required, r.Nullable, func(s string) bool {
		if !r.Known(s) {
			f.Fail(name, "field.unknown_code")
			return false
		}
		return true
	})
}

// word reads a short string value (an enumeration or a code) and keeps it
// if check accepts it.
func (f *Fields) word(name string, dst *Opt[string], required bool, check func(string) bool) {
	f.wordOrNull(name, dst, required, false, check)
}

func (f *Fields) wordOrNull(name string, dst *Opt[string], required, isNullable bool, check func(string) bool) {
	raw, sent, null, ok := f.field(name, required, isNullable)
	*dst = Opt[string]{Sent: sent, Null: null}
	if !ok {
		return
	}
	s, ok := f.text(name, raw, "field.string")
	if ok && check(strings.TrimSpace(s)) {
		dst.Value = strings.TrimSpace(s)
		f.remember(name, dst.Value)
	}
}

// Decimal limits: digits before and after the point. Masses are grams per
// base unit, so this reaches far beyond any real packaging.
const (
	DecimalIntegerDigits  = 15
	DecimalFractionDigits = 9
)

// decimalPattern is the published and enforced form of a decimal string:
// digits with an optional fraction; no sign, exponent or spaces.
var decimalPattern = `^[0-9]{1,` + strconv.Itoa(DecimalIntegerDigits) + `}(\.[0-9]{1,` + strconv.Itoa(DecimalFractionDigits) + `})?$`

var decimalForm = regexp.MustCompile(decimalPattern)

// Decimal is a non-negative decimal sent as a JSON string ("12.5"): JSON
// numbers are refused because many clients lose precision in them.
type Decimal struct {
	Required, Positive, Nullable bool
}

// Decimal binds a decimal string.
func (f *Fields) Decimal(name string, dst *Opt[decimal.Decimal], r Decimal) {
	if !f.Binding() {
		s := Schema{"type": "string", "pattern": decimalPattern, "examples": []string{"12.5"}}
		if r.Nullable {
			s = Nullable(s)
		}
		f.describe(name, r.Required, s)
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, r.Nullable)
	*dst = Opt[decimal.Decimal]{Sent: sent, Null: null}
	if !ok {
		return
	}
	s, ok := f.text(name, raw, "field.decimal_string")
	if !ok {
		return
	}
	d, err := decimal.NewFromString(s)
	switch {
	case !decimalForm.MatchString(s) || err != nil:
		f.Fail(name, "field.decimal_string")
	case r.Positive && !d.IsPositive():
		f.Fail(name, "field.positive")
	default:
		dst.Value = d
		return
	}
}

// Bool is a boolean field. With FalseKey, only true is accepted, and
// false is refused with that message.
type Bool struct {
	Required bool
	Desc     Msg
	FalseKey string
}

// Bool binds a boolean field.
func (f *Fields) Bool(name string, dst *Opt[bool], r Bool) {
	if !f.Binding() {
		s := Schema{"type": "boolean"}
		if r.FalseKey != "" {
			s["enum"] = []bool{true}
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, false)
	*dst = Opt[bool]{Sent: sent, Null: null}
	if !ok {
		return
	}
	var b bool
	var err error
	if f.src.isJSON() {
		err = json.Unmarshal([]byte(raw), &b)
	} else {
		b, err = strconv.ParseBool(raw)
	}
	if err != nil {
		f.Fail(name, "field.boolean")
		return
	}
	if !b && r.FalseKey != "" {
		f.Fail(name, r.FalseKey)
		return
	}
	dst.Value = b
	f.remember(name, b)
}

// Int is an integer field within [Min, Max].
type Int struct {
	Required bool
	Min, Max int
	Desc     Msg
}

// Revision is the rule of a record revision sent back by a client: a
// positive 32-bit integer, as the database keeps it.
func Revision(required bool) Int { return Int{Required: required, Min: 1, Max: math.MaxInt32} }

// Int binds an integer field.
func (f *Fields) Int(name string, dst *Opt[int], r Int) {
	if !f.Binding() {
		f.describe(name, r.Required, withDesc(Schema{"type": "integer", "minimum": r.Min, "maximum": r.Max}, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, false)
	*dst = Opt[int]{Sent: sent, Null: null}
	if !ok {
		return
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	switch {
	case err != nil && !isNumberOutOfRange(err):
		f.Fail(name, "field.integer")
	case err != nil || n < int64(r.Min) || n > int64(r.Max):
		f.Fail(name, "field.integer_range", r.Min, r.Max)
	default:
		dst.Value = int(n)
		return
	}
}

func isNumberOutOfRange(err error) bool {
	var numErr *strconv.NumError
	return errors.As(err, &numErr) && numErr.Err == strconv.ErrRange
}

// Ref is a reference to a record by id.
type Ref struct {
	Required, Nullable bool
	Desc               Msg
}

// Ref binds a UUID reference; the nil UUID is refused, not taken as null.
func (f *Fields) Ref(name string, dst *Opt[uuid.UUID], r Ref) {
	if !f.Binding() {
		s := Schema{"type": "string", "format": "uuid"}
		if r.Nullable {
			s = Nullable(s)
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, r.Nullable)
	*dst = Opt[uuid.UUID]{Sent: sent, Null: null}
	if !ok {
		return
	}
	s, ok := f.text(name, raw, "field.uuid")
	if !ok {
		return
	}
	id, err := uuid.Parse(s)
	if err != nil || id == uuid.Nil || len(s) != 36 {
		f.Fail(name, "field.uuid")
		return
	}
	dst.Value = id
}

// Date is a calendar date field (YYYY-MM-DD).
type Date struct {
	Required bool
	Desc     Msg
}

// Date binds a date field.
func (f *Fields) Date(name string, dst *Opt[time.Time], r Date) {
	f.timeField(name, dst, r.Required, r.Desc, "date", time.DateOnly, "field.date_format")
}

// DateTime is a timestamp field in RFC 3339 (2026-11-21T10:00:00Z).
type DateTime struct {
	Required bool
	Desc     Msg
}

// DateTime binds a timestamp field.
func (f *Fields) DateTime(name string, dst *Opt[time.Time], r DateTime) {
	f.timeField(name, dst, r.Required, r.Desc, "date-time", time.RFC3339Nano, "field.date_time_format")
}

// timeField binds a time in layout, published with format; badKey is the
// message of a value that does not parse.
func (f *Fields) timeField(name string, dst *Opt[time.Time], required bool, desc Msg, format, layout, badKey string) {
	if !f.Binding() {
		f.describe(name, required, withDesc(Schema{"type": "string", "format": format}, desc))
		return
	}
	raw, sent, null, ok := f.field(name, required, false)
	*dst = Opt[time.Time]{Sent: sent, Null: null}
	if !ok {
		return
	}
	s, ok := f.text(name, raw, badKey)
	if !ok {
		return
	}
	t, err := time.Parse(layout, s)
	if err != nil {
		f.Fail(name, badKey)
		return
	}
	dst.Value = t
}

// List is a list of strings, each one of Values or accepted by Known.
// UnknownKey is the message for a value Known refuses; it gets the value.
// Duplicates are dropped.
type List struct {
	Required   bool
	MinItems   int
	Values     []string
	Known      func(string) bool
	TypeKey    string
	UnknownKey string
	Desc       Msg
}

// List binds a list of strings.
func (f *Fields) List(name string, dst *Opt[[]string], r List) {
	typeKey := r.TypeKey
	if typeKey == "" {
		typeKey = "field.string_list"
	}
	if !f.Binding() {
		items := Schema{"type": "string"}
		if r.Values != nil {
			items["enum"] = r.Values
		}
		s := Schema{"type": "array", "items": items}
		if r.MinItems > 0 {
			s["minItems"] = r.MinItems
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, false)
	*dst = Opt[[]string]{Sent: sent, Null: null}
	if !ok {
		return
	}
	var values []string
	if f.src.isJSON() {
		if json.Unmarshal([]byte(raw), &values) != nil {
			f.Fail(name, typeKey)
			return
		}
	} else {
		values = strings.Split(raw, ",")
	}
	out := []string{}
	bad := false
	for _, v := range values {
		v = strings.TrimSpace(v)
		if r.Values != nil && !slices.Contains(r.Values, v) {
			// One message for the list: the allowed values say it all.
			f.Fail(name, "field.one_of", strings.Join(r.Values, ", "))
			bad = true
			break
		}
		if r.Known != nil && !r.Known(v) {
			f.Fail(name, r.UnknownKey, v)
			bad = true
			continue
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if !bad && len(out) < r.MinItems {
		f.Fail(name, "field.empty_list")
		bad = true
	}
	// The valid values are kept even when others failed, so rules that
	// refer to the list (market_details naming listed countries) still
	// report against what was meant.
	dst.Value = out
}

// Each binds an object keyed by arbitrary names (such as country codes),
// declaring every value's fields with declare; null is no object. While describing, declare
// runs once with an empty key to describe the values.
func (f *Fields) Each(name, typeKey string, declare func(key string, value *Fields)) {
	if !f.Binding() {
		value := &Fields{doc: &objectDoc{props: map[string]any{}}}
		declare("", value)
		f.describe(name, false, Nullable(Schema{"type": "object", "additionalProperties": value.doc.schema()}))
		return
	}
	raw, _, _, ok := f.field(name, false, true)
	if !ok {
		return
	}
	values, ok := f.object(raw)
	if !ok {
		f.Fail(name, typeKey)
		return
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		prefix := f.prefix + name + "." + k + "."
		fields, ok := objectMembers(values[k])
		if !ok {
			f.errs.Fail(strings.TrimSuffix(prefix, "."), "field.object")
			continue
		}
		declare(k, &Fields{src: fields, errs: f.errs, prefix: prefix})
	}
}

// Refs is a list of references by id, of MinItems to MaxItems entries.
type Refs struct {
	Required           bool
	MinItems, MaxItems int
	Desc               Msg
}

// Refs binds a JSON array of UUID references. A bad entry is named by its
// index ("products.1"); an id sent twice is kept once.
func (f *Fields) Refs(name string, dst *Opt[[]uuid.UUID], r Refs) {
	if !f.Binding() {
		s := Schema{"type": "array", "items": Schema{"type": "string", "format": "uuid"}}
		if r.MinItems > 0 {
			s["minItems"] = r.MinItems
		}
		if r.MaxItems > 0 {
			s["maxItems"] = r.MaxItems
		}
		f.describe(name, r.Required, withDesc(s, r.Desc))
		return
	}
	raw, sent, null, ok := f.field(name, r.Required, false)
	*dst = Opt[[]uuid.UUID]{Sent: sent, Null: null}
	if !ok {
		return
	}
	var values []json.RawMessage
	if !f.src.isJSON() || json.Unmarshal([]byte(raw), &values) != nil {
		f.Fail(name, "field.uuid_list")
		return
	}
	if len(values) < r.MinItems || (r.MaxItems > 0 && len(values) > r.MaxItems) {
		f.Fail(name, "field.object_list_length", r.MinItems, r.MaxItems)
		return
	}
	out := []uuid.UUID{}
	for i, v := range values {
		var id Opt[uuid.UUID]
		entry := &Fields{src: jsonSource{strconv.Itoa(i): string(v)}, errs: f.errs, prefix: f.prefix + name + "."}
		entry.Ref(strconv.Itoa(i), &id, Ref{Required: true})
		if id.Value != uuid.Nil && !slices.Contains(out, id.Value) {
			out = append(out, id.Value)
		}
	}
	dst.Value = out
}
