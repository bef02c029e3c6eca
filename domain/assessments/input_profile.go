package assessments

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain/registers"
	"ppwr/internal/register"
	"ppwr/internal/rules"
)

// profileInput loads the organization's accepted compliance profile, one
// entry per Member State, with what the operator rules read beside it:
// how many refill stations the organization records in the country and,
// for a micro-enterprise only (Art. 29(13)), the mass it placed on the
// country's market per calendar year. One query: a bulk run assesses
// every item of the organization, and the profile is a handful of rows.
// An entry not yet accepted is not read, nor one a newer entry
// superseded.
func profileInput(ctx context.Context, db *gorm.DB, org uuid.UUID, in *rules.Input) error {
	var rows []struct {
		ID             uuid.UUID
		Country        string
		Values         []byte
		RefillStations int
		PlacedMass     []byte
	}
	err := db.WithContext(ctx).Raw(`
		SELECT p.id, p.country, p."values",
			(SELECT count(*) FROM refill_stations s WHERE s.organization_id = p.organization_id AND s.country_code = p.country) AS refill_stations,
			CASE WHEN (p."values" ->> 'micro_enterprise')::boolean THEN
				(SELECT coalesce(jsonb_object_agg(y.year, y.mass_g), '{}') FROM (
					SELECT extract(year FROM f.event_on)::int AS year, sum(f.mass_g) AS mass_g FROM flows f
					WHERE f.organization_id = p.organization_id AND f.country = p.country AND f.kind = 'placed' GROUP BY 1) y)
			END AS placed_mass
		FROM compliance_profile_entries p
		WHERE p.organization_id = ? AND p.status = ? AND p.review_status = ?
		ORDER BY p.country`, org, registers.EntryActive, registers.EntryAccepted).Scan(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		values, err := register.ComplianceProfile.Decode(r.Values)
		if err != nil {
			return fmt.Errorf("compliance profile entry %s: %w", r.ID, err)
		}
		p := rules.ProfileEntry{ID: r.ID, Country: r.Country, Values: values, RefillStations: r.RefillStations}
		if r.PlacedMass != nil {
			if err := json.Unmarshal(r.PlacedMass, &p.PlacedMassG); err != nil {
				return fmt.Errorf("compliance profile entry %s: placed mass: %w", r.ID, err)
			}
		}
		in.Profile = append(in.Profile, p)
	}
	return nil
}
