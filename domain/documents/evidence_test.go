package documents

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"ppwr/internal/i18n"
)

// The supplier e-mail names each value it asks for in words, in the
// request's language: every code has its name in both.
func TestEveryEvidenceCodeHasANameInBothLanguages(t *testing.T) {
	for _, c := range EvidenceCodes {
		for _, l := range i18n.Locales {
			assert.True(t, i18n.Has(l, EvidenceCodeLabel(c.Code)), "%s has no %s name", c.Code, l)
		}
	}
}
