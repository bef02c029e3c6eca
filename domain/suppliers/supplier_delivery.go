package suppliers

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"

	"ppwr/domain"
	"ppwr/internal/work"
)

// Sending a request e-mails its recipients once per send. A delivery is
// recorded just before the SMTP server is told to accept the message, so
// that a worker dying after the server accepted it never sends it again:
// the retry finds the delivery in flight and records the message as sent
// (unconfirmed) instead.

// Outcomes of a delivery attempt.
const (
	AttemptInFlight    = "in_flight"
	AttemptSent        = "sent"
	AttemptUnconfirmed = "unconfirmed"
	AttemptFailed      = "failed"
)

// SupplierDelivery is one attempt to deliver a request's e-mail.
type SupplierDelivery struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	RequestID      uuid.UUID `gorm:"type:uuid"`
	Send           int
	MessageID      string
	Outcome        string
	SMTPError      *string `gorm:"column:smtp_error"`
	StartedAt      time.Time
	FinishedAt     *time.Time
}

// TableName names the deliveries table.
func (SupplierDelivery) TableName() string { return "supplier_request_deliveries" }

// ErrNotSendable refuses to send a request that is neither a draft nor
// a sent request whose delivery failed.
var ErrNotSendable = &domain.RuleError{Code: "supplier_request_not_sendable", Key: "error.supplier_request_not_sendable"}

// RequestInput names the request, which send of it this is and its due
// date.
type RequestInput struct {
	domain.Org
	RequestID uuid.UUID `json:"request_id"`
	Send      int       `json:"send"`
	DueOn     time.Time `json:"due_on"`
}

// RequestSendWorkflow delivers one send of a request's e-mail and, for
// the first, waits for the due date. Its id is the request's first send;
// sending again after a failed delivery is a workflow of its own.
// RequestCloseWorkflow ends that wait when the request closes:
// cancellation and completion each happen at most once, and never both.
var (
	RequestSendWorkflow = domain.Workflow[RequestInput]{
		Type: "SupplierRequestSend",
		ID: func(in RequestInput) string {
			wid := "supplier-request/" + in.RequestID.String() + "/send"
			if in.Send > 1 {
				wid += "/" + strconv.Itoa(in.Send)
			}
			return wid
		},
		Resource: requestOf,
	}
	RequestCloseWorkflow = domain.Workflow[RequestInput]{
		Type:     "SupplierRequestClose",
		ID:       func(in RequestInput) string { return "supplier-request/" + in.RequestID.String() + "/close" },
		Resource: requestOf,
	}
)

func requestOf(in RequestInput) uuid.UUID { return in.RequestID }

// summary says which request a run of what works on, for the Temporal UI.
func (r *SupplierRequest) summary(what string) string {
	return fmt.Sprintf("Supplier request `%s`, due %s: %s", r.ID, r.DueOn.Format(time.DateOnly), what)
}

// stopOverdueTimer records, with the change that closed the request, the
// start of the workflow that ends its first send's wait for the due date.
func stopOverdueTimer(w *work.Unit, r *SupplierRequest) error {
	return domain.Start(w, RequestCloseWorkflow, RequestInput{Org: domain.OrgOf(r.OrganizationID), RequestID: r.ID},
		r.summary(r.Status+": stop the wait for answers"))
}

// SendSupplierRequest marks a draft request sent, or a sent request whose
// delivery failed to be sent again, and records the start of the send's
// workflow.
func SendSupplierRequest(w *work.Unit, id uuid.UUID, in *domain.RevisionRequired) (*SupplierRequest, error) {
	r, err := lockRequest(w, id, in.Revision.Value, in)
	if err != nil {
		return nil, err
	}
	if r.Status != RequestDraft && (r.Status != RequestSent || r.DeliveryStatus != MailFailed) {
		return nil, ErrNotSendable.On("revision", "field.request_delivery", r.Status, r.DeliveryStatus)
	}
	at := domain.Now()
	if r.SentAt == nil {
		r.SentAt = &at
	}
	r.Status, r.DeliveryStatus, r.DeliveryError, r.UpdatedAt = RequestSent, MailSending, nil, at
	r.SendCount++
	r.Revision++
	if err := w.Tx().Model(r).Select("status", "delivery_status", "delivery_error", "sent_at", "send_count", "revision", "updated_at").
		Updates(r).Error; err != nil {
		return nil, err
	}
	w.Touch("supplier_request", r.ID)
	if err := domain.Emit(w, SupplierRequestSent{ID: r.ID, Status: r.Status}); err != nil {
		return nil, err
	}
	return r, domain.Start(w, RequestSendWorkflow,
		RequestInput{Org: domain.OrgOf(r.OrganizationID), RequestID: r.ID, Send: r.SendCount, DueOn: r.DueOn},
		r.summary(fmt.Sprintf("send %d to %s", r.SendCount, strings.Join(r.Recipients, ", "))))
}

// RequestMail is what a request's e-mail says.
type RequestMail struct {
	Request      SupplierRequest
	Organization string
	Party        string
	Lines        []MailLine
}

// MailLine is a line as the e-mail lists it.
type MailLine struct {
	Number           int
	ItemCode         string
	ItemName         string
	DocumentType     *string
	MeasurementCodes pq.StringArray `gorm:"type:text[]"`
	Note             *string
}

// PendingDelivery reads what a send must deliver. It answers nil when the
// send has nothing left to do: delivered already, or in flight when a
// worker died (then recorded as delivered, unconfirmed).
func PendingDelivery(w *work.Unit, requestID uuid.UUID, send int) (*RequestMail, error) {
	var earlier []SupplierDelivery
	if err := w.Tx().Where("request_id = ? AND send = ? AND outcome IN ?", requestID, send,
		[]string{AttemptInFlight, AttemptSent, AttemptUnconfirmed}).Find(&earlier).Error; err != nil {
		return nil, err
	}
	for _, d := range earlier {
		if d.Outcome == AttemptInFlight {
			return nil, settleDelivery(w, &d, AttemptUnconfirmed, nil)
		}
		return nil, nil
	}
	r, err := domain.Find[SupplierRequest](w.Context(), w.Tx(), w.Organization(), requestID)
	if err != nil || RequestClosed(r.Status) {
		// A request cancelled or completed before its e-mail left needs
		// none: the supplier would be asked for what is no longer wanted.
		return nil, err
	}
	m := &RequestMail{Request: *r}
	var names struct{ Organization, Party string }
	if err := w.Tx().Raw(`SELECT o.name AS organization, p.name AS party FROM organizations o, parties p WHERE o.id = ? AND p.id = ?`,
		m.Request.OrganizationID, m.Request.PartyID).Scan(&names).Error; err != nil {
		return nil, err
	}
	m.Organization, m.Party = names.Organization, names.Party
	err = w.Tx().Raw(`SELECT l.number, i.internal_code AS item_code, i.name AS item_name, l.document_type, l.measurement_codes, l.note
		FROM supplier_request_lines l JOIN catalog_items i ON i.id = l.catalog_item_id WHERE l.request_id = ? ORDER BY l.number`, requestID).
		Scan(&m.Lines).Error
	return m, err
}

// BeginDelivery records that the message may leave now.
func BeginDelivery(w *work.Unit, r *SupplierRequest, send int, messageID string) (*SupplierDelivery, error) {
	d := &SupplierDelivery{ID: domain.NewID(), OrganizationID: r.OrganizationID, RequestID: r.ID, Send: send, MessageID: messageID,
		Outcome: AttemptInFlight, StartedAt: domain.Now()}
	return d, w.Tx().Create(d).Error
}

// SettleDelivery records how a delivery ended; a failure carries the
// server's answer.
func SettleDelivery(w *work.Unit, d *SupplierDelivery, outcome string, smtpErr error) error {
	var msg *string
	if smtpErr != nil {
		s := smtpErr.Error()
		msg = &s
	}
	return settleDelivery(w, d, outcome, msg)
}

func settleDelivery(w *work.Unit, d *SupplierDelivery, outcome string, smtpErr *string) error {
	at := domain.Now()
	if err := w.Tx().Model(d).Updates(map[string]any{"outcome": outcome, "smtp_error": smtpErr, "finished_at": at}).Error; err != nil {
		return err
	}
	if outcome == AttemptFailed {
		return nil
	}
	w.Touch("supplier_request", d.RequestID)
	return w.Tx().Model(&SupplierRequest{}).Where("id = ?", d.RequestID).
		Updates(map[string]any{"delivery_status": MailSent, "message_id": d.MessageID, "delivery_error": nil, "updated_at": at}).Error
}

// FailDelivery records that a send gave up, with the last error.
func FailDelivery(w *work.Unit, requestID uuid.UUID, reason string) error {
	w.Touch("supplier_request", requestID)
	return domain.Tenant(w.Context(), w.Tx(), w.Organization()).Model(&SupplierRequest{}).Where("id = ? AND delivery_status = ?", requestID, MailSending).
		Updates(map[string]any{"delivery_status": MailFailed, "delivery_error": reason, "updated_at": domain.Now()}).Error
}

// MarkOverdue opens the overdue issue of a request still waiting for its
// answers; a completed or cancelled one is left alone.
func MarkOverdue(w *work.Unit, requestID uuid.UUID) (bool, error) {
	r, err := domain.Find[SupplierRequest](w.Context(), w.Tx(), w.Organization(), requestID)
	if err != nil || r.Status != RequestSent {
		return false, err
	}
	return domain.OpenIssue(w, domain.ComplianceIssue{Kind: domain.IssueSupplierRequestOverdue, Severity: domain.SeverityMedium,
		SubjectType: "supplier_request", SubjectID: r.ID, MessageKey: "issue.supplier_request_overdue",
		MessageArgs: []any{r.DueOn.Format(time.DateOnly)}})
}

// ReplyAddress is a request's Reply-To: the base address with the
// request's token after a plus.
func ReplyAddress(base, token string) string {
	local, domain, ok := strings.Cut(base, "@")
	if !ok {
		return base
	}
	return local + "+" + token + "@" + domain
}
