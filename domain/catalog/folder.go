package catalog

import (
	"strings"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Limits of the structure records' text fields.
const (
	StructureNameMax = 200
	DescriptionMax   = 2000
	PartyTaxIDMax    = 50
	PartyEmailMax    = 254
	PartyAddressMax  = 500
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
	domain.Timestamps
}

// TableName names the folders table.
func (Folder) TableName() string { return "folders" }

// FolderCreate is the body of a new folder.
type FolderCreate struct {
	input.Errors
	Name   input.Opt[string]
	Parent input.Opt[uuid.UUID]
}

// Declare names the folder's fields.
func (in *FolderCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, Max: StructureNameMax})
	f.Ref("parent", &in.Parent, input.Ref{Nullable: true})
}

// FolderUpdate renames and/or moves a folder; omitted fields are kept and
// "parent": null moves it to the top level.
type FolderUpdate struct {
	input.Errors
	Revision input.Opt[int]
	Name     input.Opt[string]
	Parent   input.Opt[uuid.UUID]
}

// Declare names the update's fields: the revision and at least one change.
func (in *FolderUpdate) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("name", &in.Name, input.Text{NotBlank: true, Max: StructureNameMax})
	f.Ref("parent", &in.Parent, input.Ref{Nullable: true})
	OneRequired(f, in.Name.Sent || in.Parent.Sent, "name", "parent")
}

// OneRequired fails each of names when none of them was sent.
func OneRequired(f *input.Fields, anySent bool, names ...string) {
	if !f.Binding() || anySent {
		return
	}
	for _, name := range names {
		f.Fail(name, "field.one_required", strings.Join(names, ", "))
	}
}

// CreateFolder creates a folder, under an existing parent of the
// organization if one is named.
func CreateFolder(w *work.Unit, in *FolderCreate) (*Folder, error) {
	if err := checkFolderParent(w, &in.Errors, uuid.Nil, in.Parent); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	stamp := domain.Now()
	f := &Folder{ID: domain.NewID(), OrganizationID: w.Organization(), ParentID: domain.Optional(in.Parent), Name: in.Name.Value, Revision: 1,
		Timestamps: domain.Timestamps{CreatedAt: stamp, UpdatedAt: stamp}}
	if err := w.Tx().Create(f).Error; err != nil {
		return nil, err
	}
	w.Touch("folder", f.ID)
	return f, domain.Emit(w, FolderCreated(folderPlacement(f)))
}

// UpdateFolder applies a FolderUpdate at the revision the client read.
func UpdateFolder(w *work.Unit, id uuid.UUID, in *FolderUpdate) (*Folder, error) {
	if err := checkFolderParent(w, &in.Errors, id, in.Parent); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	updates := map[string]any{}
	if in.Name.Set() {
		updates["name"] = in.Name.Value
	}
	if in.Parent.Sent {
		updates["parent_id"] = domain.Optional(in.Parent)
	}
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	if err := domain.UpdateWithRevision(ctx, tx, &Folder{}, org, id, in.Revision.Value, updates); err != nil {
		return nil, err
	}
	f, err := domain.Find[Folder](ctx, tx, org, id)
	if err != nil {
		return nil, err
	}
	w.Touch("folder", f.ID)
	return f, domain.Emit(w, FolderUpdated(folderPlacement(f)))
}

// DeleteFolder removes an empty folder at its current revision.
func DeleteFolder(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) error {
	if in.Failed() {
		return in.Err()
	}
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	// The row lock keeps new subfolders and items out until the delete
	// commits: they lock their folder reference first.
	f, err := domain.LockFor[Folder](ctx, tx, org, id, "UPDATE")
	if err != nil {
		return err
	}
	if f.Revision != in.Revision.Value {
		return domain.ErrRevisionConflict
	}
	var held bool
	err = tx.Raw(`
		SELECT EXISTS (SELECT 1 FROM folders WHERE organization_id = ? AND parent_id = ?)
		    OR EXISTS (SELECT 1 FROM catalog_items WHERE organization_id = ? AND folder_id = ?)`,
		org, id, org, id).Scan(&held).Error
	if err != nil {
		return err
	}
	if held {
		return domain.ErrFolderNotEmpty
	}
	if err := domain.DeleteWithRevision(ctx, tx, &Folder{}, org, id, f.Revision); err != nil {
		return err
	}
	w.Touch("folder", id)
	return domain.Emit(w, FolderDeleted{FolderID: id, Revision: f.Revision})
}

// checkFolderParent validates a parent reference: it must be a folder of
// the organization and, for an existing folder (id not Nil), must not be
// the folder itself or one of its descendants.
func checkFolderParent(w *work.Unit, errs *input.Errors, id uuid.UUID, parent input.Opt[uuid.UUID]) error {
	var refs domain.References
	refs.Add("folders", "parent", parent, errs)
	if refs.ByTable == nil {
		return nil
	}
	if err := refs.Check(w); err != nil || errs.Has("parent") || id == uuid.Nil {
		return err
	}
	tx := w.Tx()
	// Serialise moves within the organization, so two concurrent moves
	// cannot together close a cycle that neither would close alone.
	if err := tx.Exec("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", "folders:"+w.Organization().String()).Error; err != nil {
		return err
	}
	if id == parent.Value {
		errs.Fail("parent", "field.folder_cycle")
		return nil
	}
	// UNION (not UNION ALL) stops the walk even on damaged data.
	var n int64
	err := tx.Raw(`
		WITH RECURSIVE ancestors (id, parent_id) AS (
			SELECT id, parent_id FROM folders WHERE id = ? AND organization_id = ?
			UNION
			SELECT f.id, f.parent_id FROM folders f JOIN ancestors a ON f.id = a.parent_id WHERE f.organization_id = ?
		)
		SELECT count(*) FROM ancestors WHERE id = ?`, parent.Value, w.Organization(), w.Organization(), id).Scan(&n).Error
	if n > 0 {
		errs.Fail("parent", "field.folder_cycle")
	}
	return err
}

func folderPlacement(f *Folder) FolderPlacement {
	return FolderPlacement{FolderID: f.ID, ParentID: f.ParentID, Revision: f.Revision}
}
