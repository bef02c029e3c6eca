package catalog

import (
	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Family groups catalogue items that share a design (for example one box
// in several sizes).
type Family struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Name           string
	Description    string
	Revision       int `gorm:"default:1"`
	domain.Timestamps
}

// TableName names the families table.
func (Family) TableName() string { return "families" }

// FamilyCreate is the body of a new family.
type FamilyCreate struct {
	input.Errors
	Name        input.Opt[string]
	Description input.Opt[string]
}

// Declare names the family's fields; a null or blank description is none.
func (in *FamilyCreate) Declare(f *input.Fields) {
	f.Text("name", &in.Name, input.Text{Required: true, Max: StructureNameMax})
	f.Text("description", &in.Description, input.Text{Nullable: true, Max: DescriptionMax})
}

// FamilyUpdate changes the fields it sends; omitted fields are kept, and a
// null or blank description clears it.
type FamilyUpdate struct {
	input.Errors
	Revision    input.Opt[int]
	Name        input.Opt[string]
	Description input.Opt[string]
}

// Declare names the update's fields: the revision and at least one change.
func (in *FamilyUpdate) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	f.Text("name", &in.Name, input.Text{NotBlank: true, Max: StructureNameMax})
	f.Text("description", &in.Description, input.Text{Nullable: true, Max: DescriptionMax})
	OneRequired(f, in.Name.Sent || in.Description.Sent, "name", "description")
}

// CreateFamily creates a family.
func CreateFamily(w *work.Unit, in *FamilyCreate) (*Family, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	stamp := domain.Now()
	f := &Family{ID: domain.NewID(), OrganizationID: w.Organization(), Name: in.Name.Value, Description: in.Description.Value, Revision: 1,
		Timestamps: domain.Timestamps{CreatedAt: stamp, UpdatedAt: stamp}}
	if err := w.Defer(f); err != nil {
		return nil, err
	}
	w.Touch("family", f.ID)
	return f, domain.Emit(w, FamilyCreated{FamilyID: f.ID, Revision: f.Revision})
}

// UpdateFamily applies a FamilyUpdate at the revision the client read.
func UpdateFamily(w *work.Unit, id uuid.UUID, in *FamilyUpdate) (*Family, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	updates := map[string]any{}
	if in.Name.Set() {
		updates["name"] = in.Name.Value
	}
	if in.Description.Sent {
		updates["description"] = in.Description.Value
	}
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	if err := domain.UpdateWithRevision(ctx, tx, &Family{}, org, id, in.Revision.Value, updates); err != nil {
		return nil, err
	}
	f, err := domain.Find[Family](ctx, tx, org, id)
	if err != nil {
		return nil, err
	}
	w.Touch("family", f.ID)
	return f, domain.Emit(w, FamilyUpdated{FamilyID: f.ID, Revision: f.Revision})
}
