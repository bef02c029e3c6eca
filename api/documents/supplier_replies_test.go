package documents_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"ppwr/api/apitest"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
	"ppwr/inbound"
	"ppwr/internal/mailin"
	"ppwr/internal/smtpsink"
	"ppwr/internal/testenv"
	"ppwr/worker"
)

// mailbox is the documents API with the whole e-mail loop: the worker
// sends requests to a sink, and replies come in through the receiver
// `ppwr mailin` runs.
type mailbox struct {
	*docs
	sink    *smtpsink.Sink
	inbound *mailin.Server
}

const replyBase = "replies@ppwr.test"

func newMailbox(t *testing.T) *mailbox {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = sink.Close() })
	d := newDocsWorker(t, func(deps *worker.Deps) {
		deps.SMTPURL, deps.MailFrom, deps.MailReplyAddress = "smtp://"+sink.Addr(), "ppwr@ppwr.test", replyBase
		deps.DocumentMaxBytes = 1 << 20
	})
	receiver := &inbound.Receiver{DB: d.DB, Storage: testenv.Storage(t), ReplyAddress: replyBase}
	srv, err := mailin.Listen("127.0.0.1:0", receiver, mailin.Options{Domain: "ppwr.test", MaxBytes: 4 << 20})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	return &mailbox{docs: d, sink: sink, inbound: srv}
}

// mail hands a message to the receiver as an MTA would.
func (m *mailbox) mail(to string, raw []byte) error {
	c, err := smtp.Dial(m.inbound.Addr())
	if err != nil {
		return err
	}
	defer c.Close()
	return c.SendMail("bounce@kartonex.example", []string{to}, bytes.NewReader(raw))
}

// reply is a message from `from` with one attachment, composed with the
// standard library's multipart writer.
func reply(t *testing.T, from, messageID, fileName string, content []byte) []byte {
	var body bytes.Buffer
	parts := multipart.NewWriter(&body)
	text, err := parts.CreatePart(textproto.MIMEHeader{"Content-Type": {"text/plain; charset=utf-8"}})
	require.NoError(t, err)
	_, _ = text.Write([]byte("W załączniku.\r\n"))
	file, err := parts.CreatePart(textproto.MIMEHeader{"Content-Type": {"application/octet-stream"},
		"Content-Disposition": {`attachment; filename="` + fileName + `"`}})
	require.NoError(t, err)
	_, _ = file.Write(content)
	require.NoError(t, parts.Close())
	head := "From: " + from + "\r\nSubject: Re: dane\r\nMessage-ID: <" + messageID + ">\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/mixed; boundary=" + parts.Boundary() + "\r\n\r\n"
	return append([]byte(head), body.Bytes()...)
}

// filed waits until the request shows n replies filed, and answers it.
func (m *mailbox) filed(t *testing.T, request string, n int) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		_, err := m.relay.StartWorkflows(context.Background())
		require.NoError(t, err)
		r := m.get(t, "/supplier-requests/"+request)
		replies := r["replies"].([]any)
		done := 0
		for _, rp := range replies {
			if rp.(map[string]any)["status"] != suppliers.ReplyReceived {
				done++
			}
		}
		if done >= n {
			return r
		}
		require.True(t, time.Now().Before(deadline), "replies of %s: %v", request, replies)
		time.Sleep(100 * time.Millisecond)
	}
}

func TestARepliedFileLandsOnItsLineThroughScanningAndReview(t *testing.T) {
	m := newMailbox(t)
	item := m.newItem(t, "Pudełko")
	party := m.post(t, m.tn, "/parties", map[string]any{"name": "Kartonex", "roles": []string{"supplier"}, "country": "PL",
		"email": "oferty@kartonex.example"})
	require.Equal(t, http.StatusCreated, party.Code, party.Body.String())
	req := m.post(t, m.tn, "/supplier-requests", map[string]any{"party": party.JSON["id"], "language": "pl",
		"due_on": time.Now().UTC().AddDate(0, 0, 7).Format(time.DateOnly),
		"lines":  []map[string]any{{"item": item, "document_type": "supplier_declaration"}}})
	require.Equal(t, http.StatusCreated, req.Code, req.Body.String())
	request := req.JSON["id"].(string)
	res := m.post(t, m.tn, "/supplier-requests/"+request+"/send", map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	_, err := m.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sent, err := m.sink.WaitFor(ctx, 1)
	require.NoError(t, err)
	header, err := mailin.ReadHeader(bytes.NewReader(sent[0].Data))
	require.NoError(t, err)
	assert.Contains(t, header.Subject, "Prośba o dane opakowań", "the request's language")
	replyTo := replyToOf(t, sent[0].Data)
	require.True(t, strings.HasPrefix(replyTo, "replies+"), replyTo)

	assert.ErrorContains(t, m.mail("replies+nosuchtoken@ppwr.test", reply(t, "oferty@kartonex.example", "x@k", "a.pdf", []byte("x"))),
		"550", "an address that names no request is refused at once")

	pdf, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "mail", "reply-pdf.eml"))
	require.NoError(t, err)
	require.NoError(t, m.mail(replyTo, pdf))
	require.NoError(t, m.mail(replyTo, pdf), "the MTA delivers again when it missed our answer")
	require.NoError(t, m.mail(replyTo, reply(t, "Oferty <OFERTY@kartonex.example>", "eicar@kartonex.example", "wirus.pdf", eicar)))
	require.NoError(t, m.mail(replyTo, reply(t, "ktos@inny.example", "other@inny.example", "obca.txt", []byte("Nasza deklaracja."))))

	r := m.filed(t, request, 3)
	replies := r["replies"].([]any)
	require.Len(t, replies, 3, "a message delivered twice is recorded once")
	byID := map[string]map[string]any{}
	for _, rp := range replies {
		byID[rp.(map[string]any)["message_id"].(string)] = rp.(map[string]any)
	}
	first := byID["reply-pdf.1790000000@kartonex.example"]
	assert.Equal(t, "filed", first["status"])
	assert.Equal(t, "oferty@kartonex.example", first["sender"])
	assert.Nil(t, first["flag"])
	require.Len(t, first["documents"], 1)
	stranger := byID["other@inny.example"]
	assert.Equal(t, suppliers.FlagUnknownSender, stranger["flag"], "a sender who is not a recipient")
	assert.Equal(t, stranger["documents"], r["triage_documents"], "held for triage, not attached to the line")
	assert.Nil(t, byID["eicar@kartonex.example"]["flag"], "a recipient's address in another case and with a name")

	line := m.get(t, "/supplier-requests/"+request+"/lines")["data"].([]any)[0].(map[string]any)
	assert.Equal(t, "answered", line["status"])
	assert.ElementsMatch(t, append(first["documents"].([]any), byID["eicar@kartonex.example"]["documents"].([]any)...), line["documents"])

	v := m.processed(t, first["documents"].([]any)[0].(string))
	require.Equal(t, documents.ProcessingReviewRequired, v["processing_status"], "%v", v["processing_reason"])
	assert.Equal(t, "Deklaracja zgodności.pdf", v["file_name"])
	assert.EqualValues(t, 3, v["page_count"], "processed like an upload: pages extracted")
	doc := m.get(t, "/documents/"+v["document"].(string))
	assert.Equal(t, "supplier_declaration", doc["document_type"], "the line's document type")
	assert.Equal(t, item, doc["catalog_item"], "about the line's item")
	assert.Equal(t, party.JSON["id"], doc["party"], "from the request's supplier")
	virus := m.processed(t, byID["eicar@kartonex.example"]["documents"].([]any)[0].(string))
	assert.Equal(t, documents.ProcessingQuarantined, virus["processing_status"])

	review := func(body map[string]any) *apitest.Response {
		return m.post(t, m.tn, "/supplier-requests/"+request+"/lines/"+line["id"].(string)+"/review", body)
	}
	res = review(map[string]any{"decision": "accepted", "revision": r["revision"]})
	assert.Equal(t, "line_not_evidenced", res.ErrorCode(), "the document is not approved yet")
	require.Equal(t, http.StatusOK, decide(m.docs, t, m.tn, v, map[string]any{"decision": "approved", "revision": v["revision"]}).Code)
	res = review(map[string]any{"decision": "accepted", "revision": r["revision"]})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "completed", res.JSON["request"].(map[string]any)["status"])

	require.NoError(t, m.mail(replyTo, reply(t, "oferty@kartonex.example", "late@kartonex.example", "pozno.txt", []byte("Poprawka."))))
	r = m.filed(t, request, 4)
	late := r["replies"].([]any)[3].(map[string]any)
	assert.Equal(t, suppliers.FlagRequestClosed, late["flag"], "kept, but flagged: the request is closed")
	assert.Contains(t, r["triage_documents"], late["documents"].([]any)[0])
	assert.Contains(t, m.EventTypes(m.tn.Org), "supplier_request.reply_received")
}

// replyToOf is the Reply-To address of a sent message.
func replyToOf(t *testing.T, raw []byte) string {
	for _, line := range strings.Split(string(raw), "\r\n") {
		if v, ok := strings.CutPrefix(line, "Reply-To: "); ok {
			return v
		}
	}
	t.Fatal("no Reply-To")
	return ""
}
