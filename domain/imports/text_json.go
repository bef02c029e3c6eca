package imports

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/internal/jsontext"
)

// A preview writes two objects of text values for every row: the cells as
// read and a create's fields. json.Marshal reflected over each map and
// sorted its keys as reflect values: a third of the CPU time of planning a
// 100,000-row catalogue. These write the same bytes directly.

// changeJSON is the change as json.Marshal writes it. A create's change,
// which holds only its fields, is written directly.
func changeJSON(c RowChange) datatypes.JSON {
	if c.Fields == nil || c.CatalogItem != uuid.Nil || c.Changes != nil || c.CodeMapping != uuid.Nil ||
		c.Document != uuid.Nil || c.Party != uuid.Nil || c.PlannedOnly || c.Revision != 0 {
		return mustJSON(c)
	}
	fields := textObject(c.Fields, func(v *string) (string, bool) {
		if v == nil {
			return "", false
		}
		return *v, true
	})
	return append(append([]byte(`{"fields":`), fields...), '}')
}

// createJSON is the change of a create with the fields sent, as
// changeJSON writes it: the fields are in the order of their names.
func createJSON(fields []sentField) datatypes.JSON {
	size := len(`{"fields":{}}`)
	for _, f := range fields {
		size += len(f.name) + len(f.text) + len(`"":"",`)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"fields":{`...)
	first := true
	for _, f := range fields {
		if !f.sent {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(jsontext.AppendString(b, f.name), ':')
		if f.null {
			b = append(b, "null"...)
		} else {
			b = jsontext.AppendString(b, f.text)
		}
	}
	return append(b, "}}"...)
}

// cellsJSON is a row's cells as json.Marshal writes them.
func cellsJSON(cells map[string]string) []byte {
	return textObject(cells, func(v string) (string, bool) { return v, true })
}

// textObject writes m as a JSON object with its keys in order, each
// value given by value as text, or null when it answers false.
func textObject[V any](m map[string]V, value func(V) (string, bool)) []byte {
	// The keys of a row's few cells are sorted on the stack, and the text
	// is written into one allocation of its size (unless escaped).
	var stack [16]string
	size, keys := 2, stack[:0]
	for k, v := range m {
		t, _ := value(v)
		size += len(k) + len(t) + len(`"":"",`)
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := make([]byte, 0, size)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsontext.AppendString(b, k), ':')
		if v, ok := value(m[k]); ok {
			b = jsontext.AppendString(b, v)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}

// createCells reads a create's plan, as PostgreSQL renders the jsonb that
// changeJSON wrote ({"fields": {...}} of text values and nulls), straight
// into cells, a null as an empty cell. encoding/json took a fifth of a
// catalogue apply's CPU time in this process reading them into a map by
// reflection. The names and values are parts of one copy of the plan as
// text, not a string each. ok is false for any other plan, and for text
// with an escape or that is not UTF-8, which plannedCells leaves to
// encoding/json.
func createCells(doc []byte) (cells map[string]string, ok bool) {
	s := jsonScan{doc: string(doc)}
	if !s.token('{') || !s.key("fields") || !s.token('{') {
		return nil, false
	}
	cells = make(map[string]string, len(CatalogImportColumns))
	for first := true; !s.token('}'); first = false {
		if !first && !s.token(',') {
			return nil, false
		}
		name, ok := s.text()
		if !ok || !s.token(':') {
			return nil, false
		}
		if s.null() {
			cells[name] = ""
		} else if cells[name], ok = s.text(); !ok {
			return nil, false
		}
	}
	if !s.token('}') {
		return nil, false
	}
	s.space()
	return cells, s.at == len(s.doc)
}

// jsonScan reads the tokens of a JSON document of plain text: strings
// without escapes.
type jsonScan struct {
	doc string
	at  int
}

func (s *jsonScan) space() {
	for s.at < len(s.doc) && (s.doc[s.at] == ' ' || s.doc[s.at] == '\t' || s.doc[s.at] == '\n' || s.doc[s.at] == '\r') {
		s.at++
	}
}

// token skips c, if it comes next.
func (s *jsonScan) token(c byte) bool {
	s.space()
	if s.at < len(s.doc) && s.doc[s.at] == c {
		s.at++
		return true
	}
	return false
}

// key skips the object key name and its colon, if they come next.
func (s *jsonScan) key(name string) bool {
	k, ok := s.text()
	return ok && k == name && s.token(':')
}

// null skips a null, if one comes next.
func (s *jsonScan) null() bool {
	s.space()
	if strings.HasPrefix(s.doc[s.at:], "null") {
		s.at += len("null")
		return true
	}
	return false
}

// text reads the string that comes next; ok is false when none does, or
// it holds an escape or bytes that are not UTF-8.
func (s *jsonScan) text() (string, bool) {
	s.space()
	if s.at == len(s.doc) || s.doc[s.at] != '"' {
		return "", false
	}
	for i := s.at + 1; i < len(s.doc); i++ {
		switch c := s.doc[i]; {
		case c == '"':
			t := s.doc[s.at+1 : i]
			if !utf8.ValidString(t) {
				return "", false
			}
			s.at = i + 1
			return t, true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}
