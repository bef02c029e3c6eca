package suppliers

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// A supplier request asks a supplier, by e-mail, for documents and values
// about catalogue items, one line per item. Creating one sends nothing:
// it is a draft until sent. The supplier answers by e-mail with files,
// which land on the request's lines as documents for review.

// Request statuses.
const (
	RequestDraft     = "draft"
	RequestSent      = "sent"
	RequestCompleted = "completed"
	RequestCancelled = "cancelled"
)

// RequestStatuses are every status of a request.
var RequestStatuses = []string{RequestDraft, RequestSent, RequestCompleted, RequestCancelled}

// RequestClosed tells the statuses of a request that waits for nothing
// more: cancelled or completed.
func RequestClosed(status string) bool {
	return status == RequestCancelled || status == RequestCompleted
}

// Delivery statuses of a request's e-mail.
const (
	MailNotSent = "not_sent"
	MailSending = "sending"
	MailSent    = "sent"
	MailFailed  = "failed"
)

// DeliveryStatuses are every delivery status.
var DeliveryStatuses = []string{MailNotSent, MailSending, MailSent, MailFailed}

// Line statuses.
const (
	LineOpen     = "open"
	LineAnswered = "answered"
	LineAccepted = "accepted"
	LineRejected = "rejected"
)

// LineStatuses are every status of a line.
var LineStatuses = []string{LineOpen, LineAnswered, LineAccepted, LineRejected}

// Limits of a request.
const (
	RecipientsMax     = 10
	RequestMessageMax = 5000
	RequestLinesMax   = 100
	LineNoteMax       = 1000
)

// SupplierRequest is a request to a supplier.
type SupplierRequest struct {
	ID             uuid.UUID      `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID      `gorm:"type:uuid"`
	PartyID        uuid.UUID      `gorm:"type:uuid"`
	Recipients     pq.StringArray `gorm:"type:text[]"`
	Language       string
	DueOn          time.Time `gorm:"type:date"`
	Message        string
	Status         string
	DeliveryStatus string
	DeliveryError  *string
	MessageID      *string
	ReplyToken     string
	LineCount      int
	SendCount      int
	CreatedBy      *uuid.UUID `gorm:"type:uuid"`
	SentAt         *time.Time
	CompletedAt    *time.Time
	CancelledAt    *time.Time
	Revision       int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// SupplierRequestLine asks for one item's document and/or values.
type SupplierRequestLine struct {
	ID               uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID   uuid.UUID `gorm:"type:uuid"`
	RequestID        uuid.UUID `gorm:"type:uuid"`
	Number           int
	CatalogItemID    uuid.UUID  `gorm:"type:uuid"`
	ComponentID      *uuid.UUID `gorm:"type:uuid"`
	DocumentType     *string
	MeasurementCodes pq.StringArray `gorm:"type:text[]"`
	Note             *string
	Status           string
	ReviewReason     *string
	ReviewedBy       *uuid.UUID `gorm:"type:uuid"`
	ReviewedAt       *time.Time
}

// SupplierRequestDocument is a file that answers a request.
type SupplierRequestDocument struct {
	RequestID         uuid.UUID  `gorm:"type:uuid;primaryKey"`
	DocumentVersionID uuid.UUID  `gorm:"type:uuid;primaryKey"`
	OrganizationID    uuid.UUID  `gorm:"type:uuid"`
	LineID            *uuid.UUID `gorm:"type:uuid"`
	Source            string
	Sender            *string
	Flagged           bool
	ReplyID           *uuid.UUID `gorm:"type:uuid"`
	Flag              *string
	CreatedAt         time.Time
}

// Rules of supplier requests.
var (
	ErrPartyNotSupplier = &domain.RuleError{Code: "party_not_supplier", Key: "error.party_not_supplier"}
	ErrRequestClosed    = &domain.RuleError{Code: "supplier_request_closed", Key: "error.supplier_request_closed"}
)

// SupplierRequestCreate is the body of a new request.
type SupplierRequestCreate struct {
	input.Errors
	Party      input.Opt[uuid.UUID]
	Recipients input.Opt[[]string]
	Language   input.Opt[string]
	DueOn      input.Opt[time.Time]
	Message    input.Opt[string]
	Lines      []*RequestLineInput
}

// RequestLineInput is one line of a new request.
type RequestLineInput struct {
	index            int
	Item             input.Opt[uuid.UUID]
	Component        input.Opt[uuid.UUID]
	DocumentType     input.Opt[string]
	MeasurementCodes input.Opt[[]string]
	Note             input.Opt[string]
}

func (l *RequestLineInput) field(name string) string {
	return "lines." + strconv.Itoa(l.index) + "." + name
}

// Declare names the request's fields. Recipients default to the party's
// e-mail address.
func (in *SupplierRequestCreate) Declare(f *input.Fields) {
	f.Ref("party", &in.Party, input.Ref{Required: true})
	f.List("recipients", &in.Recipients, input.List{Known: isEmail, UnknownKey: "field.email"})
	f.Enum("language", &in.Language, input.Enum{Required: true, Values: []string{"pl", "en"}})
	f.Date("due_on", &in.DueOn, input.Date{Required: true})
	f.Text("message", &in.Message, input.Text{Max: RequestMessageMax})
	f.Items("lines", input.Items{Required: true, MinItems: 1, MaxItems: RequestLinesMax}, func(i int, v *input.Fields) {
		l := &RequestLineInput{index: i}
		v.Ref("item", &l.Item, input.Ref{Required: true})
		v.Ref("component", &l.Component, input.Ref{})
		v.Code("document_type", &l.DocumentType, input.Code{Known: dictionaries.Default().HasDocumentType})
		v.List("measurement_codes", &l.MeasurementCodes, input.List{Values: documents.EvidenceCodeNames()})
		v.Text("note", &l.Note, input.Text{Max: LineNoteMax})
		if v.Binding() && !l.DocumentType.Set() && (!l.MeasurementCodes.Set() || len(l.MeasurementCodes.Value) == 0) &&
			!in.Has(l.field("document_type")) && !in.Has(l.field("measurement_codes")) {
			v.Fail("document_type", "field.line_asks_nothing")
		}
		in.Lines = append(in.Lines, l)
	})
	if !f.Binding() {
		return
	}
	if len(in.Recipients.Value) > RecipientsMax {
		f.Fail("recipients", "field.too_many", RecipientsMax)
	}
	if in.DueOn.Set() && in.DueOn.Value.Before(domain.Today()) {
		f.Fail("due_on", "field.not_before_today")
	}
}

func isEmail(s string) bool {
	addr, err := mail.ParseAddress(s)
	return err == nil && addr.Address == s && addr.Name == ""
}

// CreateSupplierRequest records a draft request with its lines; nothing
// is sent.
func CreateSupplierRequest(w *work.Unit, in *SupplierRequestCreate) (*SupplierRequest, []SupplierRequestLine, error) {
	var refs domain.References
	refs.Add("parties", "party", in.Party, &in.Errors)
	for _, l := range in.Lines {
		refs.Add("catalog_items", l.field("item"), l.Item, &in.Errors)
	}
	if err := refs.Check(w); err != nil {
		return nil, nil, err
	}
	var party *catalog.Party
	if in.Party.Set() && !in.Has("party") {
		var err error
		if party, err = domain.Find[catalog.Party](w.Context(), w.Tx(), w.Organization(), in.Party.Value); err != nil {
			return nil, nil, err
		}
	}
	recipients := in.Recipients.Value
	if party != nil && len(recipients) == 0 && !in.Has("recipients") {
		if party.Email == "" {
			in.Fail("recipients", "field.recipients_required")
		}
		recipients = []string{party.Email}
	}
	if err := checkLineComponents(w, in); err != nil {
		return nil, nil, err
	}
	if in.Failed() {
		return nil, nil, in.Err()
	}
	if !slices.Contains(party.Roles, "supplier") {
		return nil, nil, ErrPartyNotSupplier.On("party", "field.party_roles", strings.Join(party.Roles, ", "))
	}
	r := &SupplierRequest{
		ID: domain.NewID(), OrganizationID: w.Organization(), PartyID: party.ID, Recipients: recipients, Language: in.Language.Value,
		DueOn: in.DueOn.Value, Message: in.Message.Value, Status: RequestDraft, DeliveryStatus: MailNotSent,
		ReplyToken: replyToken(), LineCount: len(in.Lines), CreatedBy: w.Actor().UserID, Revision: 1, CreatedAt: domain.Now(),
	}
	r.UpdatedAt = r.CreatedAt
	lines := make([]SupplierRequestLine, len(in.Lines))
	for i, l := range in.Lines {
		lines[i] = SupplierRequestLine{ID: domain.NewID(), OrganizationID: r.OrganizationID, RequestID: r.ID, Number: i + 1,
			CatalogItemID: l.Item.Value, ComponentID: documents.OptionalID(l.Component), DocumentType: domain.Optional(l.DocumentType),
			MeasurementCodes: pq.StringArray(orEmpty(l.MeasurementCodes.Value)), Note: domain.Optional(l.Note), Status: LineOpen}
	}
	if err := w.Tx().Create(r).Error; err != nil {
		return nil, nil, err
	}
	if err := w.Tx().Create(&lines).Error; err != nil {
		return nil, nil, err
	}
	w.Touch("supplier_request", r.ID)
	return r, lines, domain.Emit(w, SupplierRequestCreated{ID: r.ID})
}

// checkLineComponents refuses a line's component that is not a component
// of the line's item.
func checkLineComponents(w *work.Unit, in *SupplierRequestCreate) error {
	for _, l := range in.Lines {
		if !l.Component.Set() || in.Has(l.field("component")) || in.Has(l.field("item")) {
			continue
		}
		var n int64
		if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&catalog.Component{}).
			Where("id = ? AND catalog_item_id = ?", l.Component.Value, l.Item.Value).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			in.Fail(l.field("component"), "field.component_of_line_item")
		}
	}
	return nil
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// replyToken is the random part of a request's Reply-To address: it
// cannot be guessed from the request's id.
func replyToken() string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))
}

// lockRequest locks the organization's request for a change made at the
// revision the client read: a missing request is a 404 whatever the body,
// then the body's errors are answered, then a stale revision.
func lockRequest(w *work.Unit, id uuid.UUID, revision int, in interface {
	Failed() bool
	Err() error
}) (*SupplierRequest, error) {
	r, err := domain.LockFor[SupplierRequest](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	switch {
	case err != nil:
		return nil, err
	case in.Failed():
		return nil, in.Err()
	case r.Revision != revision:
		return nil, domain.ErrRevisionConflict
	}
	return r, nil
}

// CancelSupplierRequest cancels an open request; its lines and files stay.
// Its first send's wait for the due date is stopped. The items of its
// answered lines have their assessments refreshed: an answer not
// accepted by now never will be.
func CancelSupplierRequest(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*SupplierRequest, error) {
	r, err := lockRequest(w, id, in.Revision.Value, in)
	if err != nil {
		return nil, err
	}
	if r.Status != RequestDraft && r.Status != RequestSent {
		return nil, ErrRequestClosed.On("revision", "field.request_status", r.Status)
	}
	at := domain.Now()
	r.Status, r.CancelledAt, r.UpdatedAt = RequestCancelled, &at, at
	r.Revision++
	if err := w.Tx().Model(r).Select("status", "cancelled_at", "updated_at", "revision").Updates(r).Error; err != nil {
		return nil, err
	}
	var answered []uuid.UUID
	if err := w.Tx().Model(&SupplierRequestLine{}).Where("request_id = ? AND status = ?", r.ID, LineAnswered).
		Distinct().Pluck("catalog_item_id", &answered).Error; err != nil {
		return nil, err
	}
	if err := catalog.RefreshAssessments(w, answered...); err != nil {
		return nil, err
	}
	w.Touch("supplier_request", r.ID)
	if err := domain.Emit(w, SupplierRequestCancelled{ID: r.ID, Status: r.Status}); err != nil {
		return nil, err
	}
	return r, stopOverdueTimer(w, r)
}

// LineAnswer is what answers a line: document versions attached to it and
// the evidence proposals made from them.
type LineAnswer struct {
	Documents []uuid.UUID
	Proposals []uuid.UUID
}

// LineAnswers maps each line of the organization's request to its
// answer, in two queries for all its lines.
func LineAnswers(ctx context.Context, db *gorm.DB, org, requestID uuid.UUID) (map[uuid.UUID]LineAnswer, error) {
	var docs []SupplierRequestDocument
	if err := domain.Tenant(ctx, db, org).Where("request_id = ? AND line_id IS NOT NULL", requestID).Order("created_at").Find(&docs).Error; err != nil {
		return nil, err
	}
	out := map[uuid.UUID]LineAnswer{}
	lineOf := map[uuid.UUID]uuid.UUID{}
	versions := make([]uuid.UUID, len(docs))
	for i, d := range docs {
		a := out[*d.LineID]
		a.Documents = append(a.Documents, d.DocumentVersionID)
		out[*d.LineID], lineOf[d.DocumentVersionID], versions[i] = a, *d.LineID, d.DocumentVersionID
	}
	if len(versions) == 0 {
		return out, nil
	}
	var proposals []documents.EvidenceProposal
	if err := domain.Tenant(ctx, db, org).Select("id", "document_version_id").Where("document_version_id IN ?", versions).
		Order("id").Find(&proposals).Error; err != nil {
		return nil, err
	}
	for _, p := range proposals {
		line := lineOf[p.DocumentVersionID]
		a := out[line]
		a.Proposals = append(a.Proposals, p.ID)
		out[line] = a
	}
	return out, nil
}

// Sources of a request's files.
const (
	SourceEmail = "email"
	SourceAPI   = "api"
)

// UploadDocument records an uploaded document like CreateDocument and,
// when its metadata names a supplier request (and line), files its
// version as the request's answer in the same unit of work.
func UploadDocument(w *work.Unit, doc *documents.Document, versionID uuid.UUID, in *documents.DocumentUpload, file documents.StoredFile) (*documents.DocumentVersion, error) {
	answer, err := answeredLine(w, in)
	if err != nil {
		return nil, err
	}
	v, err := documents.CreateDocument(w, doc, versionID, in, file)
	if err != nil || answer == nil {
		return v, err
	}
	return v, attachAnswer(w, answer, v.ID, answerSource{kind: SourceAPI})
}

// requestAnswer is the request, and maybe the line, a file answers.
type requestAnswer struct {
	request *SupplierRequest
	line    *SupplierRequestLine
}

// answeredLine reads the open request (and line of it) an upload names.
// A line's document is about the line's item: it defaults to it, and
// another item is refused.
func answeredLine(w *work.Unit, in *documents.DocumentUpload) (*requestAnswer, error) {
	if !in.SupplierRequest.Set() || in.Has("supplier_request") {
		return nil, nil
	}
	r, err := domain.LockFor[SupplierRequest](w.Context(), w.Tx(), w.Organization(), in.SupplierRequest.Value, "NO KEY UPDATE")
	if errors.Is(err, domain.ErrNotFound) {
		in.Fail("supplier_request", "field.not_found")
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.Status != RequestDraft && r.Status != RequestSent {
		in.Fail("supplier_request", "field.request_status", r.Status)
	}
	answer := &requestAnswer{request: r}
	if !in.SupplierRequestLine.Set() {
		return answer, nil
	}
	var lines []SupplierRequestLine
	if err := w.Tx().Where("id = ? AND request_id = ?", in.SupplierRequestLine.Value, r.ID).Limit(1).Find(&lines).Error; err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		in.Fail("supplier_request_line", "field.line_of_request")
		return nil, nil
	}
	answer.line = &lines[0]
	switch {
	case !in.CatalogItem.Set():
		in.CatalogItem = input.Of(answer.line.CatalogItemID)
	case in.CatalogItem.Value != answer.line.CatalogItemID:
		in.Fail("catalog_item", "field.line_item")
	}
	return answer, nil
}

// answerSource is where a file answering a request came from: the API,
// or an e-mail reply with its sender and flag.
type answerSource struct {
	kind   string
	sender *string
	reply  *uuid.UUID
	flag   *string
}

// attachAnswer files a version as an answer to the request (and line);
// an open line becomes answered, which refreshes its item's assessments.
func attachAnswer(w *work.Unit, a *requestAnswer, versionID uuid.UUID, src answerSource) error {
	doc := SupplierRequestDocument{RequestID: a.request.ID, DocumentVersionID: versionID, OrganizationID: a.request.OrganizationID,
		Source: src.kind, Sender: src.sender, ReplyID: src.reply, Flag: src.flag, Flagged: src.flag != nil, CreatedAt: domain.Now()}
	if a.line != nil {
		doc.LineID = &a.line.ID
	}
	if err := w.Tx().Create(&doc).Error; err != nil || a.line == nil {
		return err
	}
	res := w.Tx().Model(&SupplierRequestLine{}).Where("id = ? AND status = ?", a.line.ID, LineOpen).Update("status", LineAnswered)
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	return catalog.RefreshAssessments(w, a.line.CatalogItemID)
}

// Line review decisions.
var LineDecisions = []string{LineAccepted, LineRejected}

// Rules of line review.
var (
	ErrLineDecided      = &domain.RuleError{Code: "line_decided", Key: "error.line_decided"}
	ErrLineNotEvidenced = &domain.RuleError{Code: "line_not_evidenced", Key: "error.line_not_evidenced"}
)

// LineReview is the decision on a line; `revision` is the request's.
type LineReview struct {
	input.Errors
	Decision input.Opt[string]
	Reason   input.Opt[string]
	Revision input.Opt[int]
}

// Declare names the review's fields; a rejection says why.
func (in *LineReview) Declare(f *input.Fields) {
	f.Enum("decision", &in.Decision, input.Enum{Required: true, Values: LineDecisions})
	f.Text("reason", &in.Reason, input.Text{Max: documents.DocumentReasonMax})
	f.Int("revision", &in.Revision, input.Revision(true))
	f.RequiredWhen("reason", input.Is("decision", LineRejected))
}

// ReviewLine decides a line of an open request that is not accepted yet:
// a rejected line is reviewed again once the supplier sends a new file.
// An acceptance needs what the line asks for: an approved document (of the
// type asked) attached to the line, and accepted evidence of each code
// from the line's documents. A rejection opens a compliance issue; either
// decision refreshes the line's item's assessments. The request is
// completed once every line is accepted.
func ReviewLine(w *work.Unit, requestID, lineID uuid.UUID, in *LineReview) (*SupplierRequest, *SupplierRequestLine, error) {
	r, err := lockRequest(w, requestID, in.Revision.Value, in)
	if err != nil {
		return nil, nil, err
	}
	l, err := domain.Take[SupplierRequestLine](w.Tx().Clauses(clause.Locking{Strength: "UPDATE"}).Where("id = ? AND request_id = ?", lineID, r.ID))
	if err != nil {
		return nil, nil, err
	}
	switch {
	case r.Status != RequestDraft && r.Status != RequestSent:
		return nil, nil, ErrRequestClosed.On("revision", "field.request_status", r.Status)
	case l.Status == LineAccepted:
		return nil, nil, ErrLineDecided.On("decision", "field.line_status", l.Status)
	}
	if in.Decision.Value == LineAccepted {
		missing, err := lineEvidence(w, l)
		if err != nil {
			return nil, nil, err
		}
		if missing != nil {
			return nil, nil, missing
		}
	}
	at := domain.Now()
	l.Status, l.ReviewReason, l.ReviewedBy, l.ReviewedAt = in.Decision.Value, domain.Optional(in.Reason), w.Actor().UserID, &at
	if err := w.Tx().Model(l).Select("status", "review_reason", "reviewed_by", "reviewed_at").Updates(l).Error; err != nil {
		return nil, nil, err
	}
	if err := lineIssue(w, l); err != nil {
		return nil, nil, err
	}
	if err := catalog.RefreshAssessments(w, l.CatalogItemID); err != nil {
		return nil, nil, err
	}
	r.Revision++
	r.UpdatedAt = at
	var open int64
	if err := w.Tx().Model(&SupplierRequestLine{}).Where("request_id = ? AND status <> ?", r.ID, LineAccepted).Count(&open).Error; err != nil {
		return nil, nil, err
	}
	if open == 0 {
		r.Status, r.CompletedAt = RequestCompleted, &at
		if err := domain.ResolveIssues(w, domain.IssueSupplierRequestOverdue, r.ID, "issue.resolved_request_closed"); err != nil {
			return nil, nil, err
		}
		if err := stopOverdueTimer(w, r); err != nil {
			return nil, nil, err
		}
	}
	if err := w.Tx().Model(r).Select("status", "completed_at", "revision", "updated_at").Updates(r).Error; err != nil {
		return nil, nil, err
	}
	w.Touch("supplier_request_line", l.ID)
	return r, l, domain.Emit(w, SupplierRequestLineReviewed{ID: l.ID, Status: l.Status})
}

// lineIssue opens the issue of a rejected line, or resolves it when the
// line is accepted.
func lineIssue(w *work.Unit, l *SupplierRequestLine) error {
	if l.Status == LineAccepted {
		return domain.ResolveIssues(w, domain.IssueSupplierLineRejected, l.ID, "issue.resolved_line_accepted")
	}
	_, err := domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueSupplierLineRejected, Severity: domain.SeverityMedium,
		SubjectType: "supplier_request_line", SubjectID: l.ID, CatalogItemID: &l.CatalogItemID,
		MessageKey: "issue.supplier_line_rejected", MessageArgs: []any{strconv.Itoa(l.Number), *l.ReviewReason}})
	return err
}

// lineEvidence is what a line still lacks for its acceptance, named by
// the field that asked for it; nil when nothing.
func lineEvidence(w *work.Unit, l *SupplierRequestLine) (*domain.RuleError, error) {
	attached := w.Tx().Model(&SupplierRequestDocument{}).Select("document_version_id").Where("line_id = ?", l.ID)
	missing := map[string]string{}
	if l.DocumentType != nil {
		var n int64
		err := w.Tx().Model(&documents.DocumentVersion{}).Where("id IN (?) AND review_status = ?", attached, documents.ReviewApproved).
			Where("document_id IN (?)", w.Tx().Model(&documents.Document{}).Select("id").Where("document_type = ?", *l.DocumentType)).
			Count(&n).Error
		if err != nil {
			return nil, err
		}
		if n == 0 {
			missing["document_type"] = "field.line_document_missing"
		}
	}
	for _, code := range l.MeasurementCodes {
		q := w.Tx().Model(&documents.EvidenceProposal{}).Where("document_version_id IN (?) AND code = ? AND status IN ?", attached, code,
			[]string{documents.ProposalAccepted, documents.ProposalAcceptedModified}).Where("catalog_item_id = ?", l.CatalogItemID)
		if l.ComponentID != nil {
			q = q.Where("component_id = ?", *l.ComponentID)
		}
		var n int64
		if err := q.Count(&n).Error; err != nil {
			return nil, err
		}
		if n == 0 {
			missing["measurement_codes."+code] = "field.line_evidence_missing"
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	rule := ErrLineNotEvidenced
	for field, key := range missing {
		rule = rule.On(field, key)
	}
	return rule, nil
}
