package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Folder groups catalogue items in a tree of the organization's own
// choosing. It is not a PPWR category; a folder is only deleted while it
// holds neither items nor subfolders.
type Folder struct {
	ID             uuid.UUID  `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID  `gorm:"type:uuid"`
	ParentID       *uuid.UUID `gorm:"type:uuid"`
	Name           string
	Revision       int `gorm:"default:1"`
	Timestamps
}

// TableName names the folders table.
func (Folder) TableName() string { return "folders" }

// Folders is the organization's folders, for listing.
func Folders(ctx context.Context, db *gorm.DB, orgID uuid.UUID) *gorm.DB {
	return db.WithContext(ctx).Model(&Folder{}).Scopes(InOrganization(orgID))
}

// FindFolder reads one folder of the organization (ErrNotFound otherwise).
func FindFolder(ctx context.Context, db *gorm.DB, orgID, id uuid.UUID) (*Folder, error) {
	return findFolder(ctx, db, orgID, id, nil)
}

// LockFolder reads one folder of the organization and locks it against
// concurrent changes and against new references (subfolders, items) until
// the transaction ends: what a delete needs before checking emptiness.
func LockFolder(ctx context.Context, tx *gorm.DB, orgID, id uuid.UUID) (*Folder, error) {
	return findFolder(ctx, tx, orgID, id, &clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// FolderReferenceExists reports whether id is a folder of the organization
// and, if so, keeps it from being deleted until the transaction ends, so a
// record may reference it (as parent or as an item's folder) safely.
func FolderReferenceExists(ctx context.Context, tx *gorm.DB, orgID, id uuid.UUID) (bool, error) {
	_, err := findFolder(ctx, tx, orgID, id, &clause.Locking{Strength: "KEY SHARE"})
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

func findFolder(ctx context.Context, db *gorm.DB, orgID, id uuid.UUID, lock *clause.Locking) (*Folder, error) {
	q := db.WithContext(ctx).Scopes(InOrganization(orgID))
	if lock != nil {
		q = q.Clauses(*lock)
	}
	var f Folder
	err := q.Where("id = ?", id).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}

// CreateFolder inserts f with a fresh id and revision 1.
func CreateFolder(ctx context.Context, tx *gorm.DB, f *Folder) error {
	now := structureNow()
	f.ID, f.Revision, f.CreatedAt, f.UpdatedAt = NewID(), 1, now, now
	return tx.WithContext(ctx).Create(f).Error
}

// LockFolderTree serialises moves of the organization's folders until the
// transaction ends, so two concurrent moves cannot together close a cycle
// that neither would close alone.
func LockFolderTree(ctx context.Context, tx *gorm.DB, orgID uuid.UUID) error {
	return tx.WithContext(ctx).Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "folders:"+orgID.String()).Error
}

// FolderWouldCycle reports whether making parentID the parent of id would
// make id its own parent or ancestor: id is parentID or one of its
// ancestors. UNION (not UNION ALL) stops the walk even on damaged data.
func FolderWouldCycle(ctx context.Context, tx *gorm.DB, orgID, id, parentID uuid.UUID) (bool, error) {
	if id == parentID {
		return true, nil
	}
	var n int64
	err := tx.WithContext(ctx).Raw(`
		WITH RECURSIVE ancestors (id, parent_id) AS (
			SELECT id, parent_id FROM folders WHERE id = ? AND organization_id = ?
			UNION
			SELECT f.id, f.parent_id FROM folders f JOIN ancestors a ON f.id = a.parent_id WHERE f.organization_id = ?
		)
		SELECT count(*) FROM ancestors WHERE id = ?`, parentID, orgID, orgID, id).Scan(&n).Error
	return n > 0, err
}

// FolderIsEmpty reports whether the folder holds no subfolders and no
// catalogue items (archived items count: packaging is never deleted).
func FolderIsEmpty(ctx context.Context, tx *gorm.DB, orgID, id uuid.UUID) (bool, error) {
	var held bool
	err := tx.WithContext(ctx).Raw(`
		SELECT EXISTS (SELECT 1 FROM folders WHERE organization_id = ? AND parent_id = ?)
		    OR EXISTS (SELECT 1 FROM catalog_items WHERE organization_id = ? AND folder_id = ?)`,
		orgID, id, orgID, id).Scan(&held).Error
	return !held, err
}

// structureNow is the current time at the database's precision, so a
// created record answers the same timestamps as its later reads.
func structureNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
