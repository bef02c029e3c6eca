package domain

import (
	"context"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/internal/input"
)

// Optimistic concurrency: every mutable record has an integer revision that
// the server increments and the client sends back; a mismatch is a conflict.

// UpdateWithRevision applies updates to the organization's record id of
// model's table only if its revision is still expected, incrementing it.
// It returns ErrNotFound when the record does not exist in the
// organization and ErrRevisionConflict when it changed meanwhile.
func UpdateWithRevision(ctx context.Context, tx *gorm.DB, model any, orgID, id uuid.UUID, expected int, updates map[string]any) error {
	changes := map[string]any{"revision": gorm.Expr("revision + 1"), "updated_at": time.Now().UTC()}
	for k, v := range updates {
		changes[k] = v
	}
	res := tx.WithContext(ctx).Model(model).Where("id = ? AND organization_id = ? AND revision = ?", id, orgID, expected).Updates(changes)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 1 {
		return nil
	}
	return missingOrConflict(ctx, tx, model, orgID, id)
}

// DeleteWithRevision deletes the organization's record id if its revision
// is still expected.
func DeleteWithRevision(ctx context.Context, tx *gorm.DB, model any, orgID, id uuid.UUID, expected int) error {
	res := tx.WithContext(ctx).Where("id = ? AND organization_id = ? AND revision = ?", id, orgID, expected).Delete(model)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 1 {
		return nil
	}
	return missingOrConflict(ctx, tx, model, orgID, id)
}

func missingOrConflict(ctx context.Context, tx *gorm.DB, model any, orgID, id uuid.UUID) error {
	var n int64
	if err := tx.WithContext(ctx).Model(model).Where("id = ? AND organization_id = ?", id, orgID).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return ErrRevisionConflict
}

// Expected is the revision a client expects to change: one of Revisions,
// or Any (If-Match: *).
type Expected struct {
	Any       bool
	Revisions []int
}

// ExpectRevision expects exactly revision n.
func ExpectRevision(n int) Expected { return Expected{Revisions: []int{n}} }

// Matches reports whether a record at revision current may be changed.
func (e Expected) Matches(current int) bool {
	if e.Any {
		return true
	}
	for _, r := range e.Revisions {
		if r == current {
			return true
		}
	}
	return false
}

// RevisionOptional is a body that may name the revision the client read.
type RevisionOptional struct {
	input.Errors
	Revision input.Opt[int]
}

// Declare names the revision.
func (in *RevisionOptional) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(false))
}

// RevisionRequired is a body that must name the revision the client read.
type RevisionRequired struct {
	input.Errors
	Revision input.Opt[int]
}

// Declare names the revision.
func (in *RevisionRequired) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
}
