package input

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shipment requires a carrier for shipped parcels, and a tracking number
// for shipped parcels sent by courier.
type shipment struct {
	Errors
	State, Mode, Carrier, Tracking Opt[string]
	Insured                        Opt[bool]
	Value, Label                   Opt[string]
	Declared                       Opt[bool]
}

func (s *shipment) Declare(f *Fields) {
	f.Enum("state", &s.State, Enum{Required: true, Values: []string{"draft", "shipped"}})
	f.Enum("mode", &s.Mode, Enum{Values: []string{"post", "courier"}})
	f.Bool("insured", &s.Insured, Bool{})
	f.Text("carrier", &s.Carrier, Text{Nullable: true, Max: 20})
	f.Text("tracking", &s.Tracking, Text{Nullable: true, Max: 20})
	f.Text("value", &s.Value, Text{Max: 20})
	f.RequiredWhen("carrier", Is("state", "shipped"))
	f.RequiredWhen("tracking", Is("state", "shipped"), Is("mode", "courier"))
	f.RequiredWhen("value", Is("insured", true))
	f.RequiredWith("mode", "tracking")
	f.Text("label", &s.Label, Text{Max: 20})
	f.RequiredUnless("label", "tracking")
	f.Bool("declared", &s.Declared, Bool{FalseKey: "field.sole_responsibility"})
}

// The binder and the published schema agree on every body: each refusal
// is the schema's, and each body the binder accepts the schema accepts.
func TestRequiredWhenBindsAsItIsDescribed(t *testing.T) {
	described, err := json.Marshal(Describe(&shipment{}))
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(described))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("shipment.json", doc))
	schema, err := c.Compile("shipment.json")
	require.NoError(t, err)

	cases := []struct {
		body   string
		errors map[string]string
	}{
		{`{"state":"draft","label":"L"}`, map[string]string{}},
		{`{"state":"draft"}`, map[string]string{"label": "field.required_unless_given"}},
		{`{"state":"draft","label":"L","declared":true}`, map[string]string{}},
		{`{"state":"draft","label":"L","declared":false}`, map[string]string{"declared": "field.sole_responsibility"}},
		{`{"state":"shipped","label":"L"}`, map[string]string{"carrier": "field.required_with"}},
		{`{"state":"shipped","carrier":null,"label":"L"}`, map[string]string{"carrier": "field.required_with"}},
		{`{"state":"shipped","carrier":"DPD","mode":"post","label":"L"}`, map[string]string{}},
		{`{"state":"shipped","carrier":"DPD","mode":"courier","label":"L"}`, map[string]string{"tracking": "field.required"}},
		{`{"state":"draft","mode":"courier","label":"L"}`, map[string]string{}},
		{`{"state":"draft","insured":true,"label":"L"}`, map[string]string{"value": "field.required_with"}},
		{`{"state":"draft","insured":false,"label":"L"}`, map[string]string{}},
		{`{"state":"draft","tracking":"X1"}`, map[string]string{"mode": "field.required_when_given"}},
		{`{"state":"draft","tracking":"X1","mode":"post"}`, map[string]string{}},
		// A condition on an invalid value does not hold: that field has
		// its own error, and no second one is piled on.
		{`{"state":"lost","label":"L"}`, map[string]string{"state": "field.one_of"}},
	}
	for _, tc := range cases {
		var s shipment
		require.NoError(t, FromJSON([]byte(tc.body), &s))
		assert.Equal(t, tc.errors, keys(&s.Errors), tc.body)
		if len(tc.errors) == 0 {
			body, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.body))
			require.NoError(t, err)
			assert.NoError(t, schema.Validate(body), "the schema accepts %s", tc.body)
		} else if _, invalidValue := tc.errors["state"]; !invalidValue {
			body, err := jsonschema.UnmarshalJSON(strings.NewReader(tc.body))
			require.NoError(t, err)
			assert.Error(t, schema.Validate(body), "the schema refuses %s", tc.body)
		}
	}
}

// A requirement naming a field not declared before it is a programming
// error, found when the document is built.
func TestRequiredWhenNeedsItsConditionDeclared(t *testing.T) {
	assert.Panics(t, func() { Describe(&undeclaredCondition{}) })
}

type undeclaredCondition struct{ Errors }

func (u *undeclaredCondition) Declare(f *Fields) { f.RequiredWhen("carrier", Is("state", "shipped")) }
