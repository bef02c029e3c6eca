package imports

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Cells and changes are written byte for byte as json.Marshal writes their
// maps, whatever their text.
func TestTextObjectsAreWrittenAsJSONMarshalWritesThem(t *testing.T) {
	texts := []string{"", "Box", "Łódź żółć", "a\"b\\c", "<b>&amp;</b>", "tab\there\nline", "\x00\x1f\x7f",
		"\u2028\u2029", "bad \xff utf-8", "\uFFFD", "€ 1,5", "emoji 🙂"}
	cells := map[string]string{}
	fields := map[string]*string{"null": nil}
	for i, s := range texts {
		cells[s+"k"] = s
		fields[string(rune('a'+i))+s] = &texts[i]
	}
	want, err := json.Marshal(cells)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(cellsJSON(cells)))
	assert.Equal(t, "{}", string(cellsJSON(map[string]string{})))
	for _, c := range []RowChange{{Fields: fields}, {Fields: map[string]*string{}}, {Fields: fields, PlannedOnly: true},
		{Fields: fields, Revision: 2}, {}} {
		want, err = json.Marshal(c)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(changeJSON(c)))
	}
}
