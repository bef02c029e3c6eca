package register

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// Decode reads stored values back into their kinds, as the register's
// fields and derived values declare them: what rules evaluate is what
// binding produced. A stored value that does not read as its kind (another
// JSON type, a decimal, uuid or date that does not parse, a quantity in
// another unit than the canonical one) is an error naming it, never
// dropped: a rule reading it as absent would answer wrongly instead of not
// at all. A missing or null value is absent, as entries written before a
// field was declared lack it. An enumeration value outside its vocabulary
// is kept as stored: it was valid when written, it meets no rule's
// condition, and refusing it would leave every item holding it
// unassessable once a vocabulary changes.
func (r *Register) Decode(raw []byte) (Values, error) {
	fields := slices.Clone(r.Fields)
	for _, d := range r.Derived {
		fields = append(fields, d.field())
	}
	v, err := decodeObject(fields, raw, "")
	if err != nil {
		return nil, fmt.Errorf("register %s: %w", r.Slug, err)
	}
	return v, nil
}

var null = []byte("null")

// decodeObject reads the object of fields at path, as errors name it
// ("duties.2"; empty for the entry's values).
func decodeObject(fields []Field, raw []byte, path string) (Values, error) {
	var stored map[string]json.RawMessage
	if err := json.Unmarshal(raw, &stored); err != nil || stored == nil {
		return nil, badValue(path, "an object", raw)
	}
	v := Values{}
	for _, fd := range fields {
		raw, ok := stored[fd.Name]
		if !ok || bytes.Equal(raw, null) {
			continue
		}
		value, err := decodeValue(fd, raw, join(path, fd.Name))
		if err != nil {
			return nil, err
		}
		v[fd.Name] = value
	}
	return v, nil
}

func decodeValue(fd Field, raw json.RawMessage, path string) (Value, error) {
	switch fd.Kind {
	case Text, Enum:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, badValue(path, "a string", raw)
		}
		return TextValue(s), nil
	case Date:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, badValue(path, "a date", raw)
		}
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return nil, badValue(path, "a date", raw)
		}
		return TextValue(s), nil
	case Bool:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return nil, badValue(path, "a boolean", raw)
		}
		return BoolValue(b), nil
	case Int:
		var n int
		if json.Unmarshal(raw, &n) != nil {
			return nil, badValue(path, "an integer", raw)
		}
		return IntValue(n), nil
	case Quantity:
		var q struct{ Value, Unit string }
		want := "a quantity in " + fd.Unit.Canonical
		if json.Unmarshal(raw, &q) != nil || q.Unit != fd.Unit.Canonical {
			return nil, badValue(path, want, raw)
		}
		d, err := decimal.NewFromString(q.Value)
		if err != nil {
			return nil, badValue(path, want, raw)
		}
		return QuantityValue(d, q.Unit), nil
	case Component, Document, Scenario:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, badValue(path, "a uuid", raw)
		}
		id, err := uuid.Parse(s)
		if err != nil {
			return nil, badValue(path, "a uuid", raw)
		}
		return IDValue(id), nil
	case Enums:
		var list []*string
		if json.Unmarshal(raw, &list) != nil {
			return nil, badValue(path, "a list of strings", raw)
		}
		out := make([]string, len(list))
		for i, s := range list {
			if s == nil {
				return nil, badValue(path, "a list of strings", raw)
			}
			out[i] = *s
		}
		return EnumsValue(out), nil
	case Objects:
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil, badValue(path, "a list of objects", raw)
		}
		out := make([]Values, len(list))
		for i, e := range list {
			entry, err := decodeObject(fd.Fields, e, join(path, itoa(i)))
			if err != nil {
				return nil, err
			}
			out[i] = entry
		}
		return ObjectsValue(out), nil
	}
	return nil, fmt.Errorf("value %s: undeclared kind %d", path, fd.Kind)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// badValue names the stored value that is not what its field declares.
func badValue(path, want string, raw []byte) error {
	if path == "" {
		return fmt.Errorf("stored values are not %s: %.80s", want, raw)
	}
	return fmt.Errorf("stored value %s is not %s: %.80s", path, want, raw)
}
