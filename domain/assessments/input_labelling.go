package assessments

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/registers"
	"ppwr/internal/rules"
)

// labellingInput loads what the labelling rules read beyond the item's
// registers: the accepted deposit-scheme records naming the item (R25,
// R29, R31, R62), in one query over the organization's few schemes. The
// table is read directly: package records, which owns it, depends on
// this one.
func labellingInput(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID, in *rules.Input) error {
	named, err := json.Marshal([]uuid.UUID{itemID})
	if err != nil {
		return err
	}
	var rows []struct {
		ID               uuid.UUID
		Market           string
		LabelApplied     bool
		ParticipatesFrom time.Time
	}
	if err := domain.Tenant(ctx, db, org).Table("deposit_schemes").Select("id, market, label_applied, participates_from").
		Where("review_status = ? AND items @> ?::jsonb", registers.EntryAccepted, string(named)).Order("id").Scan(&rows).Error; err != nil {
		return err
	}
	for _, r := range rows {
		in.DepositSchemes = append(in.DepositSchemes, rules.DepositScheme{ID: r.ID, Country: r.Market, LabelApplied: r.LabelApplied, From: r.ParticipatesFrom})
	}
	return nil
}
