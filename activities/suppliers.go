package activities

import (
	"context"
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"ppwr/internal/dictionaries"
	"ppwr/internal/i18n"
	"ppwr/internal/mail"
	"ppwr/models"
)

// Suppliers e-mails supplier requests and watches their due dates.
type Suppliers struct {
	DB           *gorm.DB
	SMTPURL      string
	From         string
	ReplyAddress string
}

// ErrorTypeSMTPPermanent marks a refusal no retry can change.
const ErrorTypeSMTPPermanent = "SMTPPermanent"

// SendRequestEmail sends the send-th e-mail of a request, once: a delivery already
// made, or left in flight by a worker that died after the server took
// it, is not made again.
func (a *Suppliers) SendRequestEmail(ctx context.Context, requestID uuid.UUID, send int) error {
	org, err := a.organization(ctx, requestID)
	if err != nil {
		return err
	}
	w := systemUnit(ctx, a.DB, org)
	pending, err := models.PendingDelivery(w, requestID, send)
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
	var attempt *models.SupplierDelivery
	err = sender.Send(ctx, a.From, m.To, raw, func() error {
		w := systemUnit(ctx, a.DB, org)
		d, err := models.BeginDelivery(w, &pending.Request, send, m.MessageID)
		if err != nil {
			w.Rollback()
			return err
		}
		attempt = d
		return w.Commit()
	})
	if attempt != nil {
		outcome := models.AttemptSent
		if err != nil {
			outcome = models.AttemptFailed
		}
		w := systemUnit(ctx, a.DB, org)
		if serr := models.SettleDelivery(w, attempt, outcome, err); serr != nil {
			w.Rollback()
			return serr
		}
		if serr := models.Commit(w, models.AuditEntry{Operation: "deliverSupplierRequest"}); serr != nil {
			return serr
		}
	}
	if mail.IsPermanent(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeSMTPPermanent, err)
	}
	return err
}

func (a *Suppliers) organization(ctx context.Context, requestID uuid.UUID) (uuid.UUID, error) {
	var r models.SupplierRequest
	err := a.DB.WithContext(ctx).Select("organization_id").Take(&r, "id = ?", requestID).Error
	return r.OrganizationID, err
}

// message writes the request's e-mail in its language, listing every
// line, with a Reply-To unique to the request.
func (a *Suppliers) message(p *models.RequestMail) mail.Message {
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
			asks = append(asks, t("values", strings.Join(line.MeasurementCodes, ", ")))
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
	return mail.Message{From: a.From, To: p.Request.Recipients, ReplyTo: models.ReplyAddress(a.ReplyAddress, p.Request.ReplyToken),
		Subject: t("subject", p.Organization, due), Language: p.Request.Language, MessageID: mail.NewMessageID(domain),
		Text: text.String(), HTML: htm.String(), Date: time.Now()}
}

// RecordRequestEmailFailure records that a send gave up.
func (a *Suppliers) RecordRequestEmailFailure(ctx context.Context, requestID uuid.UUID, reason string) error {
	org, err := a.organization(ctx, requestID)
	if err != nil {
		return err
	}
	w := systemUnit(ctx, a.DB, org)
	if err := models.FailDelivery(w, requestID, reason); err != nil {
		w.Rollback()
		return err
	}
	return models.Commit(w, models.AuditEntry{Operation: "failSupplierRequestDelivery"})
}

// MarkRequestOverdue opens the overdue issue of a request still unanswered at
// its due date.
func (a *Suppliers) MarkRequestOverdue(ctx context.Context, requestID uuid.UUID) (bool, error) {
	org, err := a.organization(ctx, requestID)
	if err != nil {
		return false, err
	}
	w := systemUnit(ctx, a.DB, org)
	opened, err := models.MarkOverdue(w, requestID)
	if err != nil || !opened {
		w.Rollback()
		return false, err
	}
	return true, models.Commit(w, models.AuditEntry{Operation: "markSupplierRequestOverdue"})
}
