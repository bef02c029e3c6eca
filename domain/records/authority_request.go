package records

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/registers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/rules"
	"ppwr/internal/work"
)

// Authority requests are reasoned requests of a market surveillance
// authority for the technical documentation of some items (PPWR Art.
// 15(10), 17(2)(c)-(d), 18(8); rule R38), which must be answered within
// 10 days of receipt. The record keeps the request as received; the
// workflow authority-request/<id> assembles the documentation bundle and
// keeps the deadline. The record is the organization's own: it never
// records or claims a decision of the authority (the spec's boundary 4).

// Bundle statuses.
const (
	BundleBuilding = "building"
	BundleReady    = "ready"
	BundleFailed   = "failed"
)

// Deadline statuses, derived from the dates as rule R38 derives them.
const (
	DeadlineOpen           = rules.DeadlineOpen
	DeadlineOverdue        = rules.DeadlineOverdue
	DeadlineAnsweredInTime = rules.DeadlineAnsweredInTime
	DeadlineAnsweredLate   = rules.DeadlineAnsweredLate
)

// Vocabularies of authority requests.
var (
	BundleStatuses   = []string{BundleBuilding, BundleReady, BundleFailed}
	DeadlineStatuses = rules.DeadlineStatuses
)

// Answered tells the deadline statuses of a request that was answered.
func Answered(deadlineStatus string) bool {
	return deadlineStatus == DeadlineAnsweredInTime || deadlineStatus == DeadlineAnsweredLate
}

// Deadlines of R38: the answer is due 10 days after receipt, and the
// reminder issue opens 3 days before that.
const (
	AuthorityAnswerDays   = 10
	AuthorityReminderDays = 3
)

// Limits of an authority request.
const (
	AuthorityNameMax      = 300
	AuthorityReferenceMax = 200
	AuthoritySubjectMax   = 500
	AuthorityNoteMax      = 4000
	AuthorityItemsMax     = 200
)

// AuthorityRequestWorkflow is the workflow of a request: its bundle and
// its deadline. AuthorityRequestAnsweredWorkflow stops its wait for the
// deadline once the request is answered, which happens once.
var (
	AuthorityRequestWorkflow = domain.Workflow[AuthorityRequestInput]{
		Type:     "AuthorityRequest",
		ID:       func(in AuthorityRequestInput) string { return "authority-request/" + in.RequestID.String() },
		Resource: authorityRequestOf,
	}
	AuthorityRequestAnsweredWorkflow = domain.Workflow[AuthorityRequestInput]{
		Type:     "AuthorityRequestAnswered",
		ID:       func(in AuthorityRequestInput) string { return AuthorityRequestWorkflow.ID(in) + "/answered" },
		Resource: authorityRequestOf,
	}
)

func authorityRequestOf(in AuthorityRequestInput) uuid.UUID { return in.RequestID }

// AuthorityRequest is one request of an authority and its bundle.
type AuthorityRequest struct {
	ID                 uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID     uuid.UUID `gorm:"type:uuid"`
	AuthorityName      string
	AuthorityCountry   string
	AuthorityReference string
	Subject            *string
	Note               *string
	Items              datatypes.JSONSlice[uuid.UUID] `gorm:"type:jsonb"`
	ReceivedOn         time.Time                      `gorm:"type:date"`
	DueOn              time.Time                      `gorm:"type:date"`
	AnsweredOn         *time.Time                     `gorm:"type:date"`
	BundleStatus       string
	BundleObjectKey    *string
	BundleSizeBytes    *int64
	BundleSHA256       *string `gorm:"column:bundle_sha256"`
	BundleError        *string
	BundleBuiltAt      *time.Time
	CreatedBy          *uuid.UUID `gorm:"type:uuid"`
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// BundleProgress is the progress of building the bundle.
	BundleProgress domain.Progress `gorm:"embedded"`
}

// StageCollecting is a bundle's stage of collecting its items' files
// into the ZIP, of the request's items.
const StageCollecting = "collecting"

// BundleStages are the progress stages of a bundle in order.
var BundleStages = domain.Stages{domain.StageQueued, StageCollecting}

// Running reports whether the request's bundle is being built.
func (r *AuthorityRequest) Running() bool { return r.BundleStatus == BundleBuilding }

// TrackBundle is the progress tracker of the request's bundle.
func TrackBundle(db *gorm.DB, r *AuthorityRequest) *domain.ProgressTracker {
	return BundleStages.Track(db, &AuthorityRequest{}, r.OrganizationID, r.ID)
}

// BundleFileName is the bundle's download name.
func (r *AuthorityRequest) BundleFileName() string {
	return "authority-request-" + r.ID.String() + ".zip"
}

// DeadlineStatus says where the request stands against its due date on
// the day today.
func (r *AuthorityRequest) DeadlineStatus(today time.Time) string {
	return rules.DeadlineStatus(r.DueOn, r.AnsweredOn, today)
}

// AuthorityRequestInput names the request a workflow works for, with
// what its deadline needs: the due date, and whether the request was
// answered before it was recorded (then nothing is left to remind of).
type AuthorityRequestInput struct {
	domain.Org
	RequestID uuid.UUID `json:"request_id"`
	DueOn     time.Time `json:"due_on"`
	Answered  bool      `json:"answered"`
}

// AuthorityRequestCreate is the body of a new request.
type AuthorityRequestCreate struct {
	input.Errors
	AuthorityName      input.Opt[string]
	AuthorityCountry   input.Opt[string]
	AuthorityReference input.Opt[string]
	Items              input.Opt[[]string]
	ReceivedOn         input.Opt[time.Time]
	AnsweredOn         input.Opt[time.Time]
	Subject            input.Opt[string]
	Note               input.Opt[string]
}

// Declare names the request's fields.
func (in *AuthorityRequestCreate) Declare(f *input.Fields) {
	f.Object("authority", input.Object{Required: true, Desc: "authority.authority"}, func(a *input.Fields) {
		a.Text("name", &in.AuthorityName, input.Text{Required: true, Max: AuthorityNameMax})
		a.Code("country", &in.AuthorityCountry, input.Code{Required: true, Known: dictionaries.Default().HasCountry, Desc: "authority.country"})
		if a.Binding() && in.AuthorityCountry.Set() && !a.Has("country") && !dictionaries.Default().IsMemberState(in.AuthorityCountry.Value) {
			a.Fail("country", "field.not_member_state")
		}
	})
	f.Text("authority_reference", &in.AuthorityReference, input.Text{Required: true, Max: AuthorityReferenceMax, Desc: "authority.reference"})
	f.List("items", &in.Items, input.List{Required: true, MinItems: 1, Known: registers.IsUUID, UnknownKey: "field.uuid_in_list", Desc: "authority.items"})
	f.Date("received_on", &in.ReceivedOn, input.Date{Required: true, Desc: "authority.received_on"})
	f.Date("answered_on", &in.AnsweredOn, input.Date{Desc: "authority.answered_on"})
	f.Text("subject", &in.Subject, input.Text{Nullable: true, Max: AuthoritySubjectMax, Desc: "authority.subject"})
	f.Text("note", &in.Note, input.Text{Nullable: true, Max: AuthorityNoteMax})
	if !f.Binding() {
		return
	}
	if in.Items.Set() && len(in.Items.Value) > AuthorityItemsMax {
		f.Fail("items", "field.too_many", AuthorityItemsMax)
	}
	for name, d := range map[string]input.Opt[time.Time]{"received_on": in.ReceivedOn, "answered_on": in.AnsweredOn} {
		if d.Set() && !f.Has(name) && d.Value.After(domain.Today()) {
			f.Fail(name, "field.after_today")
		}
	}
	if in.ReceivedOn.Set() && in.AnsweredOn.Set() && !f.Has("received_on") && !f.Has("answered_on") &&
		in.AnsweredOn.Value.Before(in.ReceivedOn.Value) {
		f.Fail("answered_on", "field.before_received_on")
	}
}

// CreateAuthorityRequest records a request about items of the unit's
// organization, its due date computed from receipt, and the start of the
// workflow that builds its bundle and keeps its deadline; it refreshes
// the items' assessments.
func CreateAuthorityRequest(w *work.Unit, in *AuthorityRequestCreate) (*AuthorityRequest, error) {
	var refs domain.References
	items := datatypes.JSONSlice[uuid.UUID]{}
	if in.Items.Set() {
		for i, s := range in.Items.Value {
			id := uuid.MustParse(s)
			refs.Add("catalog_items", "items."+strconv.Itoa(i), input.Of(id), &in.Errors)
			items = append(items, id)
		}
	}
	if err := refs.Check(w); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	at := domain.Now()
	r := &AuthorityRequest{ID: domain.NewID(), OrganizationID: w.Organization(), AuthorityName: in.AuthorityName.Value,
		AuthorityCountry: in.AuthorityCountry.Value, AuthorityReference: in.AuthorityReference.Value,
		Subject: domain.Optional(in.Subject), Note: domain.Optional(in.Note), Items: items, ReceivedOn: in.ReceivedOn.Value,
		DueOn: in.ReceivedOn.Value.AddDate(0, 0, AuthorityAnswerDays), AnsweredOn: domain.Optional(in.AnsweredOn),
		BundleStatus: BundleBuilding, CreatedBy: w.Actor().UserID, CreatedAt: at, UpdatedAt: at, BundleProgress: BundleStages.Queued()}
	if err := w.Tx().Create(r).Error; err != nil {
		return nil, err
	}
	if err := catalog.RefreshAssessments(w, r.Items...); err != nil {
		return nil, err
	}
	w.Touch("authority_request", r.ID)
	if err := domain.Emit(w, AuthorityRequestCreated{ID: r.ID, DueOn: r.DueOn.Format(time.DateOnly)}); err != nil {
		return nil, err
	}
	return r, domain.Start(w, AuthorityRequestWorkflow, r.WorkflowInput(), r.summary("bundle and reminder"))
}

// summary says which request a run of what works on, for the Temporal UI.
func (r *AuthorityRequest) summary(what string) string {
	return fmt.Sprintf("Authority request %s of %s (%s), due %s: %s", r.AuthorityReference, r.AuthorityName, r.AuthorityCountry,
		r.DueOn.Format(time.DateOnly), what)
}

// WorkflowInput is the input of the request's workflows.
func (r *AuthorityRequest) WorkflowInput() AuthorityRequestInput {
	return AuthorityRequestInput{Org: domain.OrgOf(r.OrganizationID), RequestID: r.ID, DueOn: r.DueOn, Answered: r.AnsweredOn != nil}
}

// MarkAuthorityRequestAnswered records the day the organization answered
// the request, refreshes its items' assessments, resolves its reminder
// issue, and records the start of the workflow that stops the request's
// wait for its deadline (the answered signal); the reminder checks the
// record as well, so a signal that comes late changes nothing.
func MarkAuthorityRequestAnswered(w *work.Unit, id uuid.UUID, on time.Time) (*AuthorityRequest, error) {
	r, err := domain.LockFor[AuthorityRequest](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	switch {
	case r.AnsweredOn != nil:
		return nil, fmt.Errorf("authority request %s was already marked answered on %s", r.ID, r.AnsweredOn.Format(time.DateOnly))
	case on.After(domain.Today()):
		return nil, fmt.Errorf("the answer date %s is in the future", on.Format(time.DateOnly))
	case on.Before(r.ReceivedOn):
		return nil, fmt.Errorf("the answer date %s is before the request was received (%s)", on.Format(time.DateOnly), r.ReceivedOn.Format(time.DateOnly))
	}
	r.AnsweredOn, r.UpdatedAt = &on, domain.Now()
	if err := w.Tx().Model(r).Select("answered_on", "updated_at").Updates(r).Error; err != nil {
		return nil, err
	}
	if err := catalog.RefreshAssessments(w, r.Items...); err != nil {
		return nil, err
	}
	w.Touch("authority_request", r.ID)
	if err := domain.ResolveIssues(w, domain.IssueAuthorityRequestDue, r.ID, "issue.resolved_authority_request_answered"); err != nil {
		return nil, err
	}
	if err := domain.Emit(w, AuthorityRequestAnswered{ID: r.ID, AnsweredOn: on.Format(time.DateOnly)}); err != nil {
		return nil, err
	}
	return r, domain.Start(w, AuthorityRequestAnsweredWorkflow, r.WorkflowInput(), r.summary("answered on "+on.Format(time.DateOnly)))
}

// AnsweredRequest is a request an operator marked answered.
type AnsweredRequest struct {
	Request        *AuthorityRequest
	DeadlineStatus string
	// WorkflowID is the workflow that ends the request's deadline timer.
	WorkflowID string
}

// OperatorMarkAnswered records that the organization answered its
// request id on the day on (today, UTC, when zero): MarkAuthorityRequestAnswered,
// and the durable start of the workflow that signals the request's
// workflow so its deadline timer ends. The API has no update of a
// request (the spec lists a create and a read only), so an operator
// records the day.
func OperatorMarkAnswered(ctx context.Context, db *gorm.DB, org, id uuid.UUID, on time.Time) (*AnsweredRequest, error) {
	if err := accounts.RequireOrganization(ctx, db, org); err != nil {
		return nil, err
	}
	today := domain.Today()
	if on.IsZero() {
		on = today
	}
	const operation = "admin.authority-requests.answered"
	w := work.New(ctx, db, work.Actor{Kind: work.ActorOperator, OrganizationID: org, Reference: operation})
	defer w.Rollback()
	r, err := MarkAuthorityRequestAnswered(w, id, on)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, &domain.MissingError{Record: "authority request", ID: id, Organization: org}
	}
	if err != nil {
		return nil, err
	}
	workflowID := AuthorityRequestAnsweredWorkflow.ID(r.WorkflowInput())
	summary, err := json.Marshal(map[string]any{"answered_on": on.Format(time.DateOnly), "workflow_id": workflowID})
	if err != nil {
		return nil, err
	}
	if err := domain.Commit(w, domain.AuditEntry{Operation: operation, Summary: datatypes.JSON(summary)}); err != nil {
		return nil, err
	}
	return &AnsweredRequest{Request: r, DeadlineStatus: r.DeadlineStatus(today), WorkflowID: workflowID}, nil
}

// OpenAuthorityRequestDueIssue opens the reminder issue of a request not
// yet answered as its due date nears; an answered request is left alone.
// The row is read under a lock that marking it answered waits for, so
// the issue is either never opened or resolved by that answer.
func OpenAuthorityRequestDueIssue(w *work.Unit, id uuid.UUID) (bool, error) {
	r, err := domain.LockFor[AuthorityRequest](w.Context(), w.Tx(), w.Organization(), id, "SHARE")
	if err != nil || r.AnsweredOn != nil {
		return false, err
	}
	return domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueAuthorityRequestDue, Severity: domain.SeverityHigh,
		SubjectType: "authority_request", SubjectID: r.ID, MessageKey: "issue.authority_request_due",
		MessageArgs: []any{r.AuthorityName, r.AuthorityReference, r.DueOn.Format(time.DateOnly)}})
}

// FinishAuthorityBundle records the built bundle (its object, size and
// SHA-256 digest), or why it could not be built.
func FinishAuthorityBundle(w *work.Unit, id uuid.UUID, key string, size int64, sha256 string, failure error) error {
	set := map[string]any{"bundle_status": BundleReady, "bundle_object_key": key, "bundle_size_bytes": size,
		"bundle_sha256": sha256, "bundle_error": nil, "bundle_built_at": domain.Now(), "updated_at": domain.Now()}
	var event domain.Payload = AuthorityRequestBundleReady{ID: id, SizeBytes: int(size)}
	if failure != nil {
		set = map[string]any{"bundle_status": BundleFailed, "bundle_error": failure.Error(), "updated_at": domain.Now()}
		event = AuthorityRequestBundleFailed{ID: id}
	}
	request := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&AuthorityRequest{}).Where("id = ?", id)
	res := request.Session(&gorm.Session{}).Where("bundle_status = ?", BundleBuilding).Updates(set)
	if res.Error != nil || res.RowsAffected == 0 {
		// A bundle already finished (a retried activity) stays as it is.
		return res.Error
	}
	if failure == nil {
		var items int64
		if err := request.Session(&gorm.Session{}).Pluck("jsonb_array_length(items)", &items).Error; err != nil {
			return err
		}
		if err := BundleStages.End(w.Context(), w.Tx(), &AuthorityRequest{}, w.Organization(), id, StageCollecting, items); err != nil {
			return err
		}
	}
	w.Touch("authority_request", id)
	return domain.Emit(w, event)
}

// AuthorityBundleItem is what a bundle files about one item: its
// technical documentation as the organization's records hold it.
type AuthorityBundleItem struct {
	Item catalog.CatalogItem
	// Documents are the approved, clean versions of the documents about
	// the item or linked to it by traceability.
	Documents []BundleDocument
	// Entries are the current (active) entries of every register but
	// eu-declarations, accepted on review or of a register without one.
	Entries []registers.RegisterEntry
	// Assessment is the latest published assessment, if any, and whether
	// what it read has changed since.
	Assessment      *assessments.Assessment
	AssessmentStale bool
	// Declarations are the current eu-declarations entries, accepted or
	// awaiting review: the declaration is filed even before its review.
	Declarations []registers.RegisterEntry
}

// BundleDocument is a document version with what a reader needs of its
// document.
type BundleDocument struct {
	documents.DocumentVersion
	DocumentTitle string `gorm:"->"`
	DocumentType  string `gorm:"->"`
}

// EUDeclarationsRegister is the register of EU declarations of
// conformity (Art. 39, Annex VIII).
const EUDeclarationsRegister = "eu-declarations"

// AuthorityBundleContents reads what the bundle files about the
// organization's item.
func AuthorityBundleContents(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (*AuthorityBundleItem, error) {
	item, err := domain.Find[catalog.CatalogItem](ctx, db, org, itemID)
	if err != nil {
		return nil, err
	}
	out := &AuthorityBundleItem{Item: *item}
	err = db.WithContext(ctx).Raw(`SELECT v.*, d.title AS document_title, d.document_type
		FROM document_versions v JOIN documents d ON d.id = v.document_id
		WHERE v.organization_id = @org AND v.review_status = @approved AND v.processing_status = @clean
			AND (d.catalog_item_id = @item OR v.id IN (SELECT l.document_version_id FROM traceability_links l
				WHERE l.organization_id = @org AND l.catalog_item_id = @item))
		ORDER BY v.id`, map[string]any{"org": org, "item": itemID, "approved": documents.ReviewApproved, "clean": documents.ProcessingReviewRequired}).
		Scan(&out.Documents).Error
	if err != nil {
		return nil, err
	}
	entries := func() *gorm.DB {
		return domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND status = ?", itemID, registers.EntryActive).Order("register, id")
	}
	if err := entries().Where("register <> ? AND review_status IN ?", EUDeclarationsRegister, []string{registers.EntryAccepted, registers.EntryNotReviewable}).
		Find(&out.Entries).Error; err != nil {
		return nil, err
	}
	if err := entries().Where("register = ? AND review_status IN ?", EUDeclarationsRegister, []string{registers.EntryAccepted, registers.EntryUnreviewed}).
		Find(&out.Declarations).Error; err != nil {
		return nil, err
	}
	out.Assessment, out.AssessmentStale, err = assessments.LatestPublishedAssessment(ctx, db, org, itemID)
	return out, err
}

// AuthorityRequestCreated announces a new request and its due date.
type AuthorityRequestCreated struct {
	ID    uuid.UUID `json:"id"`
	DueOn string    `json:"due_on"`
}

// AuthorityRequestBundleReady announces a bundle ready for download.
type AuthorityRequestBundleReady struct {
	ID        uuid.UUID `json:"id"`
	SizeBytes int       `json:"size_bytes"`
}

// AuthorityRequestBundleFailed announces a bundle that could not be
// built; the request's bundle error says why.
type AuthorityRequestBundleFailed domain.RecordCreated

// AuthorityRequestAnswered announces the day a request was answered.
type AuthorityRequestAnswered struct {
	ID         uuid.UUID `json:"id"`
	AnsweredOn string    `json:"answered_on"`
}

func (AuthorityRequestCreated) EventType() string { return "authority_request.created" }

func (AuthorityRequestBundleReady) EventType() string { return "authority_request.bundle_ready" }

func (AuthorityRequestBundleFailed) EventType() string { return "authority_request.bundle_failed" }

func (AuthorityRequestAnswered) EventType() string { return "authority_request.answered" }
