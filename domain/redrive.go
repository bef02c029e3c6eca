package domain

import (
	"context"
	"errors"
	"strings"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/internal/i18n"
)

// An operator's re-drive (of an import, a report, a BDO export) starts a
// new run of a record's workflow after its last run failed, timed out or
// was terminated, and keeps the closed runs' history. The
// domain command decides whether the record's state allows it and readies
// the record, in one transaction with the start and the operator's audit
// entry (RedriveRecord); the start itself is Temporal's, given to the
// command as a Redrive (ops.Redriver), so the domain stays free of it.

// Redrive starts a new run of start's workflow, start being built by
// NewStart and never recorded, and returns the run's id. The relay's
// start is no use here: it returns the run that exists for the id, open
// or closed, which a retried request needs and a re-drive must not get.
// While a run is open it starts nothing and refuses with a *RefusedError,
// so a second press of the same re-drive never starts a second run.
//
// Nor is the start durable, as a recorded one is: the operator sees a
// failed start and tries again. Should the transaction then fail to
// commit, the run exists and the error is reported; trying again is
// refused, naming that run, while it is open.
type Redrive func(ctx context.Context, start *WorkflowStart) (runID string, err error)

// Run names one run of a workflow.
type Run struct {
	WorkflowID string
	RunID      string
}

// RefusedError refuses an operator's action (a re-drive, a resend, a
// retry) that the record's state, or a run still open, does not allow,
// saying why as a message: Key with Args. The admin CLI prints it in
// English (Error) and the support console in the reader's language
// (Message), so both say the same.
type RefusedError struct {
	Key  string
	Args []any
}

func (e *RefusedError) Error() string { return e.Message(i18n.EN) }

// Message is the refusal in l.
func (e *RefusedError) Message(l i18n.Locale) string { return i18n.T(l, e.Key, e.Args...) }

// Refusal is the refusal of key for the record id in status, the form
// every "nothing to do" refusal takes: key's arguments are the id, the
// status and why, the message whys holds for the status ("the status is
// unknown to this version" for one it does not name).
func Refusal(key string, id uuid.UUID, status string, whys map[string]string) *RefusedError {
	why, ok := whys[status]
	if !ok {
		why = "refused.status_unknown"
	}
	return &RefusedError{Key: key, Args: []any{id, status, i18n.Message{Key: why}}}
}

// Readied is what a re-drive's prepare step decided: the run to start
// and what the audit entry says besides the run.
type Readied struct {
	Start   *WorkflowStart
	Summary map[string]any
}

// RedriveRecord re-drives the record id of T, of any organization, for an
// operator, in one transaction: it reads the record for update (so two
// presses at once are taken one after the other, and the second finds
// the record as the first left it), has prepare refuse it or ready it
// for a new run, has redrive start that run and appends the audit entry
// of operation on the record, naming the run. The record's change
// commits only with a started run and its audit entry.
//
// recordType names the record in the audit log ("bdo_report") and, with
// spaces, in the error of a missing one.
func RedriveRecord[T any](ctx context.Context, db *gorm.DB, recordType string, id uuid.UUID, operation string, redrive Redrive,
	prepare func(tx *gorm.DB, rec *T) (Readied, error)) (*T, Run, error) {
	var rec T
	var run Run
	err := db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Clauses(clause.Locking{Strength: "UPDATE"}).Take(&rec, "id = ?", id).Error; err != nil {
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return &MissingError{Record: strings.ReplaceAll(recordType, "_", " "), ID: id}
			}
			return err
		}
		ready, err := prepare(tx, &rec)
		if err != nil {
			return err
		}
		org, err := uuid.Parse(ready.Start.OrganizationID)
		if err != nil {
			return err
		}
		runID, err := redrive(ctx, ready.Start)
		if err != nil {
			return err
		}
		run = Run{WorkflowID: ready.Start.WorkflowID, RunID: runID}
		if ready.Summary == nil {
			ready.Summary = map[string]any{}
		}
		ready.Summary["workflow_id"], ready.Summary["run_id"] = run.WorkflowID, run.RunID
		return AuditOperator(ctx, tx, org, operation, recordType, id, ready.Summary)
	})
	if err != nil {
		return nil, Run{}, err
	}
	return &rec, run, nil
}
