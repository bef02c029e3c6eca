package rules

import (
	"maps"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/assert"

	"ppwr/internal/register"
)

func datep(s string) *time.Time { d := day(s); return &d }

// request is an authority request received on the day, due 10 days later
// as the law and the records have it, answered on answered ("" for not).
func request(ref, received, answered string) AuthorityRequest {
	r := AuthorityRequest{Reference: ref, ReceivedOn: day(received), DueOn: day(received).AddDate(0, 0, 10)}
	if answered != "" {
		r.AnsweredOn = datep(answered)
	}
	return r
}

func TestAuthorityRequestDeadline(t *testing.T) {
	for _, c := range []struct {
		name     string
		on       string
		requests []AuthorityRequest
		outcome  string
		reason   string
		args     []string
	}{
		{"no request names the item", "2026-11-26", nil, NotApplicable, "rules.no_authority_request", nil},
		{"a request received after the date is not known on it", "2026-11-26", []AuthorityRequest{request("A-1", "2026-11-27", "")},
			NotApplicable, "rules.no_authority_request", nil},
		{"just before the 10th day", "2026-11-10", []AuthorityRequest{request("A-1", "2026-11-01", "")},
			Pass, "rules.authority_request_due", []string{"A-1", "2026-11-11"}},
		{"on the 10th day it is still in time", "2026-11-11", []AuthorityRequest{request("A-1", "2026-11-01", "")},
			Pass, "rules.authority_request_due", []string{"A-1", "2026-11-11"}},
		{"after the 10th day unanswered", "2026-11-12", []AuthorityRequest{request("A-1", "2026-11-01", "")},
			Fail, "rules.authority_request_overdue", []string{"A-1", "2026-11-11"}},
		{"answered on the 10th day", "2026-12-01", []AuthorityRequest{request("A-1", "2026-11-01", "2026-11-11")},
			Pass, "rules.authority_requests_answered_in_time", nil},
		{"answered the day after: late, but supplied", "2026-12-01", []AuthorityRequest{request("A-1", "2026-11-01", "2026-11-12")},
			Pass, "rules.authority_request_answered_late", []string{"A-1", "2026-11-11", "2026-11-12"}},
		{"an answer after the date is not known on it", "2026-11-12", []AuthorityRequest{request("A-1", "2026-11-01", "2026-11-13")},
			Fail, "rules.authority_request_overdue", []string{"A-1", "2026-11-11"}},
		{"an overdue request fails whatever the others", "2026-11-20",
			[]AuthorityRequest{request("A-1", "2026-11-01", "2026-11-02"), request("A-2", "2026-11-05", ""), request("A-3", "2026-11-15", "")},
			Fail, "rules.authority_request_overdue", []string{"A-2", "2026-11-15"}},
		{"the open request due first is named before a late answer", "2026-11-20",
			[]AuthorityRequest{request("A-1", "2026-11-01", "2026-11-19"), request("A-2", "2026-11-15", "")},
			Pass, "rules.authority_request_due", []string{"A-2", "2026-11-25"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := itemOn(day(c.on))
			in.AuthorityRequests = c.requests
			res := outcome(t, "R38", in)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.reason, res.Reason)
			assert.Equal(t, c.args, res.ReasonArgs)
		})
	}
}

func TestSupplierInformationPerComponent(t *testing.T) {
	answer := func(component *uuid.UUID, accepted, cancelled bool) SupplierAnswer {
		return SupplierAnswer{Component: component, Accepted: accepted, Cancelled: cancelled}
	}
	missingBody, missingClosure := "supplier-requests@"+body.String(), "supplier-requests@"+closure.String()
	for _, c := range []struct {
		name      string
		sourcing  string
		noParts   bool
		answers   []SupplierAnswer
		documents []SupplierDocument
		outcome   string
		missing   []string
	}{
		{"made by the organization", "own_production", false, nil, nil, NotApplicable, nil},
		{"received with products", "received_with_products", false, nil, nil, NotApplicable, nil},
		{"bought without any answer", "purchased", false, nil, nil, DocumentationMissing, []string{missingBody, missingClosure}},
		{"one part answered", "purchased", false, []SupplierAnswer{answer(&body, false, false)}, nil, DocumentationMissing, []string{missingClosure}},
		{"every part answered", "imported", false, []SupplierAnswer{answer(&body, false, false), answer(&closure, true, false)}, nil, Pass, nil},
		{"a line about the whole item answers each part", "purchased", false, []SupplierAnswer{answer(nil, false, false)}, nil, Pass, nil},
		{"an answer left unreviewed in a cancelled request does not count", "purchased", false,
			[]SupplierAnswer{answer(nil, false, true)}, nil, DocumentationMissing, []string{missingBody, missingClosure}},
		{"an accepted answer stays when its request is cancelled", "purchased", false, []SupplierAnswer{answer(nil, true, true)}, nil, Pass, nil},
		{"an approved supplier document valid on the date", "purchased", false, nil,
			[]SupplierDocument{{ValidFrom: datep("2026-01-01"), ValidUntil: datep("2026-11-26")}}, Pass, nil},
		{"a supplier document no longer valid", "purchased", false, nil,
			[]SupplierDocument{{ValidUntil: datep("2026-11-25")}}, DocumentationMissing, []string{missingBody, missingClosure}},
		{"a supplier document not valid yet", "purchased", false, nil,
			[]SupplierDocument{{ValidFrom: datep("2026-11-27")}}, DocumentationMissing, []string{missingBody, missingClosure}},
		{"an item without parts needs an answer about itself", "purchased", true, nil, nil, DocumentationMissing, []string{"supplier-requests"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := itemOn(general)
			if c.noParts {
				in.Item.Components = nil
			}
			in.Sourcing, in.SupplierAnswers, in.SupplierDocuments = c.sourcing, c.answers, c.documents
			res := outcome(t, "R39", in)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.missing, res.Missing)
			if c.outcome == NotApplicable {
				assert.Equal(t, "rules.not_bought_from_supplier", res.Reason, "the scope decision is given")
			}
		})
	}
}

func TestSupplyCounterpartiesWithinTheRetention(t *testing.T) {
	reusableClass := classification(register.Values{"reuse_type": register.TextValue("reusable")})
	singleUseClass := classification(register.Values{"reuse_type": register.TextValue("single_use")})
	days := func(d string, records, anonymous int) []SupplyDay {
		return []SupplyDay{{On: day(d), Records: records, WithoutCounterparty: anonymous}}
	}
	for _, c := range []struct {
		name      string
		on        string
		reuseType string
		entries   []Entry
		days      []SupplyDay
		outcome   string
		args      []string
	}{
		{"no supply record", "2026-11-26", "single_use", nil, nil, NotApplicable, []string{"5"}},
		{"named counterparties", "2026-11-26", "single_use", nil, days("2026-11-20", 3, 0), Pass, []string{"5"}},
		{"single-use: the 5th anniversary is still kept", "2031-11-26", "single_use", nil, days("2026-11-26", 2, 1),
			DocumentationMissing, []string{"1", "5"}},
		{"single-use: a day past 5 years", "2031-11-27", "single_use", nil, days("2026-11-26", 2, 1), NotApplicable, []string{"5"}},
		{"reusable by classification: 10 years", "2036-11-26", "single_use", []Entry{reusableClass}, days("2026-11-26", 2, 2),
			DocumentationMissing, []string{"2", "10"}},
		{"reusable by classification: a day past 10 years", "2036-11-27", "single_use", []Entry{reusableClass}, days("2026-11-26", 2, 2),
			NotApplicable, []string{"10"}},
		{"refillable item without classification: 10 years", "2031-11-27", "refillable", nil, days("2026-11-26", 1, 1),
			DocumentationMissing, []string{"1", "10"}},
		{"the classification decides over the catalogue", "2031-11-27", "reusable", []Entry{singleUseClass}, days("2026-11-26", 1, 1),
			NotApplicable, []string{"5"}},
		{"before the Regulation applies", "2026-11-26", "single_use", nil, days("2026-08-11", 1, 1), NotApplicable, []string{"5"}},
		{"from the day it applies", "2026-11-26", "single_use", nil, days("2026-08-12", 1, 1), DocumentationMissing, []string{"1", "5"}},
		{"a record after the date is not known on it", "2026-11-26", "single_use", nil, days("2026-11-27", 1, 1), NotApplicable, []string{"5"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := itemOn(day(c.on), c.entries...)
			in.ReuseType, in.SupplyDays = c.reuseType, c.days
			res := outcome(t, "R40", in)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.args, res.ReasonArgs)
			if c.outcome == DocumentationMissing {
				assert.Equal(t, []string{"flows.counterparty_name"}, res.Missing)
			}
		})
	}
}

func TestEPRFormThreshold(t *testing.T) {
	for mass, form := range map[string]string{"0": EPRSimplified, "9999999.999": EPRSimplified, "10000000": EPRFull, "10000000.001": EPRFull} {
		assert.Equal(t, form, EPRForm(decimal.RequireFromString(mass)), mass)
	}
}

// duties is an accepted role-duties entry of the market scenario.
func duties(scenario uuid.UUID, v register.Values) Entry {
	v = maps.Clone(v)
	v["scenario"] = register.IDValue(scenario)
	return accepted("role-duties", v)
}

func TestEPRReportPerMarket(t *testing.T) {
	pl, de := uuid.New(), uuid.New()
	producer := register.Values{"epr_producer": register.BoolValue(true)}
	report := func(country string, year int, form, status, yearMass string) EPRReport {
		r := EPRReport{Country: country, Year: year, Form: form, ReviewStatus: status,
			PeriodFrom: time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC), PeriodTo: time.Date(year, 12, 31, 0, 0, 0, 0, time.UTC)}
		if yearMass != "" {
			m := decimal.RequireFromString(yearMass)
			r.YearMassG = &m
		}
		return r
	}
	partial := report("PL", 2026, EPRSimplified, EPRApproved, "1000")
	partial.PeriodTo = day("2026-06-30")
	for _, c := range []struct {
		name    string
		on      string
		entries []Entry
		reports []EPRReport
		outcome string
		reason  string
		missing []string
	}{
		{"no role-duties entry for the market", "2027-06-02", nil, nil, InsufficientData, "", []string{"role-duties@PL"}},
		{"not the producer", "2027-06-02", []Entry{duties(pl, register.Values{"epr_producer": register.BoolValue(false)})}, nil,
			NotApplicable, "rules.not_epr_producer_in_market", nil},
		{"on 1 June 2027 the first report is not late yet", "2027-06-01", []Entry{duties(pl, producer)}, nil,
			NotApplicable, "rules.epr_report_not_due_yet", nil},
		{"from 2 June 2027 the 2026 report is due", "2027-06-02", []Entry{duties(pl, producer)}, nil,
			DocumentationMissing, "rules.epr_report_missing", []string{"epr-reports@PL/2026"}},
		{"on 1 June 2028 the 2026 report is still the last due", "2028-06-01", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRFull, EPRApproved, "")}, Pass, "", nil},
		{"from 2 June 2028 the 2027 report", "2028-06-02", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRFull, EPRApproved, "")}, DocumentationMissing, "rules.epr_report_missing", []string{"epr-reports@PL/2027"}},
		{"simplified below 10 t", "2027-06-02", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRSimplified, EPRApproved, "9999999.999")}, Pass, "", nil},
		{"simplified while the year reaches 10 t", "2027-06-02", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRSimplified, EPRApproved, "10000000")}, Fail, "rules.epr_report_form_mismatch", nil},
		{"simplified while the year is above 10 t", "2027-06-02", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRSimplified, EPRApproved, "12000000")}, Fail, "rules.epr_report_form_mismatch", nil},
		{"a newer full report corrects it", "2027-06-02", []Entry{duties(pl, producer)},
			[]EPRReport{report("PL", 2026, EPRFull, EPRApproved, ""), report("PL", 2026, EPRSimplified, EPRApproved, "12000000")}, Pass, "", nil},
		{"not approved", "2027-06-02", []Entry{duties(pl, producer)}, []EPRReport{report("PL", 2026, EPRFull, "unreviewed", "")},
			DocumentationMissing, "rules.epr_report_not_approved", []string{"epr-reports@PL/2026"}},
		{"half a year", "2027-06-02", []Entry{duties(pl, producer)}, []EPRReport{partial},
			DocumentationMissing, "rules.epr_report_not_whole_year", []string{"epr-reports@PL/2026"}},
		{"another market's report", "2027-06-02", []Entry{duties(pl, producer)}, []EPRReport{report("DE", 2026, EPRFull, EPRApproved, "")},
			DocumentationMissing, "rules.epr_report_missing", []string{"epr-reports@PL/2026"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := itemOn(day(c.on), c.entries...)
			in.Markets, in.EPRReports = []Market{{ID: pl, Country: "PL"}}, c.reports
			res := outcome(t, "R59", in)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.reason, res.Reason)
			if assert.Len(t, res.Markets, 1) {
				assert.Equal(t, MarketResult{Market: pl, Country: "PL", Outcome: c.outcome, Reason: c.reason, Missing: c.missing,
					Entries: res.Entries}, res.Markets[0])
			}
		})
	}

	in := itemOn(day("2027-06-02"), duties(pl, producer), duties(de, producer))
	in.Markets, in.EPRReports = []Market{{ID: pl, Country: "PL"}, {ID: de, Country: "DE"}}, []EPRReport{report("PL", 2026, EPRFull, EPRApproved, "")}
	res := outcome(t, "R59", in)
	assert.Equal(t, DocumentationMissing, res.Outcome, "the worst market decides")
	assert.Equal(t, []string{"epr-reports@DE/2026"}, res.Missing)
	assert.Equal(t, []string{Pass, DocumentationMissing}, []string{res.Markets[0].Outcome, res.Markets[1].Outcome})

	in.Markets = nil
	assert.Equal(t, Result{Rule: "R59", Article: "Art. 44(7), 44(8)", Check: Documentation, Outcome: InsufficientData, Missing: []string{"markets"},
		AppliesFrom: generalApplication.Fixed}, outcome(t, "R59", in), "an item on no market cannot show its market duties")
}

func TestPlatformsCollectProducersRegistrations(t *testing.T) {
	pl := uuid.New()
	evidence := register.IDValue(uuid.New())
	role := func(roles []string, dutyList ...register.Values) Entry {
		v := register.Values{"economic_roles": register.EnumsValue(roles)}
		if len(dutyList) > 0 {
			v["duties"] = register.ObjectsValue(dutyList)
		}
		return duties(pl, v)
	}
	duty := func(code, status string, proof bool) register.Values {
		d := register.Values{"duty_code": register.TextValue(code), "article": register.TextValue("Art. 45(4)"), "status": register.TextValue(status)}
		if proof {
			d["evidence"] = evidence
		}
		return d
	}
	missing := []string{"role-duties.duties.producer_registration_collected@PL"}
	for _, c := range []struct {
		name    string
		entries []Entry
		outcome string
		reason  string
		missing []string
	}{
		{"no role-duties entry", nil, InsufficientData, "", []string{"role-duties@PL"}},
		{"neither a platform nor a fulfilment provider", []Entry{role([]string{"manufacturer", "producer"})},
			NotApplicable, "rules.not_platform_or_fulfilment", nil},
		{"a platform without the duty", []Entry{role([]string{"online_platform"})},
			DocumentationMissing, "rules.producer_registrations_not_collected", missing},
		{"a platform with another duty done", []Entry{role([]string{"online_platform"}, duty("EU_DOC", "done", true))},
			DocumentationMissing, "rules.producer_registrations_not_collected", missing},
		{"done with evidence", []Entry{role([]string{"fulfilment_service_provider"}, duty(ProducerRegistrationCollected, "done", true))},
			Pass, "", nil},
		{"done without evidence", []Entry{role([]string{"online_platform"}, duty(ProducerRegistrationCollected, "done", false))},
			DocumentationMissing, "rules.producer_registrations_not_collected", missing},
		{"still open", []Entry{role([]string{"online_platform"}, duty(ProducerRegistrationCollected, "open", true))},
			DocumentationMissing, "rules.producer_registrations_not_collected", missing},
		{"marked not applicable on review", []Entry{role([]string{"online_platform"}, duty(ProducerRegistrationCollected, "not_applicable", false))},
			NotApplicable, "rules.duty_not_applicable", nil},
		{"the newest entry of the market counts", []Entry{role([]string{"online_platform"}),
			role([]string{"online_platform"}, duty(ProducerRegistrationCollected, "done", true))},
			DocumentationMissing, "rules.producer_registrations_not_collected", missing},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := itemOn(general, c.entries...)
			in.Markets = []Market{{ID: pl, Country: "PL"}}
			res := outcome(t, "R61", in)
			assert.Equal(t, c.outcome, res.Outcome)
			assert.Equal(t, c.reason, res.Reason)
			assert.Equal(t, c.missing, res.Missing)
			if assert.Len(t, res.Markets, 1) {
				assert.Equal(t, c.outcome, res.Markets[0].Outcome)
				assert.Equal(t, "PL", res.Markets[0].Country)
			}
		})
	}
}

func TestTheSupplyRulesApplyFromTheGeneralDate(t *testing.T) {
	for _, code := range []string{"R38", "R39", "R40", "R59", "R61"} {
		in := itemOn(day("2026-08-11"))
		in.Sourcing = "purchased"
		assert.Equal(t, NotYetApplicable, outcome(t, code, in).Outcome, code)
		in.On = generalApplication.Fixed
		assert.NotEqual(t, NotYetApplicable, outcome(t, code, in).Outcome, code)
	}
}
