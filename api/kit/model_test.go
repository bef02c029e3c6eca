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
	Share  string          `json:"share" schema:"decimal"`
	Grade  int             `json:"grade" schema:"min=1,max=22"`
	Copy   json.RawMessage `json:"copy" schema:"ref=Outer"`
}

func (modelOuter) Declare(s *Shape) {
	s.DescribeField("status", "outer.status")
	s.Keys("counts", "b", "a")
	s.Enum("inner.kind", "x", "y")
}

// TestModelDeclarations: a field hides the embedded one of its name, as in
// encoding/json; a Declarer describes, keys maps and enumerates nested
// structs of other packages.
func TestModelDeclarations(t *testing.T) {
	got, err := json.Marshal(Schemas([]Model{ModelOf[modelOuter]("Outer").Described("schema.outer")})["Outer"])
	assert.NoError(t, err)
	assert.JSONEq(t, `{"type":"object","description":"schema.outer",
		"required":["copy","counts","done","grade","hash","inner","note","parts","share","status"],
		"properties":{
			"note":{"type":["string","null"]},
			"status":{"type":"string","description":"outer.status"},
			"hash":{"type":"string","pattern":"^[0-9a-f]{64}$"},
			"done":{"type":"boolean","const":true},
			"parts":{"type":"array","items":{"type":"object"}},
			"share":{"type":"string","pattern":"^[0-9]+(\\.[0-9]+)?$","examples":["12.5"]},
			"grade":{"type":"integer","minimum":1,"maximum":22},
			"copy":{"$ref":"#/components/schemas/Outer"},
			"counts":{"type":"object","required":["a","b"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}},
			"inner":{"type":"array","items":{"type":"object","required":["kind"],"properties":{"kind":{"type":"string","enum":["x","y"]}}}}}}`,
		string(got))
}

// An example is a value of its model's type, in the schema as it is
// encoded, and the list of the model shows a page of it.
func TestModelExample(t *testing.T) {
	assert.Panics(t, func() { ModelOf[modelInner]("Inner").Example(modelBase{}) }, "an example of another type")
	item := Schemas([]Model{ModelOf[modelInner]("Inner").Example(modelInner{Kind: "x"})})["Inner"]
	got, err := json.Marshal(item["examples"])
	assert.NoError(t, err)
	assert.JSONEq(t, `[{"kind":"x"}]`, string(got))
	page, err := json.Marshal(ListOf("Inner", item)["examples"])
	assert.NoError(t, err)
	assert.JSONEq(t, `[{"data":[{"kind":"x"}],"links":{"next":null},"requestId":"`+exampleRequestID+`"}]`, string(page))
	assert.NotContains(t, ListOf("Outer", Schemas([]Model{ModelOf[modelOuter]("Outer")})["Outer"]), "examples", "no example, no page")
}
