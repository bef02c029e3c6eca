package suppliers

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
	a "ppwr/internal/access"
	"ppwr/internal/input"
)

// requests declares supplier requests and their lines.
func (h *handlers) requests() kit.Area {
	request := kit.Org + "/supplier-requests/{recordId}"
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listSupplierRequests", kit.Org+"/supplier-requests", tag, a.SupplierRequestsRead, a.SupplierRequestsView).
				Handle(kit.Query(h.listRequests), kit.ListOK("SupplierRequest")),
			kit.Get("getSupplierRequest", request, tag, a.SupplierRequestsRead, a.SupplierRequestsView).
				Handle(kit.Do(h.getRequest), kit.OK(kit.Ref("SupplierRequestDetail"))),
			kit.List("listSupplierRequestLines", kit.Org+"/supplier-requests/{requestId}/lines", tag, a.SupplierRequestsRead, a.SupplierRequestsView).
				Handle(kit.Do(h.listLines), kit.ListOK("SupplierRequestLine")),
			kit.Post("createSupplierRequest", kit.Org+"/supplier-requests", tag, a.SupplierRequestsWrite, a.SupplierRequestsCreate).
				Answers(suppliers.ErrPartyNotSupplier).
				Handle(kit.JSON(h.createRequest), kit.CreatedResponse(kit.Ref("SupplierRequest"), "getSupplierRequest")),
			kit.Post("sendSupplierRequest", request+"/send", tag, a.SupplierRequestsWrite, a.SupplierRequestsSend).
				Answers(suppliers.ErrNotSendable, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.sendRequest), kit.OK(kit.Ref("SupplierRequest"))),
			kit.Post("cancelSupplierRequest", request+"/cancel", tag, a.SupplierRequestsWrite, a.SupplierRequestsSend).
				Answers(suppliers.ErrRequestClosed, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.cancelRequest), kit.OK(kit.Ref("SupplierRequest"))),
			kit.Post("reviewSupplierRequestLine", request+"/lines/{lineId}/review", tag, a.SupplierRequestsWrite, a.EvidenceReviewPerm).
				Answers(suppliers.ErrRequestClosed, suppliers.ErrLineDecided, suppliers.ErrLineNotEvidenced, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.reviewLine), kit.OK(kit.Ref("SupplierRequestLineReview"))),
		},
		Models: []kit.Model{
			kit.ModelOf[requestJSON]("SupplierRequest"), kit.ModelOf[requestDetailJSON]("SupplierRequestDetail"),
			kit.ModelOf[replyJSON]("SupplierReply"), kit.ModelOf[lineJSON]("SupplierRequestLine"),
			kit.ModelOf[lineReviewJSON]("SupplierRequestLineReview"),
		},
	}
}

type requestJSON struct {
	ID             uuid.UUID  `json:"id"`
	Party          uuid.UUID  `json:"party"`
	Recipients     []string   `json:"recipients"`
	Language       string     `json:"language"`
	DueOn          string     `json:"due_on" schema:"date"`
	Message        string     `json:"message"`
	Status         string     `json:"status"`
	DeliveryStatus string     `json:"delivery_status"`
	DeliveryError  *string    `json:"delivery_error"`
	MessageID      *string    `json:"message_id"`
	LineCount      int        `json:"line_count"`
	Revision       int        `json:"revision"`
	SentAt         *time.Time `json:"sent_at"`
	CompletedAt    *time.Time `json:"completed_at"`
	CancelledAt    *time.Time `json:"cancelled_at"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

func (requestJSON) Declare(s *kit.Shape) {
	s.Enum("language", "pl", "en")
	s.Enum("status", suppliers.RequestStatuses...)
	s.Enum("delivery_status", suppliers.DeliveryStatuses...)
}

func requestToJSON(r *suppliers.SupplierRequest) requestJSON {
	return requestJSON{ID: r.ID, Party: r.PartyID, Recipients: r.Recipients, Language: r.Language, DueOn: *kit.Day(&r.DueOn),
		Message: r.Message, Status: r.Status, DeliveryStatus: r.DeliveryStatus, DeliveryError: r.DeliveryError,
		MessageID: r.MessageID, LineCount: r.LineCount, Revision: r.Revision, SentAt: kit.UTC(r.SentAt),
		CompletedAt: kit.UTC(r.CompletedAt), CancelledAt: kit.UTC(r.CancelledAt), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

func (h *handlers) createRequest(c *gin.Context, in *suppliers.SupplierRequestCreate) error {
	r, _, err := suppliers.CreateSupplierRequest(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, r.ID, requestToJSON(r))
}

// requestQuery filters requests.
type requestQuery struct {
	input.Errors
	Status input.Opt[string]
	Party  input.Opt[uuid.UUID]
	Item   input.Opt[uuid.UUID]
}

func (q *requestQuery) Declare(f *input.Fields) {
	f.Enum("status", &q.Status, input.Enum{Values: suppliers.RequestStatuses})
	f.Ref("party", &q.Party, input.Ref{})
	f.Ref("item", &q.Item, input.Ref{})
}

func (h *handlers) listRequests(c *gin.Context, q *requestQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&suppliers.SupplierRequest{})
	db = kit.Filter(kit.Filter(db, "status", q.Status), "party_id", q.Party)
	if q.Item.Set() {
		db = db.Where("id IN (?)", h.DB.Model(&suppliers.SupplierRequestLine{}).Select("request_id").Where("catalog_item_id = ?", q.Item.Value))
	}
	return kit.Paginate(c, db, kit.NewestFirst, requestToJSON)
}

// requestDetailJSON adds to a request what came back: the replies
// received by e-mail and the document versions held at the request for
// triage (no line could be told, or the reply is flagged).
type requestDetailJSON struct {
	requestJSON
	Replies         []replyJSON `json:"replies"`
	TriageDocuments []uuid.UUID `json:"triage_documents"`
}

type replyJSON struct {
	ID           uuid.UUID     `json:"id"`
	Sender       *string       `json:"sender"`
	EnvelopeFrom string        `json:"envelope_from"`
	Subject      *string       `json:"subject"`
	MessageID    *string       `json:"message_id"`
	SizeBytes    int64         `json:"size_bytes"`
	ReceivedAt   time.Time     `json:"received_at"`
	Status       string        `json:"status"`
	Error        *string       `json:"error"`
	Flag         *string       `json:"flag"`
	FiledAt      *time.Time    `json:"filed_at"`
	Documents    []uuid.UUID   `json:"documents"`
	Skipped      []skippedJSON `json:"skipped"`
}

func (replyJSON) Declare(s *kit.Shape) {
	s.Enum("status", suppliers.ReplyReceived, suppliers.ReplyFiled, suppliers.ReplyFailed)
	s.Enum("flag", suppliers.ReplyFlags...)
}

// skippedJSON is an attachment a reply skipped, with the reasons it may
// have.
type skippedJSON struct{ suppliers.SkippedAttachment }

func (skippedJSON) Declare(s *kit.Shape) {
	s.Enum("reason", suppliers.SkipTooLarge, suppliers.SkipEmpty)
}

// getRequest answers the request with its replies and the files waiting
// for triage.
func (h *handlers) getRequest(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	r, err := domain.Find[suppliers.SupplierRequest](ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	replies, files, err := suppliers.RequestReplies(ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	out := requestDetailJSON{requestJSON: requestToJSON(r), Replies: make([]replyJSON, len(replies)), TriageDocuments: []uuid.UUID{}}
	filed := map[uuid.UUID][]uuid.UUID{}
	for _, f := range files {
		if f.ReplyID != nil {
			filed[*f.ReplyID] = append(filed[*f.ReplyID], f.DocumentVersionID)
		}
		if f.LineID == nil {
			out.TriageDocuments = append(out.TriageDocuments, f.DocumentVersionID)
		}
	}
	for i, rp := range replies {
		out.Replies[i] = replyJSON{ID: rp.ID, Sender: rp.Sender, EnvelopeFrom: rp.EnvelopeFrom, Subject: rp.Subject, MessageID: rp.MessageID,
			SizeBytes: rp.SizeBytes, ReceivedAt: rp.ReceivedAt.UTC(), Status: rp.Status, Error: rp.Error, Flag: rp.Flag,
			FiledAt: kit.UTC(rp.FiledAt), Documents: nonNil(filed[rp.ID]), Skipped: make([]skippedJSON, len(rp.Skipped))}
		for j, s := range rp.Skipped {
			out.Replies[i].Skipped[j] = skippedJSON{s}
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// sendRequest marks the request sent, and the command records in the
// same unit the start of the workflow that e-mails it: the answer comes
// before the e-mail leaves, and delivery_status tells how it went.
func (h *handlers) sendRequest(c *gin.Context, in *domain.RevisionRequired) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	r, err := suppliers.SendSupplierRequest(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, requestToJSON(r))
	return nil
}

func (h *handlers) cancelRequest(c *gin.Context, in *domain.RevisionRequired) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	r, err := suppliers.CancelSupplierRequest(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, requestToJSON(r))
	return nil
}

type lineJSON struct {
	ID               uuid.UUID   `json:"id"`
	Number           int         `json:"number"`
	Item             uuid.UUID   `json:"item"`
	Component        *uuid.UUID  `json:"component"`
	DocumentType     *string     `json:"document_type"`
	MeasurementCodes []string    `json:"measurement_codes"`
	Note             *string     `json:"note"`
	Status           string      `json:"status"`
	ReviewReason     *string     `json:"review_reason"`
	ReviewedAt       *time.Time  `json:"reviewed_at"`
	Documents        []uuid.UUID `json:"documents"`
	Proposals        []uuid.UUID `json:"proposals"`
}

func (lineJSON) Declare(s *kit.Shape) {
	s.Enum("measurement_codes", documents.EvidenceCodeNames()...)
	s.Enum("status", suppliers.LineStatuses...)
}

// listLines pages through a request's lines, each with the document
// versions that answer it and the evidence proposals made from them.
func (h *handlers) listLines(c *gin.Context) error {
	id, err := kit.PathID(c, "requestId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := domain.Find[suppliers.SupplierRequest](ctx, h.DB, org, id); err != nil {
		return err
	}
	answers, err := suppliers.LineAnswers(ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	db := domain.Tenant(ctx, h.DB, org).Model(&suppliers.SupplierRequestLine{}).Where("request_id = ?", id)
	return kit.Paginate(c, db, kit.OldestFirst, func(l *suppliers.SupplierRequestLine) lineJSON { return lineToJSON(l, answers[l.ID]) })
}

func lineToJSON(l *suppliers.SupplierRequestLine, a suppliers.LineAnswer) lineJSON {
	return lineJSON{ID: l.ID, Number: l.Number, Item: l.CatalogItemID, Component: l.ComponentID, DocumentType: l.DocumentType,
		MeasurementCodes: l.MeasurementCodes, Note: l.Note, Status: l.Status, ReviewReason: l.ReviewReason,
		ReviewedAt: kit.UTC(l.ReviewedAt), Documents: nonNil(a.Documents), Proposals: nonNil(a.Proposals)}
}

type lineReviewJSON struct {
	Line    lineJSON    `json:"line"`
	Request requestJSON `json:"request"`
}

// reviewLine decides a line and answers it with the request, whose
// revision the next review sends.
func (h *handlers) reviewLine(c *gin.Context, in *suppliers.LineReview) error {
	requestID, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	lineID, err := kit.PathID(c, "lineId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	r, l, err := suppliers.ReviewLine(w, requestID, lineID, in)
	if err != nil {
		return err
	}
	answers, err := suppliers.LineAnswers(c.Request.Context(), w.Tx(), kit.OrgID(c), requestID)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, lineReviewJSON{Line: lineToJSON(l, answers[l.ID]), Request: requestToJSON(r)})
	return nil
}

func nonNil(ids []uuid.UUID) []uuid.UUID {
	if ids == nil {
		return []uuid.UUID{}
	}
	return ids
}
