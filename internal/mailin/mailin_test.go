package mailin_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/internal/mailin"
)

// recorder accepts mail for one address and keeps it, or fails as told.
type recorder struct {
	mu      sync.Mutex
	got     []string
	to      [][]string
	failing error
}

func (r *recorder) Recipient(_ context.Context, address string) error {
	if address != "replies+abc@ppwr.test" {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	return nil
}

func (r *recorder) Deliver(_ context.Context, env mailin.Envelope, data io.Reader) error {
	b, err := io.ReadAll(data)
	if err != nil {
		return err
	}
	if r.failing != nil {
		return r.failing
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got, r.to = append(r.got, string(b)), append(r.to, env.To)
	return nil
}

func listen(t *testing.T, h mailin.Handler, max int64) *mailin.Server {
	s, err := mailin.Listen("127.0.0.1:0", h, mailin.Options{Domain: "ppwr.test", MaxBytes: max})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

func send(s *mailin.Server, to []string, body string) error {
	c, err := smtp.Dial(s.Addr())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.SendMail("oferty@kartonex.example", to, strings.NewReader(body))
}

func smtpCode(err error) int {
	var reply *smtp.SMTPError
	if errors.As(err, &reply) {
		return reply.Code
	}
	return 0
}

func TestTheServerTakesMailOnlyForAddressesTheHandlerAccepts(t *testing.T) {
	r := &recorder{}
	s := listen(t, r, 1<<20)

	require.NoError(t, send(s, []string{"replies+abc@ppwr.test"}, "Subject: hi\r\n\r\nbody\r\n"))
	assert.Equal(t, 550, smtpCode(send(s, []string{"someone@ppwr.test"}, "Subject: hi\r\n\r\nbody\r\n")))

	require.Len(t, r.got, 1)
	assert.Contains(t, r.got[0], "Subject: hi")
	assert.Equal(t, []string{"replies+abc@ppwr.test"}, r.to[0])
}

func TestTheServerRefusesATooLargeMessageAndAsksToRetryOnItsOwnFailure(t *testing.T) {
	r := &recorder{}
	s := listen(t, r, 100)
	err := send(s, []string{"replies+abc@ppwr.test"}, "Subject: big\r\n\r\n"+strings.Repeat("x", 200)+"\r\n")
	assert.Equal(t, 552, smtpCode(err), "%v", err)

	r.failing = errors.New("object store down")
	err = send(s, []string{"replies+abc@ppwr.test"}, "Subject: hi\r\n\r\nbody\r\n")
	assert.Equal(t, 451, smtpCode(err), "a failure of ours is transient: the sender keeps the message: %v", err)
	assert.Empty(t, r.got)
}

type file struct{ name, contentType, body string }

func attachments(t *testing.T, path string) (mailin.Header, []file) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []file
	h, err := mailin.Attachments(f, func(a mailin.Attachment) error {
		b, err := io.ReadAll(a.Body)
		out = append(out, file{a.FileName, a.ContentType, string(b)})
		return err
	})
	require.NoError(t, err)
	return h, out
}

func TestAttachmentsAreFoundWhateverTheirNamingAndNesting(t *testing.T) {
	h, files := attachments(t, "../../testdata/mail/names.eml")
	assert.Equal(t, mailin.Header{From: "pawel@kartonex.example", Subject: "Odpowiedź", MessageID: "names.1790000000@kartonex.example"}, h)
	require.Len(t, files, 4, "the text body is not a file: %+v", files)
	assert.Equal(t, file{"Łódź.pdf", "application/pdf", "%PDF-1.4\n%%EOF\n"}, files[0], "an RFC 2047 windows-1250 name in Content-Type")
	assert.Equal(t, file{"wartości.txt", "text/plain", "Masa opakowania: 12,5 g, zgodnie z normą\r\n"}, files[1],
		"RFC 2231 and quoted-printable; text in mail has CRLF line ends")
	assert.Equal(t, "logo.png", files[2].name, "an inline part with a name is a file")
	assert.Equal(t, file{"raport.bin", "application/octet-stream", "raport"}, files[3], "inside a forwarded message")
}

func TestAReplyWithAPDFYieldsThePDF(t *testing.T) {
	h, files := attachments(t, "../../testdata/mail/reply-pdf.eml")
	assert.Equal(t, "oferty@kartonex.example", h.From)
	assert.Equal(t, "Re: Prośba o dane opakowań", h.Subject)
	require.Len(t, files, 1)
	assert.Equal(t, "Deklaracja zgodności.pdf", files[0].name)
	want, err := os.ReadFile("../../testdata/documents/measurements.pdf")
	require.NoError(t, err)
	assert.Equal(t, string(want), files[0].body)
}

func TestAMalformedMessageIsAnErrorNotAPanic(t *testing.T) {
	for name, raw := range map[string]string{
		"no header":    "this is not a header\r\n",
		"no boundary":  "Content-Type: multipart/mixed\r\n\r\nbody",
		"bad base64":   "Content-Type: application/pdf; name=a.pdf\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n",
		"deep nesting": "Content-Type: multipart/mixed; boundary=x\r\n\r\n" + strings.Repeat("--x\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n", 40),
	} {
		_, err := mailin.Attachments(strings.NewReader(raw), func(a mailin.Attachment) error {
			_, err := io.Copy(io.Discard, a.Body)
			return fmt.Errorf("storing: %v", err) // as a store would: the cause is not wrapped
		})
		assert.ErrorIs(t, err, mailin.ErrMalformed, name)
	}
}

func TestTheCallbacksErrorStopsTheWalk(t *testing.T) {
	f, err := os.Open("../../testdata/mail/names.eml")
	require.NoError(t, err)
	defer f.Close()
	stop := errors.New("store failed")
	calls := 0
	_, err = mailin.Attachments(f, func(mailin.Attachment) error { calls++; return stop })
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, calls)
}
