package suppliers

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/datatypes"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/work"
)

// A supplier answers a request by replying to its e-mail. The mail server
// hands the message over (inbound.Receiver), which stores it and records a
// reply; a workflow then files every attachment as a document version of
// the request, through the same processing as an upload.

// DocumentTypeOther is the type of a file whose line asks for no
// document type, or that answers no line.
const DocumentTypeOther = "other"

// Reply statuses.
const (
	ReplyReceived = "received"
	ReplyFiled    = "filed"
	ReplyFailed   = "failed"
)

// Why a reply's files are held for triage instead of being attached to a
// line.
const (
	FlagUnknownSender = "unknown_sender"
	FlagRequestClosed = "request_closed"
)

// ReplyFlags are every flag.
var ReplyFlags = []string{FlagUnknownSender, FlagRequestClosed}

// SupplierReply is an e-mail received at a request's reply address.
type SupplierReply struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	RequestID       uuid.UUID `gorm:"type:uuid"`
	EnvelopeFrom    string
	Sender          *string
	Subject         *string
	MessageID       *string
	ObjectKey       string
	SizeBytes       int64
	Flag            *string
	Status          string
	AttachmentCount *int
	Skipped         datatypes.JSONSlice[SkippedAttachment] `gorm:"type:jsonb"`
	Error           *string
	ReceivedAt      time.Time
	FiledAt         *time.Time
}

// TableName maps the model onto its table.
func (SupplierReply) TableName() string { return "supplier_request_replies" }

// SkippedAttachment is an attachment that was not filed, and why (a
// message key).
type SkippedAttachment struct {
	FileName string `json:"file_name"`
	Reason   string `json:"reason"`
}

// Reasons an attachment is skipped.
const (
	SkipTooLarge = "too_large"
	SkipEmpty    = "empty"
)

// RequestByReplyToken finds the request whose reply address carries
// token, in any organization: the token alone names it.
func RequestByReplyToken(ctx context.Context, db *gorm.DB, token string) (*SupplierRequest, error) {
	return domain.Take[SupplierRequest](db.WithContext(ctx).Where("reply_token = ?", token))
}

// IncomingReply is a reply as the mail server handed it over.
type IncomingReply struct {
	EnvelopeFrom string
	// Sender is the From header's address, Subject and MessageID the
	// headers of the same names; each empty when the message has none.
	Sender, Subject, MessageID string
	ObjectKey                  string
	Size                       int64
	ReceivedAt                 time.Time
}

// ReplyInput names a reply received for a request.
type ReplyInput struct {
	domain.Org
	ReplyID   uuid.UUID `json:"reply_id"`
	RequestID uuid.UUID `json:"request_id"`
}

// ReplyWorkflow files a reply received by e-mail. Its id is under the
// request's so that an operator finds every run of a request by its
// prefix.
var ReplyWorkflow = domain.Workflow[ReplyInput]{
	Type: "SupplierReply",
	ID: func(in ReplyInput) string {
		return "supplier-request/" + in.RequestID.String() + "/reply/" + in.ReplyID.String()
	},
	Resource: func(in ReplyInput) uuid.UUID { return in.RequestID },
}

// RecordReply records a reply to the unit's organization's request. A
// reply to a request that is no longer open, or from an address that is
// not one of its recipients, is flagged: its files will be held for
// triage. It answers nil when the same message was recorded before: mail
// servers deliver again when they miss an acknowledgement. A reply
// recorded is filed by its workflow, whose start is recorded with it.
func RecordReply(w *work.Unit, requestID uuid.UUID, in IncomingReply) (*SupplierReply, error) {
	r, err := domain.LockFor[SupplierRequest](w.Context(), w.Tx(), w.Organization(), requestID, "SHARE")
	if err != nil {
		return nil, err
	}
	reply := &SupplierReply{ID: domain.NewID(), OrganizationID: r.OrganizationID, RequestID: r.ID, EnvelopeFrom: in.EnvelopeFrom,
		Sender: documents.NilIfEmpty(strings.ToLower(in.Sender)), Subject: documents.NilIfEmpty(in.Subject), MessageID: documents.NilIfEmpty(in.MessageID),
		ObjectKey: in.ObjectKey, SizeBytes: in.Size, Status: ReplyReceived, Skipped: []SkippedAttachment{},
		ReceivedAt: in.ReceivedAt.UTC().Truncate(time.Microsecond)}
	switch {
	case RequestClosed(r.Status):
		reply.Flag = ptr(FlagRequestClosed)
	case !isRecipient(r, in.Sender):
		reply.Flag = ptr(FlagUnknownSender)
	}
	res := w.Tx().Clauses(clause.OnConflict{DoNothing: true}).Create(reply)
	if res.Error != nil || res.RowsAffected == 0 {
		return nil, res.Error
	}
	w.Touch("supplier_request_reply", reply.ID)
	return reply, domain.Start(w, ReplyWorkflow, ReplyInput{Org: domain.OrgOf(r.OrganizationID), ReplyID: reply.ID, RequestID: r.ID},
		r.summary(fmt.Sprintf("file the reply from %s, %s bytes", reply.EnvelopeFrom, domain.Count(reply.SizeBytes))))
}

func isRecipient(r *SupplierRequest, address string) bool {
	for _, to := range r.Recipients {
		if strings.EqualFold(to, address) {
			return true
		}
	}
	return false
}

func ptr[T any](v T) *T { return &v }

// ReplyLine is a line as a reply can name it: by its item's code.
type ReplyLine struct {
	ID           uuid.UUID
	ItemCode     string
	DocumentType *string
	CatalogItem  uuid.UUID
}

// ReplyLines are the lines of a request, for matching a reply's files.
func ReplyLines(ctx context.Context, db *gorm.DB, requestID uuid.UUID) ([]ReplyLine, error) {
	var out []ReplyLine
	err := db.WithContext(ctx).Raw(`SELECT l.id, i.internal_code AS item_code, l.document_type, l.catalog_item_id AS catalog_item
		FROM supplier_request_lines l JOIN catalog_items i ON i.id = l.catalog_item_id WHERE l.request_id = ? ORDER BY l.number`, requestID).
		Scan(&out).Error
	return out, err
}

// MatchLine tells which line a file answers: the only line of the
// request, else the one line whose item code the file name, or failing
// that the subject, contains as a word. Anything less certain answers
// nil, and the file waits for a person at the request.
func MatchLine(lines []ReplyLine, fileName, subject string) *ReplyLine {
	if len(lines) == 1 {
		return &lines[0]
	}
	for _, text := range []string{fileName, subject} {
		var found []*ReplyLine
		for i := range lines {
			if containsCode(text, lines[i].ItemCode) {
				found = append(found, &lines[i])
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0]
		default:
			// Two lines of the same item, or codes inside one another's
			// words: the text cannot tell them apart.
			return nil
		}
	}
	return nil
}

// containsCode reports whether code appears in text between characters
// that cannot be part of a code, ignoring case: "BOX-12" is in
// "Declaration_box-12.pdf" but not in "BOX-123.pdf".
func containsCode(text, code string) bool {
	if code == "" {
		return false
	}
	pattern := `(?i)(^|[^\pL\pN])` + regexp.QuoteMeta(code) + `($|[^\pL\pN])`
	return regexp.MustCompile(pattern).MatchString(text)
}

// ReplyFile is an attachment of a reply, stored under its version's key.
type ReplyFile struct {
	DocumentID, VersionID uuid.UUID
	File                  documents.StoredFile
	Line                  *ReplyLine
}

// FileReply files a received reply's attachments, each as a new document
// (of the line's document type, about the line's item, from the
// request's party) attached to the request, and to its line unless the
// reply is flagged; the reply becomes filed, with its event. It answers
// the new versions; a reply filed before answers its versions again and
// changes nothing, so a retried activity is harmless.
func FileReply(w *work.Unit, replyID uuid.UUID, files []ReplyFile, skipped []SkippedAttachment) ([]uuid.UUID, error) {
	reply, err := domain.LockFor[SupplierReply](w.Context(), w.Tx(), w.Organization(), replyID, "UPDATE")
	if err != nil {
		return nil, err
	}
	if reply.Status != ReplyReceived {
		return ReplyVersions(w.Context(), w.Tx(), reply.ID)
	}
	r, err := domain.LockFor[SupplierRequest](w.Context(), w.Tx(), w.Organization(), reply.RequestID, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	versions := make([]uuid.UUID, 0, len(files))
	for _, f := range files {
		v, err := fileAttachment(w, r, reply, f)
		if err != nil {
			return nil, err
		}
		versions = append(versions, v.ID)
	}
	at := domain.Now()
	count := len(files)
	reply.Status, reply.FiledAt, reply.AttachmentCount, reply.Skipped = ReplyFiled, &at, &count, skipped
	if err := w.Tx().Model(reply).Select("status", "filed_at", "attachment_count", "skipped").Updates(reply).Error; err != nil {
		return nil, err
	}
	w.Touch("supplier_request_reply", reply.ID)
	return versions, domain.Emit(w, SupplierRequestReplyReceived{ID: reply.ID, Request: r.ID, Documents: len(versions), Flag: reply.Flag})
}

func fileAttachment(w *work.Unit, r *SupplierRequest, reply *SupplierReply, f ReplyFile) (*documents.DocumentVersion, error) {
	doc := &documents.Document{ID: f.DocumentID, OrganizationID: r.OrganizationID, DocumentType: DocumentTypeOther, Title: truncateRunes(f.File.FileName, documents.DocumentTitleMax),
		PartyID: &r.PartyID, VersionCount: 1, Revision: 1, CreatedAt: domain.Now()}
	doc.UpdatedAt = doc.CreatedAt
	line := f.Line
	if reply.Flag != nil {
		line = nil
	}
	if line != nil {
		doc.CatalogItemID = &line.CatalogItem
		if line.DocumentType != nil {
			doc.DocumentType = *line.DocumentType
		}
	}
	if err := w.Tx().Create(doc).Error; err != nil {
		return nil, err
	}
	v, err := documents.AddVersion(w, doc, f.VersionID, f.File)
	if err != nil {
		return nil, err
	}
	answer := &requestAnswer{request: r}
	if line != nil {
		answer.line = &SupplierRequestLine{ID: line.ID}
	}
	return v, attachAnswer(w, answer, v.ID, answerSource{kind: SourceEmail, sender: reply.Sender, reply: &reply.ID, flag: reply.Flag})
}

// RequestReplies are the organization's request's replies, oldest
// first, and every file attached to it.
func RequestReplies(ctx context.Context, db *gorm.DB, org, requestID uuid.UUID) ([]SupplierReply, []SupplierRequestDocument, error) {
	var replies []SupplierReply
	if err := domain.Tenant(ctx, db, org).Where("request_id = ?", requestID).Order("received_at, id").Find(&replies).Error; err != nil {
		return nil, nil, err
	}
	var files []SupplierRequestDocument
	err := domain.Tenant(ctx, db, org).Where("request_id = ?", requestID).Order("created_at, document_version_id").Find(&files).Error
	return replies, files, err
}

// ReplyVersions are the document versions filed from a reply.
func ReplyVersions(ctx context.Context, db *gorm.DB, replyID uuid.UUID) ([]uuid.UUID, error) {
	var out []uuid.UUID
	err := db.WithContext(ctx).Model(&SupplierRequestDocument{}).Where("reply_id = ?", replyID).Order("created_at, document_version_id").
		Pluck("document_version_id", &out).Error
	return out, err
}

// FailReply records that a reply could not be read; the message stays in
// the object store for a person to look at.
func FailReply(w *work.Unit, replyID uuid.UUID, reason string) error {
	w.Touch("supplier_request_reply", replyID)
	return w.Tx().Model(&SupplierReply{}).Where("id = ? AND organization_id = ? AND status = ?", replyID, w.Organization(), ReplyReceived).
		Updates(map[string]any{"status": ReplyFailed, "error": reason}).Error
}

// truncateRunes cuts s to at most max characters.
func truncateRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max])
}
