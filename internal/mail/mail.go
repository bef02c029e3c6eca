// Package mail composes and sends the service's e-mail over SMTP. A
// message is rendered once into bytes (text and HTML alternatives, UTF-8,
// encoded headers) and handed to a Sender, which tells a refusal that a
// retry cannot change (an SMTP 5xx reply) from one that it may.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one e-mail.
type Message struct {
	From      string
	To        []string
	ReplyTo   string
	Subject   string
	Language  string // Content-Language
	MessageID string // without angle brackets; the caller keeps it stable across retries
	Text      string
	HTML      string
	Date      time.Time
}

// Render encodes the message as RFC 5322 bytes: a multipart/alternative
// body with the text and HTML parts, each quoted-printable UTF-8.
func Render(m Message) ([]byte, error) {
	var buf bytes.Buffer
	body := multipart.NewWriter(&buf)
	header := func(name, value string) { fmt.Fprintf(&buf, "%s: %s\r\n", name, value) }
	header("From", m.From)
	header("To", strings.Join(m.To, ", "))
	if m.ReplyTo != "" {
		header("Reply-To", m.ReplyTo)
	}
	header("Subject", mime.QEncoding.Encode("utf-8", m.Subject))
	header("Date", m.Date.UTC().Format(time.RFC1123Z))
	header("Message-ID", "<"+m.MessageID+">")
	if m.Language != "" {
		header("Content-Language", m.Language)
	}
	header("MIME-Version", "1.0")
	header("Content-Type", `multipart/alternative; boundary="`+body.Boundary()+`"`)
	buf.WriteString("\r\n")
	for _, part := range []struct{ contentType, text string }{{"text/plain", m.Text}, {"text/html", m.HTML}} {
		w, err := body.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {part.contentType + "; charset=utf-8"},
			"Content-Transfer-Encoding": {"quoted-printable"},
		})
		if err != nil {
			return nil, err
		}
		qp := quotedprintable.NewWriter(w)
		if _, err := qp.Write([]byte(part.text)); err != nil {
			return nil, err
		}
		if err := qp.Close(); err != nil {
			return nil, err
		}
	}
	if err := body.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// NewMessageID is a unique Message-ID on domain.
func NewMessageID(domain string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:]) + "@" + domain
}

// Sender delivers messages to one SMTP server: smtp:// (plain, for a
// relay on a trusted network), smtp+starttls:// (upgraded with STARTTLS)
// or smtps:// (TLS from the start), with PLAIN authentication when the
// URL has a user.
type Sender struct {
	addr   string
	scheme string
	auth   sasl.Client
}

// NewSender reads an SMTP URL.
func NewSender(smtpURL string) (*Sender, error) {
	u, err := url.Parse(smtpURL)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtp+starttls" && u.Scheme != "smtps") || u.Host == "" {
		return nil, fmt.Errorf("mail: SMTP_URL must be smtp://, smtp+starttls:// or smtps:// with host:port, got %q", smtpURL)
	}
	s := &Sender{addr: u.Host, scheme: u.Scheme}
	if _, _, err := net.SplitHostPort(s.addr); err != nil {
		return nil, fmt.Errorf("mail: SMTP_URL needs a port: %w", err)
	}
	if u.User != nil {
		password, _ := u.User.Password()
		s.auth = sasl.NewPlainClient("", u.User.Username(), password)
	}
	return s, nil
}

// Send delivers raw from the envelope sender to the recipients. commit
// runs once the whole message is written, just before the final dot
// that makes the server accept it: the caller records there that the
// message may have left, so that a crash after acceptance never leads to
// a second message.
func (s *Sender) Send(ctx context.Context, from string, to []string, raw []byte, commit func() error) error {
	c, err := s.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if deadline, ok := ctx.Deadline(); ok {
		c.CommandTimeout, c.SubmissionTimeout = time.Until(deadline), time.Until(deadline)
	}
	if s.auth != nil {
		if err := c.Auth(s.auth); err != nil {
			return err
		}
	}
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, rcpt := range to {
		if err := c.Rcpt(rcpt, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := commit(); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

func (s *Sender) dial() (*smtp.Client, error) {
	host, _, _ := net.SplitHostPort(s.addr)
	switch s.scheme {
	case "smtps":
		return smtp.DialTLS(s.addr, &tls.Config{ServerName: host})
	case "smtp+starttls":
		return smtp.DialStartTLS(s.addr, &tls.Config{ServerName: host})
	}
	return smtp.Dial(s.addr)
}

// Ping checks that the server greets and answers a NOOP within ctx's
// deadline; it sends no mail.
func (s *Sender) Ping(ctx context.Context) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if deadline, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(deadline)
	}
	host, _, _ := net.SplitHostPort(s.addr)
	var c *smtp.Client
	switch s.scheme {
	case "smtps":
		c = smtp.NewClient(tls.Client(conn, &tls.Config{ServerName: host}))
	case "smtp+starttls":
		if c, err = smtp.NewClientStartTLS(conn, &tls.Config{ServerName: host}); err != nil {
			return err
		}
	default:
		c = smtp.NewClient(conn)
	}
	if err := c.Noop(); err != nil {
		return err
	}
	return c.Quit()
}

// IsPermanent reports whether the server refused for good (a 5xx reply);
// anything else (a 4xx reply, a refused or lost connection, a timeout)
// may pass on a later attempt.
func IsPermanent(err error) bool {
	var reply *smtp.SMTPError
	return errors.As(err, &reply) && reply.Code >= 500
}
