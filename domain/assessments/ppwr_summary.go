package assessments

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/registers"
	"ppwr/internal/register"
	"ppwr/internal/rules"
)

// SummaryHorizonMonths is how far ahead a summary lists the rules about to
// apply.
const SummaryHorizonMonths = 24

// ItemSummary is what an ERP shows on a product page about the item's PPWR
// position on a date. It is not a certification.
type ItemSummary struct {
	Item    *catalog.CatalogItem
	On      time.Time
	Markets []catalog.MarketScenario
	// Rules are all the catalogue's rules with their state on the date;
	// Applicable and Upcoming are those that apply, and those starting
	// within SummaryHorizonMonths.
	Rules      []RuleDate
	Applicable []RuleDate
	Upcoming   []RuleDate
	// Assessment is the newest assessment that is not stale, if any.
	Assessment *Assessment
	Registers  []RegisterCoverage
	Issues     []domain.ComplianceIssue
}

// States of a rule on a summary's date.
const (
	RuleApplies  = "applies"
	RuleUpcoming = "upcoming"
	RuleLater    = "later"
)

// RuleStates are every state, for the API's enumeration.
var RuleStates = []string{RuleApplies, RuleUpcoming, RuleLater}

// RuleDate is a rule with the date it applies from and its state on the
// summary's date.
type RuleDate struct {
	Rule, Article, Check, Level string
	From                        time.Time
	Pending                     bool
	State                       string
}

// RegisterCoverage says whether a register holds a current, accepted
// entry about the item.
type RegisterCoverage struct {
	Register string
	Entry    *registers.RegisterEntry // the newest active entry
	Covered  bool
}

// SummarizeItem reads the item's PPWR summary on a date: the rules that
// apply and those starting within SummaryHorizonMonths (with pending acts
// flagged), the newest assessment that is not stale, each register's
// coverage, and the open issues.
func SummarizeItem(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID, on time.Time) (*ItemSummary, error) {
	item, err := domain.Find[catalog.CatalogItem](ctx, db, org, itemID)
	if err != nil {
		return nil, err
	}
	s := &ItemSummary{Item: item, On: on}
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND active", itemID).Order("country_code").Find(&s.Markets).Error; err != nil {
		return nil, err
	}
	horizon, acts := on.AddDate(0, SummaryHorizonMonths, 0), rules.KnownActs()
	for _, r := range rules.All {
		from, pending := r.Start.From(acts)
		rd := RuleDate{Rule: r.Code, Article: r.Article, Check: r.Check, Level: r.Level, From: from, Pending: pending, State: RuleLater}
		switch {
		case !pending && !on.Before(from):
			rd.State = RuleApplies
			s.Applicable = append(s.Applicable, rd)
		case !from.After(horizon):
			rd.State = RuleUpcoming
			s.Upcoming = append(s.Upcoming, rd)
		}
		s.Rules = append(s.Rules, rd)
	}
	if s.Assessment, err = freshAssessment(ctx, db, org, itemID); err != nil {
		return nil, err
	}
	if s.Registers, err = coverage(ctx, db, org, item); err != nil {
		return nil, err
	}
	err = domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND status = ?", itemID, domain.IssueOpen).Order("id").Find(&s.Issues).Error
	return s, err
}

// freshAssessment is the newest of the item's assessments that is not
// stale.
func freshAssessment(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (*Assessment, error) {
	var recent []Assessment
	if err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ?", itemID).Order("id DESC").Limit(20).Find(&recent).Error; err != nil {
		return nil, err
	}
	ids := make([]uuid.UUID, len(recent))
	for i, a := range recent {
		ids[i] = a.ID
	}
	stale, err := AssessmentStale(ctx, db, org, ids)
	if err != nil {
		return nil, err
	}
	for i := range recent {
		if !stale[recent[i].ID] {
			return &recent[i], nil
		}
	}
	return nil, nil
}

func coverage(ctx context.Context, db *gorm.DB, org uuid.UUID, item *catalog.CatalogItem) ([]RegisterCoverage, error) {
	var newest []registers.RegisterEntry
	if err := domain.Tenant(ctx, db, org).Select("DISTINCT ON (register) *").Where("catalog_item_id = ? AND status = ?", item.ID, registers.EntryActive).
		Order("register, id DESC").Find(&newest).Error; err != nil {
		return nil, err
	}
	out := make([]RegisterCoverage, len(register.All))
	for i, r := range register.All {
		out[i] = RegisterCoverage{Register: r.Slug}
		for j := range newest {
			if e := &newest[j]; e.Register == r.Slug {
				out[i].Entry = e
				out[i].Covered = e.CatalogRevision == item.Revision && (e.ReviewStatus == registers.EntryAccepted || e.ReviewStatus == registers.EntryNotReviewable)
			}
		}
	}
	return out, nil
}
