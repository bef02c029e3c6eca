package register

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"ppwr/internal/dictionaries"
)

// Each of the 27 Member States of the country dictionary has its official
// languages, and the vocabulary of label languages is exactly theirs.
func TestOfficialLanguagesCoverTheMemberStates(t *testing.T) {
	assert.Len(t, MemberStates, 27)
	for _, code := range MemberStates {
		assert.True(t, dictionaries.Default().IsMemberState(code), code)
		for _, l := range OfficialLanguages[code] {
			assert.Contains(t, LabelLanguages, l, code)
		}
	}
	assert.Len(t, LabelLanguages, 26, "the 24 official languages of the Union, Luxembourgish and Turkish")
	assert.True(t, slices.IsSorted(LabelLanguages))
}
