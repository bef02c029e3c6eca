package packing

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/movements"
	"ppwr/domain/stock"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Reservations hold a packing set's ingredients for a parcel until it is
// packed (consumed), given up (released) or its time runs out (expired).
// A hold moves stock from available to reserved; it ends by a consumption
// (reserved and physical down) or a release (reserved down). A durable
// workflow expires a reservation at expires_at; until it has run, a held
// reservation past expires_at already reads as expired and cannot be
// consumed. A consumption or release ends that workflow
// (ReservationEndedWorkflow).

// Reservation statuses.
const (
	ReservationStatusHeld     = "held"
	ReservationStatusReleased = "released"
	ReservationStatusConsumed = "consumed"
	ReservationStatusExpired  = "expired"
)

// ReservationStatuses are every status a reservation reads as.
var ReservationStatuses = []string{ReservationStatusHeld, ReservationStatusReleased, ReservationStatusConsumed, ReservationStatusExpired}

// ReservationHoursMax is the longest hold: a week.
const ReservationHoursMax = 168

// Reservation is a hold of sets of a packing set for a parcel.
type Reservation struct {
	PackedSets
	Status    string
	ExpiresAt time.Time
	Revision  int
	UsageID   *uuid.UUID `gorm:"type:uuid"`
	UpdatedAt time.Time
	EndedAt   *time.Time
}

// TableName names the reservations table.
func (Reservation) TableName() string { return "packing_reservations" }

// StatusAt is the status the reservation reads as at t: a held
// reservation past its expiry is expired, whether or not its workflow has
// recorded it yet.
func (r *Reservation) StatusAt(t time.Time) string {
	if r.Status == ReservationStatusHeld && !t.Before(r.ExpiresAt) {
		return ReservationStatusExpired
	}
	return r.Status
}

// Rules of reservations.
var (
	ErrNotStockTracked    = &domain.RuleError{Code: "not_stock_tracked", Key: "error.not_stock_tracked"}
	ErrReservationExpired = &domain.RuleError{Code: "reservation_expired", Key: "error.reservation_expired"}
	ErrReservationNotHeld = &domain.RuleError{Code: "reservation_not_held", Key: "error.reservation_not_held"}
)

// ReservationCreate is the body of a new reservation.
type ReservationCreate struct {
	SetPacking
	ExpiresInHours input.Opt[int]
}

// Declare names the reservation's fields.
func (in *ReservationCreate) Declare(f *input.Fields) {
	in.SetPacking.declare(f)
	f.Int("expires_in_hours", &in.ExpiresInHours, input.Int{Required: true, Min: 1, Max: ReservationHoursMax})
}

// ReservationConsume is the body of a reservation's consumption.
type ReservationConsume struct {
	input.Errors
	Revision input.Opt[int]
	EventOn  input.Opt[time.Time]
}

// Declare names the consumption's fields.
func (in *ReservationConsume) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	movements.DeclareEventOn(f, &in.EventOn)
}

// ReservationsWithStatus narrows q to reservations reading as status now.
func ReservationsWithStatus(q *gorm.DB, status string) *gorm.DB {
	switch status {
	case ReservationStatusHeld:
		return q.Where("status = ? AND expires_at > now()", ReservationStatusHeld)
	case ReservationStatusExpired:
		return q.Where("status = ? OR (status = ? AND expires_at <= now())", ReservationStatusExpired, ReservationStatusHeld)
	}
	return q.Where("status = ?", status)
}

// ReservationInput names the reservation and when its hold ends.
type ReservationInput struct {
	domain.Org
	ReservationID uuid.UUID `json:"reservation_id"`
	FireAt        time.Time `json:"fire_at"`
}

// ReservationExpiryWorkflow waits until a reservation's hold ends and
// then expires it if it is still held.
var ReservationExpiryWorkflow = domain.Workflow[ReservationInput]{
	Type:     "ReservationExpiry",
	ID:       func(in ReservationInput) string { return "reservation/" + in.ReservationID.String() },
	Resource: func(in ReservationInput) uuid.UUID { return in.ReservationID },
}

// ReservationEndedInput names a reservation that was consumed or released
// before its hold ran out, with its new status.
type ReservationEndedInput struct {
	domain.Org
	ReservationID uuid.UUID `json:"reservation_id"`
	Status        string    `json:"status"`
}

// ReservationEndedWorkflow ends the reservation's expiry run, which has
// nothing left to expire. It is a workflow of its own, recorded with the
// change that ended the reservation, rather than a signal sent from the
// request: a signal sent after the commit is lost if the process dies in
// between, while a recorded start is not.
var ReservationEndedWorkflow = domain.Workflow[ReservationEndedInput]{
	Type:     "ReservationEnded",
	ID:       func(in ReservationEndedInput) string { return "reservation/" + in.ReservationID.String() + "/ended" },
	Resource: func(in ReservationEndedInput) uuid.UUID { return in.ReservationID },
}

// stopExpiry records, with the change that consumed or released r, the
// start of the workflow that ends r's expiry run.
func (r *Reservation) stopExpiry(w *work.Unit) error {
	return domain.Start(w, ReservationEndedWorkflow, ReservationEndedInput{Org: domain.OrgOf(r.OrganizationID), ReservationID: r.ID, Status: r.Status},
		r.summary(r.Status+": end the expiry run"))
}

// CreateReservation holds sets of the packing set id for a parcel: it
// claims the parcel and moves every ingredient from available to
// reserved, refusing a recipe with an ingredient that is not
// stock-tracked or a shortage. It records the start of the workflow that
// expires the hold; a positive timerCap (a test setting) fires its timer
// that long from now when the hold ends later.
func CreateReservation(w *work.Unit, id uuid.UUID, in *ReservationCreate, timerCap time.Duration) (*Reservation, error) {
	cfg, err := packingConfiguration(w, id, &in.SetPacking)
	if err != nil {
		return nil, err
	}
	if !cfg.AllStockTracked {
		rule := ErrNotStockTracked
		for _, l := range cfg.Composition {
			if !l.StockTracked {
				rule = rule.On("configuration_hash", "field.not_stock_tracked", l.Item.String())
			}
		}
		return nil, rule
	}
	r := &Reservation{PackedSets: packedSets(w, cfg, in.SetsCount.Value, &in.Parcel), Status: ReservationStatusHeld, Revision: 1}
	r.ExpiresAt, r.UpdatedAt = r.CreatedAt.Add(time.Duration(in.ExpiresInHours.Value)*time.Hour), r.CreatedAt
	ClaimParcel(w, r.OrderReference, PathReservation, r.ID)
	if err := stock.ApplyStock(w, SetStock(cfg, r.Composition, r.SetsCount, stock.MovementReservationHold, 0, 1, r.record(), "sets_count")); err != nil {
		return nil, err
	}
	if err := w.Defer(r); err != nil {
		return nil, err
	}
	w.Touch("packing_reservation", r.ID)
	if err := domain.Emit(w, ReservationCreated{ReservationID: r.ID, Status: r.Status}); err != nil {
		return nil, err
	}
	fire := r.ExpiresAt
	if timerCap > 0 && time.Now().Add(timerCap).Before(fire) {
		fire = time.Now().Add(timerCap)
	}
	return r, domain.Start(w, ReservationExpiryWorkflow, ReservationInput{Org: domain.OrgOf(w.Organization()), ReservationID: r.ID, FireAt: fire},
		r.summary("expire"))
}

func (r *Reservation) record() work.Record { return work.Record{Type: "packing_reservation", ID: r.ID} }

// summary says which reservation a run of what works on, for the
// Temporal UI.
func (r *Reservation) summary(what string) string {
	return fmt.Sprintf("Reservation of %d sets for order %s, held until %s: %s", r.SetsCount, r.OrderReference,
		r.ExpiresAt.UTC().Format(time.RFC3339), what)
}

// lockReservation locks the organization's reservation id for a change
// of its status; a missing reservation is a 404 whatever the body, and
// then the body's errors are answered.
func lockReservation(w *work.Unit, id uuid.UUID, in interface {
	Failed() bool
	Err() error
}) (*Reservation, error) {
	r, err := domain.LockFor[Reservation](w.Context(), w.Tx(), w.Organization(), id, "UPDATE")
	if err == nil && in.Failed() {
		return nil, in.Err()
	}
	return r, err
}

// ConsumeReservation packs a live held reservation: the held sets leave
// stock and a usage records the reservation's parcel and composition.
// The reservation's expiry run is ended (stopExpiry).
func ConsumeReservation(w *work.Unit, id uuid.UUID, in *ReservationConsume) (*PackagingSystemUsage, error) {
	r, err := lockReservation(w, id, in)
	if err != nil {
		return nil, err
	}
	stamp := domain.Now()
	// A reservation that cannot be consumed says so whatever revision was
	// read: re-reading it would not help.
	switch {
	case r.StatusAt(stamp) == ReservationStatusExpired && r.Status == ReservationStatusHeld:
		return nil, ErrReservationExpired
	case r.Status != ReservationStatusHeld:
		return nil, ErrReservationNotHeld
	case r.Revision != in.Revision.Value:
		return nil, domain.ErrRevisionConflict
	}
	u := &PackagingSystemUsage{PackedSets: r.PackedSets, EventOn: in.EventOn.Value, ReservationID: &r.ID}
	u.ID, u.CreatedAt = domain.NewID(), stamp
	// Written now, not deferred: the reservation row refers to it.
	if err := w.Tx().Create(u).Error; err != nil {
		return nil, err
	}
	if err := r.moveHeldStock(w, stock.MovementReservationConsume, -1); err != nil {
		return nil, err
	}
	if err := r.end(w, ReservationStatusConsumed, stamp, map[string]any{"usage_id": u.ID}); err != nil {
		return nil, err
	}
	if err := r.stopExpiry(w); err != nil {
		return nil, err
	}
	return u, domain.Emit(w, ReservationConsumed{ReservationID: r.ID, Status: r.Status})
}

// ReleaseReservation gives up a held reservation: its stock is available
// again and its parcel may be packed by another path. One past its expiry
// is expired instead, and its expiry run, due then, finds nothing to do;
// a release ends the expiry run at once (stopExpiry). A reservation that
// no longer holds anything is answered as it is.
func ReleaseReservation(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*Reservation, error) {
	r, err := lockReservation(w, id, in)
	if err != nil {
		return nil, err
	}
	if r.Status != ReservationStatusHeld {
		return r, nil
	}
	if r.Revision != in.Revision.Value {
		return nil, domain.ErrRevisionConflict
	}
	stamp := domain.Now()
	if r.StatusAt(stamp) == ReservationStatusExpired {
		return r, r.expire(w, stamp)
	}
	if err := r.giveUp(w, ReservationStatusReleased, stamp); err != nil {
		return nil, err
	}
	if err := r.stopExpiry(w); err != nil {
		return nil, err
	}
	return r, domain.Emit(w, ReservationReleased{ReservationID: r.ID, Status: r.Status})
}

// ExpireReservation expires the organization's reservation id if it is
// still held; otherwise it changes nothing, so its workflow may run it
// again, or after a consumption or release. It reports whether it expired
// the reservation.
func ExpireReservation(w *work.Unit, id uuid.UUID) (bool, error) {
	r, err := domain.LockFor[Reservation](w.Context(), w.Tx(), w.Organization(), id, "UPDATE")
	if err != nil || r.Status != ReservationStatusHeld {
		return false, err
	}
	return true, r.expire(w, domain.Now())
}

func (r *Reservation) expire(w *work.Unit, stamp time.Time) error {
	if err := r.giveUp(w, ReservationStatusExpired, stamp); err != nil {
		return err
	}
	return domain.Emit(w, ReservationExpired{ReservationID: r.ID, Status: r.Status})
}

// giveUp ends a hold that packed nothing: the stock and the parcel are
// free again.
func (r *Reservation) giveUp(w *work.Unit, status string, stamp time.Time) error {
	if err := r.moveHeldStock(w, stock.MovementReservationRelease, 0); err != nil {
		return err
	}
	if err := ReleaseParcel(w, r.ID); err != nil {
		return err
	}
	return r.end(w, status, stamp, nil)
}

// moveHeldStock takes the held quantities off reserved, and by physical
// (-1) or not (0) off physical stock.
func (r *Reservation) moveHeldStock(w *work.Unit, kind string, physical int) error {
	ids := make([]uuid.UUID, len(r.Composition))
	for i, l := range r.Composition {
		ids[i] = l.Item
	}
	var items []catalog.CatalogItem
	if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("id IN ?", ids).Find(&items).Error; err != nil {
		return err
	}
	if len(items) != len(ids) {
		return errors.New("reservation: an item of its composition is missing")
	}
	byID := itemSet{}
	for i := range items {
		byID[items[i].ID] = &items[i]
	}
	return stock.ApplyStock(w, SetStock(byID, r.Composition, r.SetsCount, kind, physical, -1, r.record(), "sets_count"))
}

// end records the reservation's final status, with extra column changes.
func (r *Reservation) end(w *work.Unit, status string, stamp time.Time, extra map[string]any) error {
	updates := map[string]any{"status": status, "revision": r.Revision + 1, "updated_at": stamp, "ended_at": stamp}
	for k, v := range extra {
		updates[k] = v
	}
	if err := w.Tx().Model(&Reservation{}).Where("id = ?", r.ID).Updates(updates).Error; err != nil {
		return err
	}
	r.Status, r.Revision, r.UpdatedAt, r.EndedAt = status, r.Revision+1, stamp, &stamp
	if id, ok := extra["usage_id"].(uuid.UUID); ok {
		r.UsageID = &id
	}
	w.Touch("packing_reservation", r.ID)
	return nil
}

// packingConfiguration is the configuration a set consumption or a
// reservation packs by; a missing set is a 404 whatever the body, and a
// bad body is answered before a stale configuration.
func packingConfiguration(w *work.Unit, id uuid.UUID, in *SetPacking) (*Configuration, error) {
	cfg, err := ConfigurationFor(w, id, in.Revision.Value, in.ConfigurationHash.Value)
	if in.Failed() && !errors.Is(err, domain.ErrNotFound) {
		return nil, in.Err()
	}
	return cfg, err
}
