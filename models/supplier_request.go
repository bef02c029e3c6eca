package models

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"net/mail"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"

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
	CreatedAt         time.Time
}

// Rules of supplier requests.
var (
	ErrPartyNotSupplier = &RuleError{Code: "party_not_supplier", Key: "error.party_not_supplier"}
	ErrRequestClosed    = &RuleError{Code: "supplier_request_closed", Key: "error.supplier_request_closed"}
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
		v.List("measurement_codes", &l.MeasurementCodes, input.List{Values: EvidenceCodeNames()})
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
	if in.DueOn.Set() && in.DueOn.Value.Before(today()) {
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
	var refs references
	refs.add("parties", "party", in.Party, &in.Errors)
	for _, l := range in.Lines {
		refs.add("catalog_items", l.field("item"), l.Item, &in.Errors)
	}
	if err := refs.check(w); err != nil {
		return nil, nil, err
	}
	var party *Party
	if in.Party.Set() && !in.Has("party") {
		var err error
		if party, err = Find[Party](w.Context(), w.Tx(), w.Organization(), in.Party.Value); err != nil {
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
		ID: NewID(), OrganizationID: w.Organization(), PartyID: party.ID, Recipients: recipients, Language: in.Language.Value,
		DueOn: in.DueOn.Value, Message: in.Message.Value, Status: RequestDraft, DeliveryStatus: MailNotSent,
		ReplyToken: replyToken(), LineCount: len(in.Lines), CreatedBy: w.Actor().UserID, Revision: 1, CreatedAt: now(),
	}
	r.UpdatedAt = r.CreatedAt
	lines := make([]SupplierRequestLine, len(in.Lines))
	for i, l := range in.Lines {
		lines[i] = SupplierRequestLine{ID: NewID(), OrganizationID: r.OrganizationID, RequestID: r.ID, Number: i + 1,
			CatalogItemID: l.Item.Value, ComponentID: optionalID(l.Component), DocumentType: optional(l.DocumentType),
			MeasurementCodes: pq.StringArray(orEmpty(l.MeasurementCodes.Value)), Note: optional(l.Note), Status: LineOpen}
	}
	if err := w.Tx().Create(r).Error; err != nil {
		return nil, nil, err
	}
	if err := w.Tx().Create(&lines).Error; err != nil {
		return nil, nil, err
	}
	w.Touch("supplier_request", r.ID)
	return r, lines, Emit(w, SupplierRequestCreated{ID: r.ID})
}

// checkLineComponents refuses a line's component that is not a component
// of the line's item.
func checkLineComponents(w *work.Unit, in *SupplierRequestCreate) error {
	for _, l := range in.Lines {
		if !l.Component.Set() || in.Has(l.field("component")) || in.Has(l.field("item")) {
			continue
		}
		var n int64
		if err := Tenant(w.Context(), w.Tx(), w.Organization()).Model(&Component{}).
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

// CancelSupplierRequest cancels an open request; its lines and files stay.
func CancelSupplierRequest(w *work.Unit, id uuid.UUID, in *RevisionRequired) (*SupplierRequest, error) {
	r, err := lockFor[SupplierRequest](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if r.Revision != in.Revision.Value {
		return nil, ErrRevisionConflict
	}
	if r.Status != RequestDraft && r.Status != RequestSent {
		return nil, ErrRequestClosed.On("revision", "field.request_status", r.Status)
	}
	at := now()
	r.Status, r.CancelledAt, r.UpdatedAt = RequestCancelled, &at, at
	r.Revision++
	if err := w.Tx().Model(r).Select("status", "cancelled_at", "updated_at", "revision").Updates(r).Error; err != nil {
		return nil, err
	}
	w.Touch("supplier_request", r.ID)
	return r, Emit(w, SupplierRequestCancelled{ID: r.ID, Status: r.Status})
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
	if err := Tenant(ctx, db, org).Where("request_id = ? AND line_id IS NOT NULL", requestID).Order("created_at").Find(&docs).Error; err != nil {
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
	var proposals []EvidenceProposal
	if err := Tenant(ctx, db, org).Select("id", "document_version_id").Where("document_version_id IN ?", versions).
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
