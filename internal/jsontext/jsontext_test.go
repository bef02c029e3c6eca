package jsontext

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Strings are written byte for byte as json.Marshal writes them, whatever
// their text.
func TestStringsAreWrittenAsJSONMarshalWritesThem(t *testing.T) {
	for _, s := range []string{"", "Box", "Łódź żółć", "a\"b\\c", "<b>&amp;</b>", "tab\there\nline", "\x00\x1f\x7f",
		"\u2028\u2029", "bad \xff utf-8", "\uFFFD", "€ 1,5", "emoji 🙂"} {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(AppendString(nil, s)), s)
	}
}
