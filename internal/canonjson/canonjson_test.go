package canonjson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Keys sort by UTF-16 code units at every depth, white space goes, and
// strings keep everything JSON does not require escaping.
func TestCanonicalForm(t *testing.T) {
	out, err := Canonicalize([]byte(`{ "b": [1, {"z": null, "a": true}], "a": "x<y & \u2028\t\u0001\"\\", "é": 0, "\ud83d\ude00": -3, "ﬀ": 2 }`))
	require.NoError(t, err)
	assert.Equal(t, "{\"a\":\"x<y & \u2028\\t\\u0001\\\"\\\\\",\"b\":[1,{\"a\":true,\"z\":null}],\"é\":0,\"\U0001F600\":-3,\"ﬀ\":2}", string(out),
		"U+1F600 (surrogates D83D DE00) sorts before U+FB00 by UTF-16 code units, though after it by code points")
}

// Marshal of a struct is the canonical form of its JSON, whatever the
// field order.
func TestMarshalSortsStructFields(t *testing.T) {
	out, err := Marshal(struct {
		Z string `json:"z"`
		A int    `json:"a"`
	}{"<&>", 7})
	require.NoError(t, err)
	assert.Equal(t, `{"a":7,"z":"<&>"}`, string(out))
}

// A fractional or unsafe number has no single canonical spelling here:
// it is refused rather than written in a form a reader could not rebuild.
func TestFractionalNumbersAreRefused(t *testing.T) {
	for _, raw := range []string{`1.5`, `{"a":1e3}`, `9007199254740993`} {
		_, err := Canonicalize([]byte(raw))
		assert.Error(t, err, raw)
	}
}
