package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/webhooks"
	"ppwr/internal/database"
)

// Relay turns committed intentions into workflows: new outbox events into
// deliveries with their recorded workflow starts, one per subscribed
// endpoint (RelayEvents), and recorded workflow starts into their
// workflows (StartWorkflows). Several
// worker replicas may run it: each claims rows with SKIP LOCKED, and the
// workflow ids, derived from the rows (webhook/<event>/<endpoint>, the
// start's record-derived id), keep a second start of the same workflow
// from ever running.
type Relay struct {
	DB        *gorm.DB
	Temporal  client.Client
	TaskQueue string
	// RetryInitial and RetryFor are passed to every delivery workflow.
	RetryInitial time.Duration
	RetryFor     time.Duration
	// Interval is the pause between polls when there is nothing to relay.
	Interval time.Duration
	// ListenURL, when set, is a direct PostgreSQL connection on which Run
	// listens for the notification each recorded start, and each event an
	// endpoint subscribes to, sends at commit, so the start or the
	// delivery is made at once rather than on the next poll. The poll
	// stays: a notification missed while reconnecting, or a replica that
	// cannot listen, only delays a start to it.
	ListenURL string
	// StartTimeout bounds each recorded start's call to Temporal, so an
	// unreachable Temporal fails the start (to be retried on the next pass)
	// instead of holding the batch; zero means defaultStartTimeout.
	StartTimeout time.Duration
}

const (
	// relayBatch bounds the events one transaction claims.
	relayBatch = 100
	// startBatch bounds the workflow starts one transaction claims.
	startBatch = 100
	// startConcurrency bounds the calls to Temporal a pass makes at once.
	startConcurrency = 16
	// defaultStartTimeout is StartTimeout's default.
	defaultStartTimeout = 10 * time.Second
	// wakeChannel is notified at the commit of every insert into
	// workflow_starts (migration 0008) and of events some endpoint
	// subscribes to (0034).
	wakeChannel = "workflow_starts"
)

// Run relays events and starts recorded workflows until ctx is cancelled;
// every pass does both, in that order, so the deliveries' starts that
// RelayEvents recorded are made as soon as they commit, in the same pass.
// A pass runs every Interval, and with ListenURL also as soon as a start or
// a subscribed event is committed.
func (r *Relay) Run(ctx context.Context) {
	// One pending wake-up is enough: a pass takes every recorded row, so
	// notifications that arrive during a pass need one more pass, not one
	// each.
	wake := make(chan struct{}, 1)
	nudge := func() {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
	if r.ListenURL != "" {
		var listener sync.WaitGroup
		defer listener.Wait()
		// A pass on every (re)connection catches up on the starts recorded
		// while nobody listened, instead of leaving them to the poll.
		listener.Go(func() {
			database.Listen(ctx, r.ListenURL, wakeChannel, func(on bool) {
				if on {
					nudge()
				}
			}, nudge)
		})
	}
	for {
		events, err := r.RelayEvents(ctx)
		if err != nil && ctx.Err() == nil {
			slog.ErrorContext(ctx, "event relay failed; retrying", "error", err)
		}
		more := err == nil && events == relayBatch
		starts, err := r.StartWorkflows(ctx)
		if err != nil && ctx.Err() == nil {
			slog.ErrorContext(ctx, "workflow start relay failed; retrying", "error", err)
		}
		// A full batch of successful starts means more may be waiting; a
		// batch with failures waits for the interval, so an unreachable
		// Temporal is not retried in a tight loop.
		more = more || (err == nil && starts == startBatch)
		if more && ctx.Err() == nil {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-wake:
		case <-time.After(r.Interval):
		}
	}
}

// RelayEvents relays one batch and returns how many events it handled: it
// writes their deliveries and records the deliveries' workflow starts, and
// marks the events relayed, all in the transaction that claimed them. It
// starts no workflow: StartWorkflows does, once that has committed, and
// Run calls it right after.
func (r *Relay) RelayEvents(ctx context.Context) (int, error) {
	var relayed int
	err := r.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var events []domain.Event
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}).
			Where("relayed_at IS NULL").Order("id").Limit(relayBatch).Find(&events).Error; err != nil {
			return err
		}
		for i := range events {
			if err := r.fanOut(tx, &events[i]); err != nil {
				return err
			}
		}
		relayed = len(events)
		if relayed == 0 {
			return nil
		}
		ids := make([]any, len(events))
		for i, e := range events {
			ids[i] = e.ID
		}
		return tx.Model(&domain.Event{}).Where("id IN ?", ids).Update("relayed_at", time.Now().UTC()).Error
	})
	return relayed, err
}

// fanOut writes a delivery for every active endpoint of the event's
// organization that subscribes to its type, and records its workflow's
// start beside it (domain.NewStart). Both commit with the event's claim, and
// StartWorkflows starts the workflow only then, so its first attempt always
// finds its delivery: a workflow started inside this transaction could
// attempt before the commit, fail on a missing row and wait for its retry.
func (r *Relay) fanOut(tx *gorm.DB, e *domain.Event) error {
	var endpoints []webhooks.WebhookEndpoint
	if err := tx.Scopes(domain.InOrganization(e.OrganizationID)).
		Where("status = ? AND (? = ANY (events) OR ? = ANY (events))", webhooks.EndpointActive, e.Type, webhooks.AllEvents).
		Find(&endpoints).Error; err != nil {
		return err
	}
	for _, ep := range endpoints {
		d := webhooks.WebhookDelivery{ID: domain.NewID(), EventID: e.ID, EndpointID: ep.ID, Status: webhooks.DeliveryPending}
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&d)
		if res.Error != nil {
			return res.Error
		}
		// An event relayed twice keeps its one delivery; the start
		// recorded again joins the delivery's run through the workflow id.
		if res.RowsAffected == 0 {
			if err := tx.Where("event_id = ? AND endpoint_id = ?", e.ID, ep.ID).First(&d).Error; err != nil {
				return err
			}
		}
		start, err := domain.NewStart(webhooks.DeliveryWorkflow, webhooks.DeliveryInput{
			Org: domain.OrgOf(e.OrganizationID), DeliveryID: d.ID, EventID: e.ID, EndpointID: ep.ID,
			RetryInitial: r.RetryInitial, RetryFor: r.RetryFor,
		}, webhooks.DeliverySummary(e.Type, ep.URL))
		if err != nil {
			return err
		}
		if err := tx.Create(start).Error; err != nil {
			return err
		}
	}
	return nil
}
