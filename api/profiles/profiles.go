// Package profiles is the organization's compliance profile under
// /ppwr/compliance-profile: per Member State, the facts about the operator
// that its own PPWR obligations read, with list, show, create and the
// one review decision. The spec has no such area (issue 27 asks for it),
// so its operations are extensions, marked in the document; they take the
// abilities and permissions of the PPWR registers, whose review it
// shares. The values' schema comes from register.ComplianceProfile.
package profiles

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/profiles"
	"ppwr/domain/registers"
	a "ppwr/internal/access"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/register"
)

const (
	tag     = "compliance-profile"
	entries = kit.Org + "/ppwr/compliance-profile"
	entry   = entries + "/{recordId}"
)

type handlers struct{ kit.Deps }

// Area declares the profile's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	model := kit.Ref("ComplianceProfileEntry")
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listComplianceProfileEntries", entries, tag, a.PPWRRead, a.CatalogView).Extension().
				Handle(kit.Query(h.list), kit.ListOK("ComplianceProfileEntry")),
			kit.Post("createComplianceProfileEntry", entries, tag, a.PPWRWrite, a.CatalogUpdate).Extension().
				Handle(kit.JSONBody("ComplianceProfileEntryCreate", profiles.NewProfileEntryCreate, h.create),
					kit.CreatedResponse(model, "getComplianceProfileEntry")),
			kit.Get("getComplianceProfileEntry", entry, tag, a.PPWRRead, a.CatalogView).Extension().
				Handle(kit.Do(h.get), kit.OK(model)),
			kit.Post("reviewComplianceProfileEntry", entry+"/review", tag, a.PPWRReview, a.EvidenceReviewPerm).Extension().
				Answers(registers.ErrSelfReview, registers.ErrEntryDecided, registers.ErrEntrySuperseded, domain.ErrRevisionConflict).
				Handle(kit.JSONBody("RegisterReview", registers.NewRegisterReview, kit.Change("recordId", profiles.ReviewProfileEntry, toJSON)),
					kit.OK(model)),
		},
		Models: []kit.Model{kit.ModelOf[entryJSON]("ComplianceProfileEntry").Described("schema.compliance_profile_entry").With(func(s *kit.Shape) {
			s.Derived("values", register.ComplianceProfile.Schema())
		})},
	}
}

type entryJSON struct {
	ID           uuid.UUID       `json:"id"`
	Country      string          `json:"country"`
	Values       json.RawMessage `json:"values"`
	Evidence     []evidenceJSON  `json:"evidence"`
	Status       string          `json:"status"`
	Supersedes   *uuid.UUID      `json:"supersedes"`
	SupersededBy *uuid.UUID      `json:"superseded_by"`
	CreatedAt    time.Time       `json:"created_at"`
	kit.ReviewJSON
}

// evidenceJSON is a document version a value cites.
type evidenceJSON struct {
	Kind  string    `json:"kind"`
	ID    uuid.UUID `json:"id"`
	Field *string   `json:"field"`
}

func (entryJSON) Declare(s *kit.Shape) {
	s.Enum("country", dictionaries.Default().MemberStates()...)
	s.Enum("status", registers.EntryStatuses...)
	s.Enum("review_status", profiles.ReviewStatuses...)
	s.DescribeField("review_status", "register.review_status")
}

func (evidenceJSON) Declare(s *kit.Shape) { s.Enum("kind", registers.EvidenceDocumentVersion) }

func toJSON(e *profiles.ProfileEntry) entryJSON {
	out := entryJSON{ID: e.ID, Country: e.Country, Values: json.RawMessage(e.Values), Evidence: make([]evidenceJSON, len(e.Evidence)),
		Status: e.Status, Supersedes: e.Supersedes, SupersededBy: e.SupersededBy, CreatedAt: e.CreatedAt.UTC(), ReviewJSON: kit.Review(&e.ReviewState)}
	for i, r := range e.Evidence {
		out.Evidence[i] = evidenceJSON{Kind: r.Kind, ID: r.ID, Field: r.Field}
	}
	return out
}

// entryQuery filters the profile's entries.
type entryQuery struct {
	input.Errors
	Country      input.Opt[string]
	Status       input.Opt[string]
	ReviewStatus input.Opt[string]
}

func (q *entryQuery) Declare(f *input.Fields) {
	f.Enum("country", &q.Country, input.Enum{Values: dictionaries.Default().MemberStates()})
	f.Enum("status", &q.Status, input.Enum{Values: registers.EntryStatuses})
	f.Enum("review_status", &q.ReviewStatus, input.Enum{Values: profiles.ReviewStatuses})
}

// list pages through the organization's entries, newest first.
func (h *handlers) list(c *gin.Context, q *entryQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&profiles.ProfileEntry{})
	db = kit.Filter(kit.Filter(kit.Filter(db, "country", q.Country), "status", q.Status), "review_status", q.ReviewStatus)
	return kit.Paginate(c, db, kit.NewestFirst, toJSON)
}

func (h *handlers) get(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", toJSON)
}

func (h *handlers) create(c *gin.Context, in *profiles.ProfileEntryCreate) error {
	e, err := profiles.CreateProfileEntry(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, e.ID, toJSON(e))
}
