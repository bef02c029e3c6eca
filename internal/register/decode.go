package register

import (
	"encoding/json"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/input"
)

// Decode reads stored values back into their Go types, as the register's
// fields declare them: what rules evaluate is what binding produced.
func (r *Register) Decode(raw []byte) (Values, error) {
	var stored map[string]any
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, err
	}
	v := decodeFields(r.Fields, stored)
	for _, d := range r.Derived {
		if d.Kind == Quantity || d.Kind == Enums {
			v[d.Name] = decodeValue(Field{Kind: d.Kind}, stored[d.Name])
		} else if stored[d.Name] != nil {
			v[d.Name] = stored[d.Name]
		}
	}
	return v, nil
}

func decodeFields(fields []Field, stored map[string]any) Values {
	v := Values{}
	for _, fd := range fields {
		if value := decodeValue(fd, stored[fd.Name]); value != nil {
			v[fd.Name] = value
		}
	}
	return v
}

func decodeValue(fd Field, raw any) any {
	if raw == nil {
		return nil
	}
	switch fd.Kind {
	case Int:
		if n, ok := raw.(float64); ok {
			return int(n)
		}
	case Quantity:
		m, _ := raw.(map[string]any)
		s, _ := m["value"].(string)
		unit, _ := m["unit"].(string)
		if d, err := decimal.NewFromString(s); err == nil {
			return input.Quantity{Value: d, Unit: unit}
		}
	case Component, Document, Scenario:
		s, _ := raw.(string)
		if id, err := uuid.Parse(s); err == nil {
			return id
		}
	case Enums:
		list, _ := raw.([]any)
		out := make([]string, 0, len(list))
		for _, e := range list {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	case Objects:
		list, _ := raw.([]any)
		out := make([]Values, 0, len(list))
		for _, e := range list {
			m, _ := e.(map[string]any)
			out = append(out, decodeFields(fd.Fields, m))
		}
		return out
	default:
		return raw
	}
	return nil
}
