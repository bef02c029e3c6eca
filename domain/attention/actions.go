package attention

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/bdo"
	"ppwr/domain/imports"
	"ppwr/domain/reports"
	"ppwr/domain/webhooks"
)

// ActionName names an action on a record.
type ActionName string

// The actions, each the domain command the admin CLI runs for it.
const (
	// RedriveImport is imports.Redrive (ppwr admin imports redrive).
	RedriveImport ActionName = "redrive_import"
	// ResendDelivery is webhooks.OperatorResendDelivery (ppwr admin
	// webhook resend).
	ResendDelivery ActionName = "resend_delivery"
	// RetryReport is reports.RetryReport (ppwr admin reports retry).
	RetryReport ActionName = "retry_report"
	// RetryBDOExport is bdo.RetryExport (ppwr admin bdo retry).
	RetryBDOExport ActionName = "retry_bdo_export"
)

// Label is the key of the message naming the action, as its button
// shows it.
func (a ActionName) Label() string { return "attention.action_label." + string(a) }

// ActionNames are every action's name.
var ActionNames = slices.Sorted(maps.Keys(perform))

// ParseAction is the action named s.
func ParseAction(s string) (ActionName, error) {
	if _, ok := perform[ActionName(s)]; !ok {
		return "", fmt.Errorf("attention: unknown action %q", s)
	}
	return ActionName(s), nil
}

// Action is an action a record's state allows.
type Action struct {
	Name ActionName
	// Explanation is the key of the message that says in one line what
	// the action will do.
	Explanation string
}

// actionOf is the action name, explained by its own message.
func actionOf(name ActionName) Action {
	return Action{Name: name, Explanation: "attention.action." + string(name)}
}

// redriveAction is the re-drive of an import that waits for stage, and
// is requeued first when it failed: each does something else.
func redriveAction(stage imports.RedriveStage, requeue bool) Action {
	explain := "attention.action.redrive_" + string(stage)
	if requeue {
		explain = "attention.action.redrive_failed"
	}
	return Action{Name: RedriveImport, Explanation: explain}
}

// Deps are what the actions need besides the database.
type Deps struct {
	// Redrive starts a re-drive's run: ops.Redriver.Start.
	Redrive domain.Redrive
	// Retry is the installation's webhook retry schedule
	// (WEBHOOK_RETRY_*), which a resent delivery's run is given.
	Retry webhooks.Retry
}

// perform are the actions' commands, each answering the run it started.
var perform = map[ActionName]func(ctx context.Context, db *gorm.DB, id uuid.UUID, deps Deps) (domain.Run, error){
	RedriveImport: func(ctx context.Context, db *gorm.DB, id uuid.UUID, deps Deps) (domain.Run, error) {
		r, err := imports.Redrive(ctx, db, id, deps.Redrive)
		if err != nil {
			return domain.Run{}, err
		}
		return r.Run, nil
	},
	ResendDelivery: func(ctx context.Context, db *gorm.DB, id uuid.UUID, deps Deps) (domain.Run, error) {
		_, run, err := webhooks.OperatorResendDelivery(ctx, db, id, deps.Retry)
		return run, err
	},
	RetryReport: func(ctx context.Context, db *gorm.DB, id uuid.UUID, deps Deps) (domain.Run, error) {
		_, run, err := reports.RetryReport(ctx, db, id, deps.Redrive)
		return run, err
	},
	RetryBDOExport: func(ctx context.Context, db *gorm.DB, id uuid.UUID, deps Deps) (domain.Run, error) {
		_, run, err := bdo.RetryExport(ctx, db, id, deps.Redrive)
		return run, err
	},
}

// Perform does the action on the record id for an operator, through the
// same command as the admin CLI, and answers the run it started; a
// resend's run is started by the relay once it commits, so its RunID is
// empty. A state that does not allow it is refused with a
// *domain.RefusedError, whose Message the page shows, and changes
// nothing: a second press of the same action finds the record running and
// is refused.
func Perform(ctx context.Context, db *gorm.DB, action ActionName, id uuid.UUID, deps Deps) (domain.Run, error) {
	do, ok := perform[action]
	if !ok {
		return domain.Run{}, fmt.Errorf("attention: unknown action %q", action)
	}
	return do(ctx, db, id, deps)
}
