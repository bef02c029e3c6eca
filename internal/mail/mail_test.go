package mail_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net"
	netmail "net/mail"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/mail"
	"ppwr/internal/smtpsink"
)

func message() mail.Message {
	return mail.Message{From: "ppwr@example.test", To: []string{"dostawca@example.test"}, ReplyTo: "replies+abc@ppwr.test",
		Subject: "Zapytanie o dane opakowań: Pudełko ŻÓŁĆ", Language: "pl", MessageID: mail.NewMessageID("ppwr.test"),
		Text: "Prosimy o deklarację zgodności.", HTML: "<p>Prosimy o deklarację zgodności.</p>", Date: time.Now()}
}

func TestAMessageArrivesWithItsHeadersAndBothBodies(t *testing.T) {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = sink.Close() })
	sender, err := mail.NewSender("smtp://" + sink.Addr())
	require.NoError(t, err)
	m := message()
	raw, err := mail.Render(m)
	require.NoError(t, err)
	committed := false
	require.NoError(t, sender.Send(context.Background(), m.From, m.To, raw, func() error { committed = true; return nil }))
	assert.True(t, committed)

	got, err := sink.WaitFor(context.Background(), 1)
	require.NoError(t, err)
	parsed, err := netmail.ReadMessage(bytes.NewReader(got[0].Data))
	require.NoError(t, err)
	subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	require.NoError(t, err)
	assert.Equal(t, m.Subject, subject)
	assert.Equal(t, "replies+abc@ppwr.test", parsed.Header.Get("Reply-To"))
	assert.Equal(t, "<"+m.MessageID+">", parsed.Header.Get("Message-ID"))
	_, params, err := mime.ParseMediaType(parsed.Header.Get("Content-Type"))
	require.NoError(t, err)
	parts := multipart.NewReader(parsed.Body, params["boundary"])
	var bodies []string
	for {
		p, err := parts.NextPart() // decodes quoted-printable
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		b, _ := io.ReadAll(p)
		bodies = append(bodies, string(b))
	}
	assert.Equal(t, []string{m.Text, m.HTML}, bodies)
}

// refusing is an SMTP server that refuses every recipient with code.
type refusing struct{ code int }

func (b refusing) NewSession(*smtp.Conn) (smtp.Session, error) { return refusingSession(b), nil }

type refusingSession refusing

func (refusingSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s refusingSession) Rcpt(string, *smtp.RcptOptions) error {
	return &smtp.SMTPError{Code: s.code, Message: "refused for the test"}
}
func (refusingSession) Data(io.Reader) error { return nil }
func (refusingSession) Reset()               {}
func (refusingSession) Logout() error        { return nil }

func serve(t *testing.T, b smtp.Backend) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := smtp.NewServer(b)
	s.AllowInsecureAuth = true
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })
	return l.Addr().String()
}

func TestRefusalsAreTransientOrPermanentByTheirCode(t *testing.T) {
	m := message()
	raw, err := mail.Render(m)
	require.NoError(t, err)
	for code, permanent := range map[int]bool{451: false, 550: true} {
		sender, err := mail.NewSender("smtp://" + serve(t, refusing{code}))
		require.NoError(t, err)
		err = sender.Send(context.Background(), m.From, m.To, raw, func() error { t.Fatal("nothing is committed before the data"); return nil })
		require.Error(t, err)
		assert.Equal(t, permanent, mail.IsPermanent(err), "code %d", code)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	sender, err := mail.NewSender("smtp://" + addr)
	require.NoError(t, err)
	err = sender.Send(context.Background(), m.From, m.To, raw, func() error { return nil })
	require.Error(t, err)
	assert.False(t, mail.IsPermanent(err), "a refused connection may pass later")
}

func TestAFailedCommitSendsNothing(t *testing.T) {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = sink.Close() })
	sender, err := mail.NewSender("smtp://" + sink.Addr())
	require.NoError(t, err)
	m := message()
	raw, err := mail.Render(m)
	require.NoError(t, err)
	err = sender.Send(context.Background(), m.From, m.To, raw, func() error { return errors.New("database down") })
	require.Error(t, err)
	time.Sleep(100 * time.Millisecond)
	assert.Empty(t, sink.Messages(), "without the final dot the server keeps nothing")
}

func TestSMTPURLs(t *testing.T) {
	for _, good := range []string{"smtp://127.0.0.1:1025", "smtps://user:pw@mail.example:465", "smtp+starttls://mail.example:587"} {
		_, err := mail.NewSender(good)
		assert.NoError(t, err, good)
	}
	for _, bad := range []string{"http://x:1", "smtp://nohost", "smtp://", "::"} {
		_, err := mail.NewSender(bad)
		assert.Error(t, err, bad)
	}
}
