package kit

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

type modelInner struct {
	Kind string `json:"kind"`
}

type modelBase struct {
	Note   string `json:"note"`
	Status string `json:"status"`
}

type modelOuter struct {
	modelBase
	Note   *string         `json:"note"`
	Hash   string          `json:"hash" schema:"sha256"`
	Done   bool            `json:"done" schema:"const=true"`
	Counts map[string]int  `json:"counts"`
	Inner  []modelInner    `json:"inner"`
	Parts  json.RawMessage `json:"parts" schema:"objects"`
}

func (modelOuter) Declare(s *Shape) {
	s.Describe("schema.outer")
	s.DescribeField("status", "outer.status")
	s.Keys("counts", "b", "a")
	s.Enum("inner.kind", "x", "y")
}

// TestModelDeclarations: a field hides the embedded one of its name, as in
// encoding/json; a Declarer describes, keys maps and enumerates nested
// structs of other packages.
func TestModelDeclarations(t *testing.T) {
	got, err := json.Marshal(Schemas([]Model{ModelOf[modelOuter]("Outer")})["Outer"])
	assert.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","description":"schema.outer",
		"required":["counts","done","hash","inner","note","parts","status"],
		"properties":{
			"note":{"type":["string","null"]},
			"status":{"type":"string","description":"outer.status"},
			"hash":{"type":"string","pattern":"^[0-9a-f]{64}$"},
			"done":{"type":"boolean","const":true},
			"parts":{"type":"array","items":{"type":"object"}},
			"counts":{"type":"object","required":["a","b"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}},
			"inner":{"type":"array","items":{"type":"object","required":["kind"],"properties":{"kind":{"type":"string","enum":["x","y"]}}}}}}`,
		string(got))
}
