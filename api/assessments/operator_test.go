package assessments_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The operator's obligations read the organization's compliance profile:
// each appears per market, citing the accepted profile entry it read.

const profilePath = "/ppwr/compliance-profile"

// cafe is the Polish profile of a HORECA take-away operator that lets
// customers bring their own cup, under a written policy, and offers no
// refill.
func (b *bench) cafe() map[string]any {
	return map[string]any{"country": "PL", "micro_enterprise": false, "final_distributor": true, "horeca_takeaway": true,
		"byo_container_offered": true, "byo_policy": b.proof, "refill_offered": false}
}

// profiled records a profile entry and, unless unreviewed, has the
// reviewer accept it.
func (b *bench) profiled(t *testing.T, values map[string]any, reviewed bool) string {
	t.Helper()
	id := b.created(t, b.tn, profilePath, map[string]any{"values": values})["id"].(string)
	if reviewed {
		res := b.send(t, b.reviewer, http.MethodPost, profilePath+"/"+id+"/review", map[string]any{"decision": "accepted", "reason": "Sprawdzone", "revision": 1})
		require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	}
	return id
}

// market is the rule's only market's result.
func market(t *testing.T, r map[string]any) map[string]any {
	t.Helper()
	require.Len(t, r["markets"], 1)
	return r["markets"].([]any)[0].(map[string]any)
}

func TestTheHORECADutiesPassWithAnAcceptedProfileAndNotWithout(t *testing.T) {
	b := newBench(t)
	b.complete(t)
	const onDuty = "2027-03-01"

	without := b.assess(t, onDuty)
	r56 := result(t, without, "R56")
	assert.Equal(t, "operator", r56["level"])
	assert.Equal(t, "insufficient_data", r56["outcome"], "no profile entry for Poland")
	assert.Equal(t, []any{"compliance-profile@PL"}, market(t, r56)["missing"])
	assert.Equal(t, b.scenario, market(t, r56)["market"])
	assert.Equal(t, "incomplete", without["status"])
	found := false
	for _, f := range b.openFindings(t) {
		message, _ := f.(map[string]any)["message"].(string)
		found = found || strings.Contains(message, "R56") && strings.Contains(message, "compliance-profile@PL")
	}
	assert.True(t, found, "the finding says to record the profile entry")
	assert.NotContains(t, result(t, without, "R01")["missing"], "R56", "R01 aggregates the item's rules, not the operator's")

	first := b.profiled(t, b.cafe(), false)
	assert.Equal(t, true, b.get(t, "/assessments/"+without["id"].(string))["stale"], "a new profile entry makes the assessment stale")
	unreviewed := b.assess(t, onDuty)
	assert.Equal(t, "insufficient_data", result(t, unreviewed, "R56")["outcome"], "an unreviewed entry is not read")

	res := b.send(t, b.reviewer, http.MethodPost, profilePath+"/"+first+"/review", map[string]any{"decision": "accepted", "reason": "Sprawdzone", "revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, true, b.get(t, "/assessments/"+unreviewed["id"].(string))["stale"], "so does its review")
	with := b.assess(t, onDuty)
	r56 = result(t, with, "R56")
	assert.Equal(t, "pass", r56["outcome"])
	assert.Equal(t, []any{first}, market(t, r56)["entries"], "the market cites the profile entry it read")
	assert.Equal(t, "not_applicable", result(t, with, "R47")["outcome"], "the profile offers no refill")
	assert.Equal(t, "no_refill_offered", market(t, result(t, with, "R47"))["reason"])
	assert.Equal(t, "not_yet_applicable", result(t, with, "R57")["outcome"], "the re-use offer starts on 12 February 2028")
	assert.Equal(t, "not_yet_applicable", result(t, b.assess(t, "2027-02-11"), "R56")["outcome"], "Art. 32 applies from 12 February 2027")

	// The re-use offer of Art. 33 needs its re-use system.
	cafe := b.cafe()
	delete(cafe, "byo_policy")
	cafe["reuse_offer_takeaway"] = true
	b.profiled(t, cafe, true)
	later := b.assess(t, "2028-03-01")
	r56 = result(t, later, "R56")
	assert.Equal(t, "documentation_missing", r56["outcome"], "the bring-your-own policy was removed")
	assert.Equal(t, []any{"compliance-profile.byo_policy@PL"}, market(t, r56)["missing"])
	assert.Equal(t, "documentation_missing", result(t, later, "R57")["outcome"])
	assert.Equal(t, []any{"compliance-profile.takeaway_reuse_system@PL"}, market(t, result(t, later, "R57"))["missing"])
}

func TestRefillIsDocumentedByAStationOfTheCountry(t *testing.T) {
	b := newBench(t)
	b.complete(t)
	refill := b.cafe()
	refill["refill_offered"], refill["refill_rules_published"] = true, true
	b.profiled(t, refill, true)
	r47 := result(t, b.assess(t, "2026-11-26"), "R47")
	assert.Equal(t, "documentation_missing", r47["outcome"])
	assert.Equal(t, []any{"refill-stations@PL"}, market(t, r47)["missing"])

	b.created(t, b.tn, "/ppwr/refill-stations", map[string]any{"name": "Stacja Gdańsk", "location": "ul. Długa 1, Gdańsk", "country": "PL",
		"refill_rules": "Przynieś czysty, suchy pojemnik."})
	r47 = result(t, b.assess(t, "2026-11-26"), "R47")
	assert.Equal(t, "pass", r47["outcome"])
	assert.Equal(t, []any{"1"}, market(t, r47)["reason_args"], "the stations counted")
	assert.Contains(t, market(t, r47)["reason_text"], "refill stations")
}

// The summary lists the HORECA duties as upcoming, then as applying,
// either side of 12 February 2027.
func TestTheSummaryOnEitherSideOfTheBringYourOwnDate(t *testing.T) {
	b := newBench(t)
	states := func(date string) map[string]string {
		out := map[string]string{}
		for _, r := range b.get(t, "/catalog-items/"+b.item+"/ppwr-summary?date="+date)["rules"].([]any) {
			out[r.(map[string]any)["rule"].(string)] = r.(map[string]any)["state"].(string)
		}
		return out
	}
	before, after := states("2027-02-11"), states("2027-02-12")
	assert.Equal(t, "upcoming", before["R56"])
	assert.Equal(t, "applies", after["R56"])
	assert.Equal(t, "applies", before["R47"], "refill duties apply from 12 August 2026")
	assert.Equal(t, "upcoming", after["R57"])
}
