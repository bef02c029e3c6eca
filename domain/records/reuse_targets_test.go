package records

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"ppwr/internal/rules"
)

func TestAReuseTargetAppliesFromItsYearAndWaitsForItsAct(t *testing.T) {
	share := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	grouped := reuseTargetsOf("grouped_box")[0]
	for _, c := range []struct {
		year  int
		share *decimal.Decimal
		want  string
	}{
		{2029, share("50"), "not_applicable"},
		{2030, share("10"), "met"},
		{2030, share("9.99"), "not_met"},
		{2031, nil, "no_data"},
	} {
		assert.Equal(t, c.want, targetStatus(grouped, c.share, c.year, rules.Acts{}).Status, "%d %v", c.year, c.share)
	}

	transport := reuseTargetsOf("pallet")[0]
	pending := targetStatus(transport, share("90"), 2031, rules.Acts{})
	assert.Equal(t, "not_applicable", pending.Status, "the Art. 30(3) act is not in force")
	assert.True(t, pending.Provisional)
	inForce := rules.Acts{"reuse_equivalent_units_method": time.Date(2029, 3, 1, 0, 0, 0, 0, time.UTC)}
	late := targetStatus(transport, share("90"), 2030, inForce)
	assert.Equal(t, "2030-09-01", late.AppliesFrom, "18 months after the act, later than 1 January 2030")
	assert.Equal(t, "not_applicable", late.Status)
	assert.Equal(t, "met", targetStatus(transport, share("40"), 2031, inForce).Status)
	assert.Equal(t, "endeavour", reuseTargetsOf("beverage_container")[1].Kind)
}
