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
	"ppwr/internal/temporalclient"
)

// Relay turns committed intentions into workflows: new outbox events into
// delivery workflows, one per subscribed endpoint (RelayEvents), and
// recorded workflow starts into their workflows (StartWorkflows). Several
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
	// listens for the notification each recorded start sends at commit, so
	// the start is made at once rather than on the next poll. The poll
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
	// defaultStartTimeout is StartTimeout's default.
	defaultStartTimeout = 10 * time.Second
	// startsChannel is notified at the commit of every insert into
	// workflow_starts (migration 0008).
	startsChannel = "workflow_starts"
)

// Run relays events and starts recorded workflows until ctx is cancelled;
// every pass does both. A pass runs every Interval, and with ListenURL
// also as soon as a start is recorded.
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
			database.Listen(ctx, r.ListenURL, startsChannel, func(on bool) {
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

// RelayEvents relays one batch and returns how many events it handled. The
// events are marked relayed in the same transaction that claimed them, after
// their workflows were started; a crash in between starts them again, which
// the workflow id turns into a no-op.
func (r *Relay) RelayEvents(ctx context.Context) (int, error) {
	var relayed int
	err := r.DB.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var events []domain.Event
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE", Options: "SKIP LOCKED"}).
			Where("relayed_at IS NULL").Order("id").Limit(relayBatch).Find(&events).Error; err != nil {
			return err
		}
		for i := range events {
			if err := r.fanOut(ctx, tx, &events[i]); err != nil {
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

// fanOut creates a delivery and starts its workflow for every active
// endpoint of the event's organization that subscribes to its type.
func (r *Relay) fanOut(ctx context.Context, tx *gorm.DB, e *domain.Event) error {
	var endpoints []webhooks.WebhookEndpoint
	if err := tx.Scopes(domain.InOrganization(e.OrganizationID)).
		Where("status = ? AND (? = ANY (events) OR ? = ANY (events))", webhooks.EndpointActive, e.Type, webhooks.AllEvents).
		Find(&endpoints).Error; err != nil {
		return err
	}
	for _, ep := range endpoints {
		d := webhooks.WebhookDelivery{ID: domain.NewID(), EventID: e.ID, EndpointID: ep.ID, Status: webhooks.DeliveryPending}
		if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&d).Error; err != nil {
			return err
		}
		if err := tx.Where("event_id = ? AND endpoint_id = ?", e.ID, ep.ID).First(&d).Error; err != nil {
			return err
		}
		in := webhooks.DeliveryInput{Org: domain.OrgOf(e.OrganizationID), DeliveryID: d.ID, EventID: e.ID, EndpointID: ep.ID,
			RetryInitial: r.RetryInitial, RetryFor: r.RetryFor}
		wf := webhooks.DeliveryWorkflow
		ref := temporalclient.Ref{
			WorkflowID:     wf.ID(in),
			OrganizationID: in.OrganizationID.String(),
			ResourceID:     wf.Resource(in).String(),
			TaskQueue:      r.TaskQueue,
		}
		if _, err := temporalclient.Start(ctx, r.Temporal, ref, wf.Type, in); err != nil {
			return err
		}
	}
	return nil
}
