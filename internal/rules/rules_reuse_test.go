package rules

import (
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"
)

func TestAReuseTargetAppliesFromItsYearAndWaitsForItsAct(t *testing.T) {
	share := func(s string) *decimal.Decimal { d := decimal.RequireFromString(s); return &d }
	grouped := ReuseTargets("grouped_box")[0]
	for _, c := range []struct {
		year  int
		share *decimal.Decimal
		want  string
	}{
		{2029, share("50"), TargetNotApplicable},
		{2030, share("10"), TargetMet},
		{2030, share("9.99"), TargetNotMet},
		{2031, nil, TargetNoData},
	} {
		status, _, _ := grouped.YearStatus(c.share, c.year, Acts{})
		assert.Equal(t, c.want, status, "%d %v", c.year, c.share)
	}

	transport := ReuseTargets("pallet")[0]
	status, _, provisional := transport.YearStatus(share("90"), 2031, Acts{})
	assert.Equal(t, TargetNotApplicable, status, "the Art. 30(3) act is not in force")
	assert.True(t, provisional)
	inForce := Acts{"reuse_equivalent_units_method": day("2029-03-01")}
	status, from, _ := transport.YearStatus(share("90"), 2030, inForce)
	assert.Equal(t, day("2030-09-01"), from, "18 months after the act, later than 1 January 2030")
	assert.Equal(t, TargetNotApplicable, status)
	status, _, _ = transport.YearStatus(share("40"), 2031, inForce)
	assert.Equal(t, TargetMet, status)
	assert.Equal(t, TargetEndeavour, ReuseTargets("beverage_container")[1].Kind)

	assert.Nil(t, ReusableShare(decimal.Zero, decimal.Zero), "no units, no share")
	assert.Equal(t, "33.33", ReusableShare(decimal.NewFromInt(1), decimal.NewFromInt(2)).String())
}
