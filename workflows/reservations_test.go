package workflows

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
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

// expiryRun is a reservation's expiry run, with a hold of 3 hours, in the
// SDK's test environment: its activities are mocked, its reservation is
// in status statusAtStart when the run starts, and outcomes collects the
// Outcome it sets.
type expiryRun struct {
	env      *testsuite.TestWorkflowEnvironment
	a        *activities.Reservations
	outcomes *[]string
	start    time.Time
	in       packing.ReservationInput
}

func newExpiryRun(statusAtStart string) *expiryRun {
	r := &expiryRun{env: newTestEnv(), a: &activities.Reservations{}}
	r.env.RegisterActivity(r.a)
	r.env.OnActivity(r.a.Status, mock.Anything, mock.Anything).Return(statusAtStart, nil).Once()
	r.outcomes = outcomes(r.env)
	r.start = r.env.Now()
	r.in = packing.ReservationInput{Org: domain.OrgOf(uuid.New()), ReservationID: uuid.New(), FireAt: r.start.Add(3 * time.Hour)}
	return r
}

// requireEndedEarly runs the expiry and checks that it ended within the
// time given, expiring nothing, with outcome.
func (r *expiryRun) requireEndedEarly(t *testing.T, within time.Duration, outcome string) {
	t.Helper()
	r.env.ExecuteWorkflow(ReservationExpiry, r.in)
	require.True(t, r.env.IsWorkflowCompleted())
	require.NoError(t, r.env.GetWorkflowError())
	var expired bool
	require.NoError(t, r.env.GetWorkflowResult(&expired))
	assert.False(t, expired)
	assert.Less(t, r.env.Now().Sub(r.start), within, "the run ends before the expiry")
	r.env.AssertExpectations(t)
	r.env.AssertNotCalled(t, "Expire", mock.Anything, mock.Anything)
	assert.Equal(t, []string{outcome}, *r.outcomes)
}

// A consumption an hour into a 3-hour hold ends the expiry run then, with
// the consumption as its outcome and nothing expired.
func TestAConsumptionEndsTheExpiryRun(t *testing.T) {
	r := newExpiryRun(packing.ReservationStatusHeld)
	r.env.RegisterDelayedCallback(func() {
		r.env.SignalWorkflow(ReservationEndedSignal, packing.ReservationStatusConsumed)
	}, time.Hour)
	r.requireEndedEarly(t, 2*time.Hour, packing.ReservationStatusConsumed)
}

// An expiry run started after its reservation was released (the end's
// signal, started first, found no run to stop) ends at once with the
// release as its outcome, instead of waiting out the hold.
func TestAnExpiryRunStartedAfterTheEndEndsAtOnce(t *testing.T) {
	newExpiryRun(packing.ReservationStatusReleased).requireEndedEarly(t, time.Minute, packing.ReservationStatusReleased)
}

// An expiry run that was never told still expires nothing held: the
// record decides, and the run closes at the expiry time.
func TestAnExpiryRunNotToldOfTheEndChangesNothing(t *testing.T) {
	r := newExpiryRun(packing.ReservationStatusHeld)
	r.env.OnActivity(r.a.Expire, mock.Anything, mock.Anything).Return(false, nil).Once()

	r.env.ExecuteWorkflow(ReservationExpiry, r.in)
	require.NoError(t, r.env.GetWorkflowError())
	r.env.AssertExpectations(t)
	assert.Empty(t, *r.outcomes, "no outcome it does not know")
}

// A run started before the check at the start existed replays without it:
// its history, a run released an hour into its hold, was recorded by the
// code before the check (testdata/README.md).
func TestAnExpiryRunStartedBeforeTheCheckReplays(t *testing.T) {
	requireReplays(t, ReservationExpiry, packing.ReservationExpiryWorkflow.Type, "reservation-expiry-released-v0.json")
}

// A run made by the first code with the check, before the check was
// shared with the other deadlines (recordEnd), replays with the shared
// one: its history, a run released during its hold, was recorded by that
// code (testdata/README.md).
func TestAnExpiryRunWithTheFirstCheckReplays(t *testing.T) {
	requireReplays(t, ReservationExpiry, packing.ReservationExpiryWorkflow.Type, "reservation-expiry-released-v1.json")
}

func TestReservationEndedSignalsTheExpiryRunAndToleratesItsEnd(t *testing.T) {
	id := uuid.New()
	in := packing.ReservationEndedInput{Org: domain.OrgOf(uuid.New()), ReservationID: id, Status: packing.ReservationStatusReleased}

	env := newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, "reservation/"+id.String(), "", ReservationEndedSignal, packing.ReservationStatusReleased).
		Return(nil).Once()
	env.ExecuteWorkflow(ReservationEnded, in)
	require.NoError(t, env.GetWorkflowError())
	env.AssertExpectations(t)

	env = newTestEnv()
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, mock.Anything, mock.Anything, mock.Anything).
		Return(&temporal.UnknownExternalWorkflowExecutionError{})
	env.ExecuteWorkflow(ReservationEnded, in)
	assert.NoError(t, env.GetWorkflowError(), "a run whose wait is over has nothing to stop")
}
