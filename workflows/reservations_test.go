package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"gorm.io/datatypes"

	"ppwr/activities"
	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/packing"
	"ppwr/internal/temporalclient"
	"ppwr/internal/testenv"
)

// heldReservation stores a reservation in status that holds nothing (an
// empty composition), expiring in 3 hours.
func heldReservation(t *testing.T, status string) *packing.Reservation {
	t.Helper()
	ctx, db := context.Background(), testenv.DB(t)
	org, err := accounts.CreateOrganization(ctx, db, "Reservation Test", "rs-"+uuid.NewString()[:8])
	require.NoError(t, err)
	sys := &packing.PackagingSystem{ID: domain.NewID(), OrganizationID: org.ID, Name: "Set", Status: packing.SystemActive, Revision: 1}
	require.NoError(t, db.Create(sys).Error)
	r := &packing.Reservation{PackedSets: packing.PackedSets{ID: domain.NewID(), OrganizationID: org.ID, PackagingSystemID: sys.ID,
		SystemRevision: 1, ConfigurationHash: "h", Composition: datatypes.JSONSlice[packing.CompositionLine]{}, SetsCount: 1,
		OrderReference: "O-1", Country: "PL"}, Status: status, ExpiresAt: time.Now().Add(3 * time.Hour), Revision: 1}
	require.NoError(t, db.Create(r).Error)
	return r
}

// runExpiry runs the reservation workflow with the real activity against
// the database, skipping time; it answers the workflow's result and how
// long after the start, in workflow time, the activity ran. A legacy run
// is one started before inputs carried the organization: only its
// search attribute names it.
func runExpiry(t *testing.T, r *packing.Reservation, legacy bool) (bool, time.Duration) {
	t.Helper()
	env := newTestEnv()
	in := packing.ReservationInput{Org: domain.OrgOf(r.OrganizationID), ReservationID: r.ID}
	if legacy {
		in.Org = domain.Org{}
		require.NoError(t, env.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(
			temporalclient.OrganizationID.ValueSet(r.OrganizationID.String()))))
	}
	env.RegisterActivity(&activities.Reservations{DB: testenv.DB(t)})
	var ranAt time.Time
	env.SetOnActivityStartedListener(func(*activity.Info, context.Context, converter.EncodedValues) { ranAt = env.Now() })
	start := env.Now()
	in.FireAt = start.Add(3 * time.Hour)
	env.ExecuteWorkflow(ReservationExpiry, in)
	require.NoError(t, env.GetWorkflowError())
	var expired bool
	require.NoError(t, env.GetWorkflowResult(&expired))
	return expired, ranAt.Sub(start)
}

func reservationStatus(t *testing.T, id uuid.UUID) string {
	var r packing.Reservation
	require.NoError(t, testenv.DB(t).Take(&r, "id = ?", id).Error)
	return r.Status
}

func eventCount(t *testing.T, org uuid.UUID) int64 {
	var n int64
	require.NoError(t, testenv.DB(t).Model(&domain.Event{}).Where("organization_id = ?", org).Count(&n).Error)
	return n
}

func TestReservationExpiryFiresAtExpiresAt(t *testing.T) {
	r := heldReservation(t, packing.ReservationStatusHeld)
	expired, after := runExpiry(t, r, false)
	assert.True(t, expired)
	assert.GreaterOrEqual(t, after, 3*time.Hour, "the activity runs once the timer fired")
	assert.Equal(t, packing.ReservationStatusExpired, reservationStatus(t, r.ID))
	assert.Equal(t, int64(1), eventCount(t, r.OrganizationID), "reservation.expired")
}

func TestReservationExpiryAfterAConsumptionChangesNothing(t *testing.T) {
	r := heldReservation(t, packing.ReservationStatusConsumed)
	expired, _ := runExpiry(t, r, false)
	assert.False(t, expired)
	assert.Equal(t, packing.ReservationStatusConsumed, reservationStatus(t, r.ID))
	assert.Zero(t, eventCount(t, r.OrganizationID))
}

// A run started before inputs carried the organization reads it from its
// search attribute, and its activity still finds the reservation through
// the tenant scope.
func TestAnOldReservationRunFindsItsOrganization(t *testing.T) {
	r := heldReservation(t, packing.ReservationStatusHeld)
	expired, _ := runExpiry(t, r, true)
	assert.True(t, expired)
	assert.Equal(t, packing.ReservationStatusExpired, reservationStatus(t, r.ID))
}
