package records

import (
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"

	"ppwr/domain"
	"ppwr/domain/carbon"
	"ppwr/domain/catalog"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/register"
	"ppwr/internal/work"
)

// ReuseSystem is a re-use system an organization runs or takes part in
// (PPWR Art. 26-27, Annex VI Parts A-B, rules R45-R46). Its reuse units
// are entries of the reuse-units register naming the system by its id or
// code.
type ReuseSystem struct {
	ID                  uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID      uuid.UUID `gorm:"type:uuid"`
	Code                string
	Name                string
	Operator            string
	Loop                string
	ReturnIncentive     string
	Participants        datatypes.JSONSlice[ReuseParticipant] `gorm:"type:jsonb"`
	ReconditioningSteps datatypes.JSONSlice[string]           `gorm:"type:jsonb"`
	Items               datatypes.JSONSlice[uuid.UUID]        `gorm:"type:jsonb"`
	Markets             datatypes.JSONSlice[string]           `gorm:"type:jsonb"`
	CreatedBy           *uuid.UUID                            `gorm:"type:uuid"`
	Revision            int
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// ReuseParticipant is a participant of a system with the written
// confirmation Art. 26 asks for, when there is one.
type ReuseParticipant struct {
	Name         string     `json:"name"`
	Role         string     `json:"role"`
	Confirmation *uuid.UUID `json:"confirmation"`
}

// Vocabularies of re-use systems.
var (
	ReuseLoops            = []string{"closed_loop", "open_loop"}
	ReuseParticipantRoles = []string{"operator", "packaging_user", "reconditioner", "distributor", "collector", "other"}
)

// ReuseSystemParticipantsMax bounds a system's participants.
const ReuseSystemParticipantsMax = 500

// ReuseSystemCreate is the body of a new re-use system.
type ReuseSystemCreate struct {
	input.Errors
	Code                input.Opt[string]
	Name                input.Opt[string]
	Operator            input.Opt[string]
	Loop                input.Opt[string]
	ReturnIncentive     input.Opt[string]
	Participants        []participantInput
	ReconditioningSteps input.Opt[[]string]
	Items               input.Opt[[]uuid.UUID]
	Markets             input.Opt[[]string]
}

type participantInput struct {
	Name, Role   input.Opt[string]
	Confirmation input.Opt[uuid.UUID]
}

// Declare names the system's fields.
func (in *ReuseSystemCreate) Declare(f *input.Fields) {
	f.Text("code", &in.Code, input.Text{Required: true, NotBlank: true, Max: carbon.CarbonNameMax, Desc: "schema.reuse_system_code"})
	f.Text("name", &in.Name, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Text("operator", &in.Operator, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
	f.Enum("loop", &in.Loop, input.Enum{Required: true, Values: ReuseLoops})
	f.Text("return_incentive", &in.ReturnIncentive, input.Text{Required: true, NotBlank: true, Max: RecordTextMax, Desc: "schema.return_incentive"})
	f.Items("participants", input.Items{Required: true, MinItems: 1, MaxItems: ReuseSystemParticipantsMax}, func(_ int, p *input.Fields) {
		var v participantInput
		p.Text("name", &v.Name, input.Text{Required: true, NotBlank: true, Max: RecordNameMax})
		p.Enum("role", &v.Role, input.Enum{Required: true, Values: ReuseParticipantRoles})
		p.Ref("confirmation", &v.Confirmation, input.Ref{Nullable: true, Desc: "schema.participant_confirmation"})
		in.Participants = append(in.Participants, v)
	})
	f.List("reconditioning_steps", &in.ReconditioningSteps, input.List{Required: true, Values: register.ReconditioningSteps})
	f.Refs("items", &in.Items, input.Refs{Required: true, MinItems: 1, MaxItems: RecordItemsMax})
	f.List("markets", &in.Markets, input.List{Required: true, MinItems: 1, Known: dictionaries.Default().HasCountry, UnknownKey: "field.unknown_country"})
}

// CreateReuseSystem records a system: its items must be the
// organization's, participants' confirmations approved document versions
// of it, and its code unused. It refreshes its items' assessments.
func CreateReuseSystem(w *work.Unit, in *ReuseSystemCreate) (*ReuseSystem, error) {
	refs := registers.NewRefCheck(&in.Errors, uuid.Nil)
	refs.Refs("items", "item", in.Items.Value)
	participants := make([]ReuseParticipant, len(in.Participants))
	for i, p := range in.Participants {
		participants[i] = ReuseParticipant{Name: p.Name.Value, Role: p.Role.Value, Confirmation: domain.Optional(p.Confirmation)}
		if p.Confirmation.Set() {
			refs.Ref("participants."+strconv.Itoa(i)+".confirmation", "document", p.Confirmation.Value)
		}
	}
	if err := refs.Check(w.Context(), w.Tx(), w.Organization()); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	s := &ReuseSystem{ID: domain.NewID(), OrganizationID: w.Organization(), Code: in.Code.Value, Name: in.Name.Value,
		Operator: in.Operator.Value, Loop: in.Loop.Value, ReturnIncentive: in.ReturnIncentive.Value, Participants: participants,
		ReconditioningSteps: in.ReconditioningSteps.Value, Items: in.Items.Value, Markets: in.Markets.Value,
		CreatedBy: w.Actor().UserID, Revision: 1, CreatedAt: at, UpdatedAt: at}
	if err := w.Tx().Create(s).Error; err != nil {
		return nil, domain.FromDatabase(err)
	}
	if err := catalog.RefreshAssessments(w, s.Items...); err != nil {
		return nil, err
	}
	w.Touch("reuse_system", s.ID)
	return s, domain.Emit(w, ReuseSystemCreated{ID: s.ID})
}

// ReuseSystemCreated announces a new re-use system.
type ReuseSystemCreated domain.RecordCreated

func (ReuseSystemCreated) EventType() string { return "reuse_system.created" }
