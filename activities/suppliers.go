package activities

import (
	"context"
	"errors"
	"fmt"
	"html"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/internal/intake"
	"ppwr/internal/mail"
	"ppwr/internal/mailin"
	"ppwr/internal/storage"
)

// Suppliers e-mails supplier requests, watches their due dates and files
// the replies.
type Suppliers struct {
	DB           *gorm.DB
	SMTPURL      string
	From         string
	ReplyAddress string
	// Storage keeps the received messages and the documents filed from
	// them, each bounded by DocumentMaxBytes like an upload.
	Storage          *storage.Store
	DocumentMaxBytes int64
}

// ErrorTypeSMTPPermanent marks a refusal no retry can change.
const ErrorTypeSMTPPermanent = "SMTPPermanent"

// SendRequestEmail sends the send-th e-mail of a request, once: a delivery already
// made, or left in flight by a worker that died after the server took
// it, is not made again.
func (a *Suppliers) SendRequestEmail(ctx context.Context, in suppliers.RequestInput) error {
	org, send := in.OrganizationID, in.Send
	w := systemUnit(ctx, a.DB, org)
	pending, err := suppliers.PendingDelivery(w, in.RequestID, send)
	if err != nil {
		w.Rollback()
		return err
	}
	if err := w.Commit(); err != nil || pending == nil {
		return err
	}
	sender, err := mail.NewSender(a.SMTPURL)
	if err != nil {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeSMTPPermanent, err)
	}
	m := a.message(pending)
	raw, err := mail.Render(m)
	if err != nil {
		return err
	}
	var attempt *suppliers.SupplierDelivery
	err = sender.Send(ctx, a.From, m.To, raw, func() error {
		w := systemUnit(ctx, a.DB, org)
		d, err := suppliers.BeginDelivery(w, &pending.Request, send, m.MessageID)
		if err != nil {
			w.Rollback()
			return err
		}
		attempt = d
		return w.Commit()
	})
	if attempt != nil {
		outcome := suppliers.AttemptSent
		if err != nil {
			outcome = suppliers.AttemptFailed
		}
		w := systemUnit(ctx, a.DB, org)
		if serr := suppliers.SettleDelivery(w, attempt, outcome, err); serr != nil {
			w.Rollback()
			return serr
		}
		if serr := domain.Commit(w, domain.AuditEntry{Operation: "deliverSupplierRequest"}); serr != nil {
			return serr
		}
	}
	if mail.IsPermanent(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeSMTPPermanent, err)
	}
	return err
}

// message writes the request's e-mail in its language, listing every
// line, with a Reply-To unique to the request.
func (a *Suppliers) message(p *suppliers.RequestMail) mail.Message {
	l := i18n.Locale(p.Request.Language)
	t := func(key string, args ...any) string { return i18n.T(l, "mail.request."+key, args...) }
	due := p.Request.DueOn.Format(time.DateOnly)
	var text, htm strings.Builder
	fmt.Fprintf(&text, "%s\n\n", t("greeting", p.Party))
	fmt.Fprintf(&htm, "<p>%s</p>", html.EscapeString(t("greeting", p.Party)))
	if p.Request.Message != "" {
		fmt.Fprintf(&text, "%s\n\n", p.Request.Message)
		fmt.Fprintf(&htm, "<p>%s</p>", html.EscapeString(p.Request.Message))
	}
	fmt.Fprintf(&text, "%s\n\n", t("intro", p.Organization, due))
	fmt.Fprintf(&htm, "<p>%s</p><ol>", html.EscapeString(t("intro", p.Organization, due)))
	for _, line := range p.Lines {
		var asks []string
		if line.DocumentType != nil {
			asks = append(asks, t("document", dictionaries.Default().DocumentTypeName(*line.DocumentType, string(l))))
		}
		if len(line.MeasurementCodes) > 0 {
			values := make([]string, len(line.MeasurementCodes))
			for i, code := range line.MeasurementCodes {
				values[i] = i18n.T(l, documents.EvidenceCodeLabel(code))
			}
			asks = append(asks, t("values", strings.Join(values, ", ")))
		}
		if line.Note != nil {
			asks = append(asks, *line.Note)
		}
		item := fmt.Sprintf("%s (%s)", line.ItemName, line.ItemCode)
		fmt.Fprintf(&text, "%d. %s: %s\n", line.Number, item, strings.Join(asks, "; "))
		fmt.Fprintf(&htm, "<li><strong>%s</strong>: %s</li>", html.EscapeString(item), html.EscapeString(strings.Join(asks, "; ")))
	}
	fmt.Fprintf(&text, "\n%s\n", t("reply"))
	fmt.Fprintf(&htm, "</ol><p>%s</p>", html.EscapeString(t("reply")))
	_, domain, _ := strings.Cut(a.From, "@")
	return mail.Message{From: a.From, To: p.Request.Recipients, ReplyTo: suppliers.ReplyAddress(a.ReplyAddress, p.Request.ReplyToken),
		Subject: t("subject", p.Organization, due), Language: p.Request.Language, MessageID: mail.NewMessageID(domain),
		Text: text.String(), HTML: htm.String(), Date: time.Now()}
}

// RecordRequestEmailFailure records that a send gave up.
func (a *Suppliers) RecordRequestEmailFailure(ctx context.Context, in suppliers.RequestInput, reason string) error {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	if err := suppliers.FailDelivery(w, in.RequestID, reason); err != nil {
		w.Rollback()
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: "failSupplierRequestDelivery"})
}

// MarkRequestOverdue opens the overdue issue of a request still unanswered at
// its due date.
func (a *Suppliers) MarkRequestOverdue(ctx context.Context, in suppliers.RequestInput) (bool, error) {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	opened, err := suppliers.MarkOverdue(w, in.RequestID)
	if err != nil || !opened {
		w.Rollback()
		return false, err
	}
	return true, domain.Commit(w, domain.AuditEntry{Operation: "markSupplierRequestOverdue"})
}

// RequestStatus reads the request's status, for its first send to find
// out whether it closed before the send started.
func (a *Suppliers) RequestStatus(ctx context.Context, in suppliers.RequestInput) (string, error) {
	return recordStatus(ctx, a.DB, in.OrganizationID, in.RequestID, func(r *suppliers.SupplierRequest) string { return r.Status })
}

// ErrorTypeUnreadableReply marks a reply whose message cannot be parsed:
// reading it again cannot help.
const ErrorTypeUnreadableReply = "UnreadableReply"

// FileReply reads a received reply from the object store and files each
// attachment as a document version of the request (suppliers.FileReply),
// matching it to a line by the request's item codes. Attachments stream
// to the object store under ids derived from the reply, so a retry
// overwrites what an earlier attempt stored instead of adding to it; a
// reply filed before answers its versions again.
func (a *Suppliers) FileReply(ctx context.Context, in suppliers.ReplyInput) ([]uuid.UUID, error) {
	reply, err := domain.Find[suppliers.SupplierReply](ctx, a.DB, in.OrganizationID, in.ReplyID)
	if err != nil {
		return nil, err
	}
	if reply.Status != suppliers.ReplyReceived {
		return suppliers.ReplyVersions(ctx, a.DB, reply.ID)
	}
	lines, err := suppliers.ReplyLines(ctx, a.DB, reply.RequestID)
	if err != nil {
		return nil, err
	}
	obj, err := a.Storage.Get(ctx, reply.ObjectKey)
	if err != nil {
		return nil, err
	}
	defer obj.Body.Close()
	var files []suppliers.ReplyFile
	var skipped []suppliers.SkippedAttachment
	n := 0
	header, err := mailin.Attachments(obj.Body, func(att mailin.Attachment) error {
		n++
		activity.RecordHeartbeat(ctx, n)
		docID, versionID := replyFileIDs(reply.ID, n)
		key := documents.DocumentObjectKey(reply.OrganizationID, docID, versionID)
		body := intake.Measure(att.Body, a.DocumentMaxBytes)
		if err := a.Storage.Put(ctx, key, body, "application/octet-stream"); err != nil && !body.Over() {
			return err
		}
		switch {
		case body.Over():
			skipped = append(skipped, suppliers.SkippedAttachment{FileName: att.FileName, Reason: suppliers.SkipTooLarge})
		case body.Size() == 0:
			skipped = append(skipped, suppliers.SkippedAttachment{FileName: att.FileName, Reason: suppliers.SkipEmpty})
		default:
			file := documents.StoredFile{FileName: att.FileName, ObjectKey: key, Size: body.Size(), SHA256: body.SHA256()}
			files = append(files, suppliers.ReplyFile{DocumentID: docID, VersionID: versionID, File: file})
			return nil
		}
		return a.Storage.Delete(ctx, key)
	})
	if errors.Is(err, mailin.ErrMalformed) {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeUnreadableReply, err)
	}
	if err != nil {
		return nil, err
	}
	for i := range files {
		files[i].Line = suppliers.MatchLine(lines, files[i].File.FileName, header.Subject)
	}
	w := systemUnit(ctx, a.DB, reply.OrganizationID)
	versions, err := suppliers.FileReply(w, reply.ID, files, skipped)
	if err != nil {
		w.Rollback()
		return nil, err
	}
	return versions, domain.Commit(w, domain.AuditEntry{Operation: "fileSupplierReply"})
}

// replyFileIDs are the document and version ids of a reply's n-th
// attachment: the same on every attempt.
func replyFileIDs(reply uuid.UUID, n int) (uuid.UUID, uuid.UUID) {
	return uuid.NewSHA1(reply, []byte("document/"+strconv.Itoa(n))), uuid.NewSHA1(reply, []byte("version/"+strconv.Itoa(n)))
}

// RecordReplyFailure records that a reply's message could not be read.
func (a *Suppliers) RecordReplyFailure(ctx context.Context, in suppliers.ReplyInput, reason string) error {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	if err := suppliers.FailReply(w, in.ReplyID, reason); err != nil {
		w.Rollback()
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: "failSupplierReply"})
}
