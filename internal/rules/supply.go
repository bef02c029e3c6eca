package rules

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/internal/register"
)

// Duties toward authorities and along the supply chain: documentation on
// request (R38), supplier information (R39), traceability (R40), EPR
// reporting (R59) and the platforms' and fulfilment providers' checks
// (R61).

var supplyRules = []Rule{
	{Code: "R38", Article: "Art. 15(10), 17(2)(c)-(d), 18(8)", RuleSet: "economic_operators", Check: PassFail, Start: generalApplication,
		Reads: []string{"authority requests"}, eval: authorityDeadline},
	{Code: "R39", Article: "Art. 16", RuleSet: "supply_chain", Check: Documentation, Start: generalApplication,
		Reads: []string{"catalogue sourcing type", "supplier requests", "documents"}, eval: supplierInformation},
	{Code: "R40", Article: "Art. 22", RuleSet: "supply_chain", Check: Documentation, Start: generalApplication,
		Reads: []string{"supply events", "flows", "packaging-classification"}, eval: supplyCounterparties},
	{Code: "R59", Article: "Art. 44(7), 44(8)", RuleSet: "economic_operators", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties", "EPR reports", "flows"}, eval: eprReport},
	{Code: "R61", Article: "Art. 45(4)-(8)", RuleSet: "economic_operators", Check: Documentation, Level: MarketLevel, Start: generalApplication,
		Reads: []string{"role-duties"}, eval: platformCollection},
}

func isoDate(t time.Time) string { return t.Format(time.DateOnly) }

// Deadline statuses of an authority request on a day: the documentation
// is due 10 days after receipt (Art. 15(10), 17(2)(c)-(d), 18(8)).
const (
	DeadlineOpen           = "open"
	DeadlineOverdue        = "overdue"
	DeadlineAnsweredInTime = "answered_in_time"
	DeadlineAnsweredLate   = "answered_late"
)

// DeadlineStatuses are every deadline status.
var DeadlineStatuses = []string{DeadlineOpen, DeadlineOverdue, DeadlineAnsweredInTime, DeadlineAnsweredLate}

// DeadlineStatus says where a request due on due stands on the day on:
// the due date itself is still in time, and an answer given after that
// day is not known on it.
func DeadlineStatus(due time.Time, answered *time.Time, on time.Time) string {
	known := answered != nil && !answered.After(on)
	switch {
	case known && answered.After(due):
		return DeadlineAnsweredLate
	case known:
		return DeadlineAnsweredInTime
	case on.After(due):
		return DeadlineOverdue
	}
	return DeadlineOpen
}

// AuthorityRequest is a market surveillance authority's request for the
// documentation of the item, among others.
type AuthorityRequest struct {
	Reference  string
	ReceivedOn time.Time
	DueOn      time.Time
	AnsweredOn *time.Time
}

// authorityDeadline fails while a request received by the date is past
// its due date unanswered, naming the earliest such request. A request
// answered late passes, saying so: the documentation has been supplied,
// and a failure that no record can ever close would keep the item failing
// for good; the lateness stays in the reason and on the request.
func authorityDeadline(in *Input) Result {
	var open, late *AuthorityRequest
	received := false
	for i := range in.AuthorityRequests {
		r := &in.AuthorityRequests[i]
		if r.ReceivedOn.After(in.On) {
			continue
		}
		received = true
		switch DeadlineStatus(r.DueOn, r.AnsweredOn, in.On) {
		case DeadlineOverdue:
			return Result{Outcome: Fail, Reason: "rules.authority_request_overdue", ReasonArgs: []string{r.Reference, isoDate(r.DueOn)}}
		case DeadlineOpen:
			open = cmp.Or(open, r) // the earliest due: they come by due date
		case DeadlineAnsweredLate:
			late = cmp.Or(late, r)
		}
	}
	switch {
	case !received:
		return notApplicable("rules.no_authority_request")
	case open != nil:
		return Result{Outcome: Pass, Reason: "rules.authority_request_due", ReasonArgs: []string{open.Reference, isoDate(open.DueOn)}}
	case late != nil:
		return Result{Outcome: Pass, Reason: "rules.authority_request_answered_late",
			ReasonArgs: []string{late.Reference, isoDate(late.DueOn), isoDate(*late.AnsweredOn)}}
	}
	return Result{Outcome: Pass, Reason: "rules.authority_requests_answered_in_time"}
}

// boughtSourcing are the catalogue sourcing types of packaging bought from
// a supplier, in the Union or from a third country.
var boughtSourcing = []string{"purchased", "imported"}

// BoughtFromSupplier reports whether an item of the sourcing type is
// bought from a supplier, who owes its manufacturer the information of
// Art. 16. Packaging the organization makes, or receives around products,
// is not.
func BoughtFromSupplier(sourcing string) bool { return slices.Contains(boughtSourcing, sourcing) }

// SupplierAnswer is a line of a supplier request about the item that the
// supplier answered with files.
type SupplierAnswer struct {
	Component *uuid.UUID // nil: the line is about the whole item
	// Accepted: the organization accepted the line's files. Cancelled:
	// its request was cancelled, so files not accepted by then are never
	// reviewed.
	Accepted, Cancelled bool
}

// SupplierDocument is a document about the item from a supplier that has
// an approved version, with its validity.
type SupplierDocument struct {
	ValidFrom, ValidUntil *time.Time
}

func (d SupplierDocument) validOn(on time.Time) bool {
	return (d.ValidFrom == nil || !d.ValidFrom.After(on)) && (d.ValidUntil == nil || !d.ValidUntil.Before(on))
}

// supplierInformation asks, for each component of an item bought from a
// supplier (the item itself when it has none), for the supplier's
// information: an answered request line about the component or the whole
// item, or an approved supplier document about the item valid on the date.
func supplierInformation(in *Input) Result {
	if !BoughtFromSupplier(in.Sourcing) {
		return notApplicable("rules.not_bought_from_supplier")
	}
	if slices.ContainsFunc(in.SupplierDocuments, func(d SupplierDocument) bool { return d.validOn(in.On) }) {
		return Result{Outcome: Pass, Reason: "rules.supplier_document_approved"}
	}
	answered := func(component uuid.UUID) bool {
		return slices.ContainsFunc(in.SupplierAnswers, func(a SupplierAnswer) bool {
			return (a.Accepted || !a.Cancelled) && (a.Component == nil || *a.Component == component)
		})
	}
	res := Result{Outcome: Pass}
	if len(in.Item.Components) == 0 && !answered(uuid.Nil) {
		res.Missing = []string{"supplier-requests"}
	}
	for _, c := range in.Item.Components {
		if !answered(c.ID) {
			res.Missing = append(res.Missing, "supplier-requests@"+c.ID.String())
		}
	}
	if len(res.Missing) > 0 {
		res.Outcome, res.Reason = DocumentationMissing, "rules.supplier_information_missing"
	}
	return res
}

// SupplyDay counts the item's records of one day that Art. 22 asks an
// operator to trace: packaging it received (from whom) and packaging it
// placed on a market (to whom), and how many of them name no counterparty.
type SupplyDay struct {
	On                           time.Time
	Records, WithoutCounterparty int
}

// supplyCounterparties asks every supply record still to be kept to name
// its counterparty: those made since the Regulation applies and within
// the retention period of the packaging (5 years, 10 for reusable),
// counted as the technical documentation's is (Art. 15(3)).
func supplyCounterparties(in *Input) Result {
	reusable, used := reusablePackaging(in)
	years := register.RetentionYears(reusable)
	var records, anonymous int
	for _, d := range in.SupplyDays {
		if d.On.Before(generalApplication.Fixed) || d.On.After(in.On) || d.On.AddDate(years, 0, 0).Before(in.On) {
			continue
		}
		records += d.Records
		anonymous += d.WithoutCounterparty
	}
	kept := strconv.Itoa(years)
	res := Result{Outcome: Pass, Reason: "rules.keep_counterparties", ReasonArgs: []string{kept}}
	switch {
	case records == 0:
		res = notApplicable("rules.no_supply_records", used...)
		res.ReasonArgs = []string{kept}
		return res
	case anonymous > 0:
		res.Outcome, res.Reason, res.ReasonArgs = DocumentationMissing, "rules.counterparty_missing", []string{strconv.Itoa(anonymous), kept}
		res.Missing = []string{"flows.counterparty_name"}
	}
	for _, e := range used {
		res.Entries = append(res.Entries, e.ID)
	}
	return res
}

// reusablePackaging says whether the item is reusable packaging: the
// accepted classification decides; without one, the catalogue item's
// reuse type, refillable packaging counting as reusable.
func reusablePackaging(in *Input) (bool, []Entry) {
	if c, ok := in.classified(); ok {
		return c.Values.String("reuse_type") == "reusable", []Entry{c}
	}
	return in.ReuseType == "reusable" || in.ReuseType == "refillable", nil
}

// EPR report forms (Art. 44(8)) and the review state of a report the
// organization approved.
const (
	EPRSimplified = "simplified"
	EPRFull       = "full"
	EPRApproved   = "approved"
)

// EPRSimplifiedBelowT is the threshold of Art. 44(8) in tonnes: a year's
// total below it is reported in the simplified form (Annex IX Part B
// point 2), a total at or above it in the full form ("less than 10
// tonnes").
const EPRSimplifiedBelowT = 10

var eprSimplifiedBelowG = decimal.NewFromInt(EPRSimplifiedBelowT).Shift(6)

// EPRForm is the form a total mass in grams is reported in.
func EPRForm(totalG decimal.Decimal) string {
	if totalG.LessThan(eprSimplifiedBelowG) {
		return EPRSimplified
	}
	return EPRFull
}

// EPRReport is one of the organization's annual EPR reports.
type EPRReport struct {
	Country              string
	Year                 int
	PeriodFrom, PeriodTo time.Time
	Form, ReviewStatus   string
	// YearMassG is the mass of the year's flows into the market as the
	// records hold it now, loaded for an approved simplified report: a
	// later flow may have taken the year to the full form.
	YearMassG *decimal.Decimal
}

func (r *EPRReport) wholeYear() bool {
	return r.PeriodFrom.Equal(time.Date(r.Year, time.January, 1, 0, 0, 0, 0, time.UTC)) &&
		r.PeriodTo.Equal(time.Date(r.Year, time.December, 31, 0, 0, 0, 0, time.UTC))
}

// eprReportYear is the last year whose annual report is due on the day:
// a report is due by 1 June for the previous year, so until that day
// the year before last.
func eprReportYear(on time.Time) int {
	if on.After(time.Date(on.Year(), time.June, 1, 0, 0, 0, 0, time.UTC)) {
		return on.Year() - 1
	}
	return on.Year() - 2
}

// eprReport asks, in each market where the organization is the EPR
// producer, for the approved report of the last year due, covering the
// whole year, in the form its mass takes. The first report due under the
// Regulation is the one due after it applies: a report due before then
// was a duty of national law.
func eprReport(in *Input) Result {
	year := eprReportYear(in.On)
	return overMarkets(in, func(m Market, duties Entry) MarketResult {
		if !duties.Values.Bool("epr_producer") {
			return MarketResult{Outcome: NotApplicable, Reason: "rules.not_epr_producer_in_market"}
		}
		if year <= eprReportYear(generalApplication.Fixed) {
			return MarketResult{Outcome: NotApplicable, Reason: "rules.epr_report_not_due_yet"}
		}
		r, reason := in.annualReport(m.Country, year)
		switch {
		case r == nil:
			return MarketResult{Outcome: DocumentationMissing, Reason: reason, Missing: []string{"epr-reports@" + m.Country + "/" + strconv.Itoa(year)}}
		case r.Form == EPRSimplified && r.YearMassG != nil && EPRForm(*r.YearMassG) == EPRFull:
			return MarketResult{Outcome: Fail, Reason: "rules.epr_report_form_mismatch"}
		}
		return MarketResult{Outcome: Pass}
	})
}

// annualReport is the newest approved report of the market and year that
// covers the whole year; without one, the reason, from the newest report
// there is.
func (in *Input) annualReport(country string, year int) (*EPRReport, string) {
	reason := ""
	for i := range in.EPRReports {
		r := &in.EPRReports[i]
		if r.Country != country || r.Year != year {
			continue
		}
		switch {
		case r.ReviewStatus != EPRApproved:
			reason = cmp.Or(reason, "rules.epr_report_not_approved")
		case !r.wholeYear():
			reason = cmp.Or(reason, "rules.epr_report_not_whole_year")
		default:
			return r, ""
		}
	}
	return nil, cmp.Or(reason, "rules.epr_report_missing")
}

// ProducerRegistrationCollected is the role-duties duty code of Art.
// 45(4)-(8): the online platform or fulfilment service provider has
// collected the producers' EPR registration numbers and
// self-certifications.
const ProducerRegistrationCollected = "producer_registration_collected"

// collectingRoles are the economic roles Art. 45(4)-(8) binds.
var collectingRoles = []string{"online_platform", "fulfilment_service_provider"}

// platformCollection asks, in each market where the organization is an
// online platform or fulfilment service provider, for the duty of
// collecting the producers' registration done, with its evidence; a duty
// the accepted entry marks not applicable (no third-party producers) is
// respected.
func platformCollection(in *Input) Result {
	return overMarkets(in, func(m Market, duties Entry) MarketResult {
		if !slices.ContainsFunc(duties.Values.Strings("economic_roles"), func(r string) bool { return slices.Contains(collectingRoles, r) }) {
			return MarketResult{Outcome: NotApplicable, Reason: "rules.not_platform_or_fulfilment"}
		}
		list := duties.Values.List("duties")
		i := slices.IndexFunc(list, func(d register.Values) bool { return d.String("duty_code") == ProducerRegistrationCollected })
		switch {
		case i >= 0 && list[i].String("status") == "not_applicable":
			return MarketResult{Outcome: NotApplicable, Reason: "rules.duty_not_applicable"}
		case i >= 0 && list[i].String("status") == "done" && list[i].Has("evidence"):
			return MarketResult{Outcome: Pass}
		}
		return MarketResult{Outcome: DocumentationMissing, Reason: "rules.producer_registrations_not_collected",
			Missing: []string{"role-duties.duties." + ProducerRegistrationCollected + "@" + m.Country}}
	})
}

// overMarkets is a market rule's result over the role-duties entry of
// each market's scenario (without one, the market's data is missing).
func overMarkets(in *Input, each func(m Market, duties Entry) MarketResult) Result {
	return byMarket(in, func(m Market) MarketResult {
		duties, ok := in.marketDuties(m)
		if !ok {
			return MarketResult{Outcome: InsufficientData, Missing: []string{"role-duties@" + m.Country}}
		}
		r := each(m, duties)
		r.Entries = append(r.Entries, duties.ID)
		return r
	})
}

// marketDuties is the newest usable role-duties entry of the market's
// scenario.
func (in *Input) marketDuties(m Market) (Entry, bool) {
	duties := in.usable("role-duties")
	i := slices.IndexFunc(duties, func(e Entry) bool { id, ok := e.Values.ID("scenario"); return ok && id == m.ID })
	if i < 0 {
		return Entry{}, false
	}
	return duties[i], true
}
