package assessments

import (
	"context"
	"sync"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/movements"
	"ppwr/internal/rules"
)

// reuseInput loads what the reusable-packaging and re-use target rules
// read beyond the item's register entries: the organization's re-use
// systems that list the item (records.ReuseSystem; its participants
// counted without their confirmation) and, when a rule reading them
// applies on the date, the year's shares per Member State the re-use
// statistics compute. Those are an aggregate over the organization's
// flows of the year (movements.LoadReuseFlows, one query); the items of
// a bulk-run batch share them through cache.
func reuseInput(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID, in *rules.Input, cache *ReuseStatisticsCache) error {
	var systems []struct {
		ID                      uuid.UUID
		Code                    string
		Markets                 datatypes.JSONSlice[string]
		ReconditioningSteps     datatypes.JSONSlice[string]
		UnconfirmedParticipants int
	}
	if err := domain.Tenant(ctx, db, org).Table("reuse_systems").
		Select(`id, code, markets, reconditioning_steps,
			(SELECT count(*) FROM jsonb_array_elements(participants) p WHERE jsonb_typeof(p->'confirmation') IS DISTINCT FROM 'string') AS unconfirmed_participants`).
		Where("items @> jsonb_build_array(?::text)", itemID).Order("code").Scan(&systems).Error; err != nil {
		return err
	}
	for _, s := range systems {
		in.ReuseSystems = append(in.ReuseSystems, rules.ReuseSystem{ID: s.ID, Code: s.Code, Markets: s.Markets,
			ReconditioningSteps: s.ReconditioningSteps, UnconfirmedParticipants: s.UnconfirmedParticipants})
	}
	if !rules.ReadOn(rules.ReuseStatistics, in.On, in.Acts) {
		return nil
	}
	var err error
	in.ReuseShares, err = cache.shares(org, rules.ReuseYear(in.On), func(year int) ([]rules.ReuseShare, error) {
		flows, err := movements.LoadReuseFlows(ctx, db, org, year)
		var out []rules.ReuseShare
		for _, country := range flows.Countries() {
			formats, _ := flows.Formats(country, year, in.Acts)
			for _, f := range formats {
				if f.ReusableUnits.IsPositive() || f.SingleUseUnits.IsPositive() {
					out = append(out, rules.ReuseShare{Country: country, Format: f.Format, Reusable: f.ReusableUnits, SingleUse: f.SingleUseUnits})
				}
			}
		}
		return out, err
	})
	return err
}

// ReuseStatisticsCache keeps the re-use statistics per Member State of an
// organization's year for the assessments of one bulk-run batch: every
// item reads the same aggregate, which is then computed once per batch
// instead of once per item. A nil cache computes them each time.
type ReuseStatisticsCache struct {
	mu     sync.Mutex
	byYear map[reuseYear][]rules.ReuseShare
}

type reuseYear struct {
	org  uuid.UUID
	year int
}

// NewReuseStatisticsCache is an empty cache.
func NewReuseStatisticsCache() *ReuseStatisticsCache {
	return &ReuseStatisticsCache{byYear: map[reuseYear][]rules.ReuseShare{}}
}

// shares are the organization's shares of the year, loaded once: the
// other items of the batch wait for the first to load them.
func (c *ReuseStatisticsCache) shares(org uuid.UUID, year int, load func(year int) ([]rules.ReuseShare, error)) ([]rules.ReuseShare, error) {
	if c == nil {
		return load(year)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := reuseYear{org, year}
	if s, ok := c.byYear[key]; ok {
		return s, nil
	}
	s, err := load(year)
	if err == nil {
		c.byYear[key] = s
	}
	return s, err
}
