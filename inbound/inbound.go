// Package inbound receives suppliers' replies from the mail server. The
// MTA that hosts the reply domain relays mail for it over SMTP to `ppwr
// mailin`; the Receiver accepts only the reply addresses of existing
// requests, keeps each message in the object store and records, per
// request, the reply with the durable start of the workflow that files
// its attachments (workflows.SupplierReply).
package inbound

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/emersion/go-smtp"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/suppliers"
	"ppwr/internal/intake"
	"ppwr/internal/mailin"
	"ppwr/internal/storage"
	"ppwr/internal/work"
)

// Receiver is the mailin.Handler of supplier replies.
type Receiver struct {
	DB      *gorm.DB
	Storage *storage.Store
	// ReplyAddress is the base reply address (MAIL_REPLY_ADDRESS): mail is
	// taken for its local part, a plus and a request's token, at its
	// domain.
	ReplyAddress string
}

var _ mailin.Handler = (*Receiver)(nil)

// errNoMailbox refuses an address that names no request: the sender
// learns at once that the message went nowhere.
var errNoMailbox = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}

// headerMax is how much of a message is kept aside to read its header
// from; a header larger than this is recorded without sender or subject.
const headerMax = 64 << 10

// Recipient accepts the reply address of an existing request.
func (r *Receiver) Recipient(ctx context.Context, address string) error {
	_, err := r.request(ctx, address)
	return err
}

func (r *Receiver) request(ctx context.Context, address string) (*suppliers.SupplierRequest, error) {
	token, ok := r.token(address)
	if !ok {
		return nil, errNoMailbox
	}
	req, err := suppliers.RequestByReplyToken(ctx, r.DB, token)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, errNoMailbox
	}
	return req, err
}

// token is the request token of a reply address, compared without
// regard to case as mail servers may change it (tokens are lower case).
func (r *Receiver) token(address string) (string, bool) {
	baseLocal, baseDomain, ok := strings.Cut(r.ReplyAddress, "@")
	local, domain, ok2 := strings.Cut(strings.Trim(address, "<>"), "@")
	if !ok || !ok2 || !strings.EqualFold(domain, baseDomain) {
		return "", false
	}
	prefix, token, ok := strings.Cut(local, "+")
	if !ok || !strings.EqualFold(prefix, baseLocal) || token == "" {
		return "", false
	}
	return strings.ToLower(token), true
}

// Deliver stores the message once, then records a reply for each
// request it is addressed to. Any failure is answered as transient, so
// the MTA delivers again; a message recorded before (same Message-ID) is
// not recorded twice.
func (r *Receiver) Deliver(ctx context.Context, env mailin.Envelope, data io.Reader) error {
	receivedAt := time.Now().UTC()
	key := "inbound/" + receivedAt.Format("2006/01/02/") + domain.NewID().String() + ".eml"
	head := &prefix{max: headerMax}
	body := intake.Measure(io.TeeReader(data, head), 1<<62)
	if err := r.Storage.Put(ctx, key, body, "message/rfc822"); err != nil {
		_ = r.Storage.Delete(context.WithoutCancel(ctx), key)
		return err
	}
	// A header that cannot be read leaves sender and subject empty: the
	// reply is then flagged as from an unknown sender, never dropped.
	header, _ := mailin.ReadHeader(bytes.NewReader(head.buf))
	in := suppliers.IncomingReply{EnvelopeFrom: env.From, Sender: header.From, Subject: header.Subject, MessageID: header.MessageID,
		ObjectKey: key, Size: body.Size(), ReceivedAt: receivedAt}
	recorded := 0
	for _, to := range env.To {
		ok, err := r.record(ctx, to, in)
		if err != nil {
			return err
		}
		if ok {
			recorded++
		}
	}
	if recorded == 0 {
		// Delivered again: the first copy is the one the replies cite.
		return r.Storage.Delete(ctx, key)
	}
	return nil
}

// record records the reply to the request of one recipient address, with
// the start of its filing workflow; false when it was recorded before.
func (r *Receiver) record(ctx context.Context, to string, in suppliers.IncomingReply) (bool, error) {
	req, err := r.request(ctx, to)
	if err != nil {
		return false, err
	}
	w := work.New(ctx, r.DB, work.Actor{Kind: work.ActorSystem, OrganizationID: req.OrganizationID, Reference: in.ObjectKey})
	reply, err := suppliers.RecordReply(w, req.ID, in)
	if err != nil || reply == nil {
		w.Rollback()
		return false, err
	}
	return true, domain.Commit(w, domain.AuditEntry{Operation: "receiveSupplierReply"})
}

// prefix keeps the first max bytes written to it.
type prefix struct {
	buf []byte
	max int
}

func (p *prefix) Write(b []byte) (int, error) {
	if room := p.max - len(p.buf); room > 0 {
		p.buf = append(p.buf, b[:min(room, len(b))]...)
	}
	return len(b), nil
}
