package suppliers_test

import (
	"bytes"
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/testsuite"

	"ppwr/activities"
	"ppwr/api/apitest"
	"ppwr/domain"
	"ppwr/domain/suppliers"
	"ppwr/internal/smtpsink"
	"ppwr/internal/testenv"
	"ppwr/worker"
	"ppwr/workflows"
)

// mailing is the API with a worker that sends mail to a sink.
type mailing struct {
	*supplierFixture
	sink  *smtpsink.Sink
	relay *worker.Relay
}

func newMailing(t *testing.T) *mailing {
	sink, err := smtpsink.Start("127.0.0.1:0", "")
	require.NoError(t, err)
	t.Cleanup(func() { _ = sink.Close() })
	a := apitest.New(t, apitest.WithServices())
	queue := "ppwr-suppliers-" + uuid.NewString()
	c := testenv.Temporal(t)
	w := worker.New(worker.Deps{DB: a.DB, Temporal: c, TaskQueue: queue, SMTPURL: "smtp://" + sink.Addr(),
		MailFrom: "ppwr@ppwr.test", MailReplyAddress: "replies@ppwr.test"})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return &mailing{supplierFixture: &supplierFixture{API: a, tn: a.NewTenant(apitest.TenantSpec{})}, sink: sink,
		relay: &worker.Relay{DB: a.DB, Temporal: c, TaskQueue: queue}}
}

// draft creates a Polish request with two lines and answers it.
func (m *mailing) draft(t *testing.T) map[string]any { return m.draftIn(t, "pl") }

// draftIn creates the request in a language.
func (m *mailing) draftIn(t *testing.T, language string) map[string]any {
	party, item := m.party(t, m.tn, "supplier"), m.item(t, m.tn)
	return m.created(t, m.tn, "/supplier-requests", map[string]any{"party": party, "language": language, "due_on": tomorrow(),
		"message": "Dzień dobry, prosimy o dane.", "lines": []map[string]any{
			{"item": item, "document_type": "supplier_declaration"},
			{"item": item, "measurement_codes": []string{"MASS_G", "HEIGHT_MM"}},
		}})
}

// bodies are the decoded text parts of a message.
func bodies(t *testing.T, raw []byte) (*netmail.Message, []string) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	require.NoError(t, err)
	_, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	require.NoError(t, err)
	var out []string
	parts := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := parts.NextPart()
		if err == io.EOF {
			return msg, out
		}
		require.NoError(t, err)
		b, _ := io.ReadAll(p)
		out = append(out, string(b))
	}
}

func TestSendingEmailsTheSupplierInTheRequestsLanguage(t *testing.T) {
	m := newMailing(t)
	r := m.draft(t)
	path := "/supplier-requests/" + r["id"].(string) + "/send"
	assert.Equal(t, http.StatusConflict, m.post(t, m.tn, path, map[string]any{"revision": 9}).Code)
	res := m.post(t, m.tn, path, map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	assert.Equal(t, "sent", res.JSON["status"])
	assert.Equal(t, "sending", res.JSON["delivery_status"])
	res = m.post(t, m.tn, path, map[string]any{"revision": 2})
	assert.Equal(t, "supplier_request_not_sendable", res.ErrorCode(), "a request is sent once unless its delivery failed")

	_, err := m.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	got, err := m.sink.WaitFor(ctx, 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"oferty@kartonex.example"}, got[0].To)
	msg, parts := bodies(t, got[0].Data)
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	assert.Contains(t, subject, "Prośba o dane opakowań")
	assert.True(t, strings.HasPrefix(msg.Header.Get("Reply-To"), "replies+"), msg.Header.Get("Reply-To"))
	require.Len(t, parts, 2)
	assert.Contains(t, parts[0], "Dzień dobry, prosimy o dane.")
	assert.Contains(t, parts[0], "1. Pudełko")
	assert.Contains(t, parts[0], "dokument: Deklaracja dostawcy")
	assert.Contains(t, parts[0], "2. Pudełko")
	assert.Contains(t, parts[0], "wartości: masa w gramach, wysokość w milimetrach", "the values are named in words")
	for _, part := range parts {
		assert.NotContains(t, part, "MASS_G")
		assert.NotContains(t, part, "HEIGHT_MM")
	}
	assert.Contains(t, parts[1], "<ol>")

	require.Eventually(t, func() bool {
		return m.get(t, "/supplier-requests/"+r["id"].(string))["delivery_status"] == "sent"
	}, 10*time.Second, 50*time.Millisecond)
	sent := m.get(t, "/supplier-requests/"+r["id"].(string))
	assert.Equal(t, strings.Trim(msg.Header.Get("Message-ID"), "<>"), sent["message_id"])

	// An English request names them in English.
	en := m.draftIn(t, "en")
	require.Equal(t, http.StatusOK, m.post(t, m.tn, "/supplier-requests/"+en["id"].(string)+"/send", map[string]any{"revision": 1}).Code)
	_, err = m.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	wait, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	got, err = m.sink.WaitFor(wait, 2)
	require.NoError(t, err)
	_, parts = bodies(t, got[1].Data)
	require.Len(t, parts, 2)
	assert.Contains(t, parts[0], "values: mass in grams, height in millimetres")
	assert.Contains(t, parts[1], "values: mass in grams, height in millimetres")
	for _, part := range parts {
		assert.NotContains(t, part, "MASS_G")
		assert.NotContains(t, part, "HEIGHT_MM")
	}
}

// A worker that died after the SMTP server took the message leaves its
// delivery in flight: the retry records it as sent and sends nothing.
func TestADeliveryInFlightIsNotSentAgain(t *testing.T) {
	m := newMailing(t)
	r := m.draft(t)
	res := m.post(t, m.tn, "/supplier-requests/"+r["id"].(string)+"/send", map[string]any{"revision": 1})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	id := uuid.MustParse(r["id"].(string))
	require.NoError(t, m.DB.Create(&suppliers.SupplierDelivery{ID: domain.NewID(), OrganizationID: m.tn.Org, RequestID: id, Send: 1,
		MessageID: "died-mid-send@ppwr.test", Outcome: suppliers.AttemptInFlight, StartedAt: time.Now()}).Error)

	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Suppliers{DB: m.DB, SMTPURL: "smtp://" + m.sink.Addr(), From: "ppwr@ppwr.test", ReplyAddress: "replies@ppwr.test"})
	_, err := env.ExecuteActivity((&activities.Suppliers{}).SendRequestEmail, suppliers.RequestInput{Org: domain.OrgOf(m.tn.Org), RequestID: id, Send: 1})
	require.NoError(t, err)
	time.Sleep(200 * time.Millisecond)
	assert.Empty(t, m.sink.Messages(), "no second message")
	got := m.get(t, "/supplier-requests/"+r["id"].(string))
	assert.Equal(t, "sent", got["delivery_status"])
	assert.Equal(t, "died-mid-send@ppwr.test", got["message_id"])
	var d suppliers.SupplierDelivery
	require.NoError(t, m.DB.Take(&d, "request_id = ?", id).Error)
	assert.Equal(t, suppliers.AttemptUnconfirmed, d.Outcome)
}

// Cancelling a sent request ends its send workflow's wait for the due
// date: the close workflow signals it.
func TestCancellingEndsTheSendWorkflow(t *testing.T) {
	m := newMailing(t)
	r := m.draft(t)
	id := r["id"].(string)
	require.Equal(t, http.StatusOK, m.post(t, m.tn, "/supplier-requests/"+id+"/send", map[string]any{"revision": 1}).Code)
	_, err := m.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = m.sink.WaitFor(ctx, 1)
	require.NoError(t, err)
	sendID := "supplier-request/" + id + "/send"
	desc, err := m.relay.Temporal.DescribeWorkflowExecution(ctx, sendID, "")
	require.NoError(t, err)
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, desc.WorkflowExecutionInfo.Status, "waiting for the due date")

	res := m.post(t, m.tn, "/supplier-requests/"+id+"/cancel", map[string]any{"revision": 2})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())
	_, err = m.relay.StartWorkflows(context.Background())
	require.NoError(t, err)
	var delivered bool
	require.NoError(t, m.relay.Temporal.GetWorkflow(ctx, sendID, "").Get(ctx, &delivered))
	assert.True(t, delivered)
	assert.Empty(t, m.get(t, "/issues?kind=supplier_request_overdue")["data"])
}

// Several workers relay starts at once, so a request's close can be
// started before its first send: one relay holds the send's row, slow to
// start it, while another takes the close's, recorded later. The close's
// signal then finds no run to stop, and the send, once its e-mail is
// delivered, ends closed all the same instead of waiting for the due date.
func TestACloseStartedBeforeTheSendStillEndsIt(t *testing.T) {
	m := newMailing(t)
	id := m.draft(t)["id"].(string)
	require.Equal(t, http.StatusOK, m.post(t, m.tn, "/supplier-requests/"+id+"/send", map[string]any{"revision": 1}).Code)
	res := m.post(t, m.tn, "/supplier-requests/"+id+"/cancel", map[string]any{"revision": 2})
	require.Equal(t, http.StatusOK, res.Code, res.Body.String())

	sendID := "supplier-request/" + id + "/send"
	apitest.StartEndFirst(t, m.relay, sendID, "supplier-request/"+id+"/close")
	var delivered bool
	apitest.RequireOutcome(t, m.relay.Temporal, sendID, workflows.OutcomeClosed, &delivered)
	assert.True(t, delivered)
	assert.Empty(t, m.get(t, "/issues?kind=supplier_request_overdue")["data"])
	assert.Empty(t, m.sink.Messages(), "a request cancelled before its e-mail left sends none")
}
