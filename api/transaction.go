package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"ppwr/internal/database"
	"ppwr/models"
)

const (
	ctxWork        = "ppwr.work"
	ctxAfterCommit = "ppwr.afterCommit"
	ctxAudit       = "ppwr.audit"
	ctxRequestBody = "ppwr.requestBody"

	// maxJSONBody bounds JSON request bodies; uploads (multipart) are
	// streamed by their handlers and are not read here.
	maxJSONBody = 1 << 20

	idempotencyKeyMin = 16
	idempotencyKeyMax = 100
)

// auditRecord names the record a write touched; handlers set it with
// setAuditRecord so the pipeline can write the audit entry for them.
type auditRecord struct {
	Type string
	ID   uuid.UUID
}

// unitOfWork is one write request's database work: a transaction, begun
// only when the handler first asks for one, and the writes deferred to the
// request's final statement.
type unitOfWork struct {
	db       *gorm.DB // the pool, bound to the request's context
	tx       *gorm.DB
	deferred []database.Statement
	refusals []func(error) *Problem
}

func (u *unitOfWork) transaction() *gorm.DB {
	if u.tx == nil {
		u.tx = u.db.Begin()
	}
	return u.tx
}

// finish inserts the deferred rows and then rows in one statement and
// commits. A request whose handler needed no transaction costs this one
// round trip.
func (u *unitOfWork) finish(ctx context.Context, rows ...any) error {
	stmts := u.deferred
	for _, row := range rows {
		stmt, err := database.Insert(u.db, row)
		if err != nil {
			return err
		}
		stmts = append(stmts, stmt)
	}
	conn := u.db
	if u.tx != nil {
		conn = u.tx
	}
	if err := database.ExecTogether(ctx, conn, stmts...); err != nil {
		return err
	}
	if u.tx == nil {
		return nil
	}
	err := u.tx.Commit().Error
	u.tx = nil
	return err
}

func (u *unitOfWork) rollback() {
	if u.tx != nil {
		u.tx.Rollback()
		u.tx = nil
	}
}

// refusal is the answer a deferred write gave for the final statement's
// failure, or nil.
func (u *unitOfWork) refusal(err error) *Problem {
	for _, refuse := range u.refusals {
		if p := refuse(err); p != nil {
			return p
		}
	}
	return nil
}

func workOf(c *gin.Context) *unitOfWork {
	w, _ := c.Get(ctxWork)
	work, _ := w.(*unitOfWork)
	return work
}

// tx is the request's transaction on writes (begun on first use) and the
// plain pool on reads.
func (s *Server) tx(c *gin.Context) *gorm.DB {
	if work := workOf(c); work != nil {
		return work.transaction()
	}
	return s.DB.WithContext(c.Request.Context())
}

// deferInsert renders the insert of row at once, so the row is complete
// (ids, timestamps) for the response, and runs it after the handler, in
// one statement with the request's other deferred rows, its audit entry
// and its stored answer. Rows written this way cannot be read back in the
// request. A refuse function turns that statement's failure into the
// client's answer, such as a unique violation into a 422.
func (s *Server) deferInsert(c *gin.Context, row any, refuse ...func(error) *Problem) error {
	stmt, err := database.Insert(s.DB, row)
	if err != nil {
		return err
	}
	work := workOf(c)
	work.deferred = append(work.deferred, stmt)
	work.refusals = append(work.refusals, refuse...)
	return nil
}

// refuseDuplicate answers a unique violation of constraint with a 422
// naming field.
func refuseDuplicate(constraint string, field FieldError) func(error) *Problem {
	return func(err error) *Problem {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint {
			return Invalid(field)
		}
		return nil
	}
}

// setAuditRecord tells the pipeline which record the write changed.
func setAuditRecord(c *gin.Context, recordType string, id uuid.UUID) {
	c.Set(ctxAudit, auditRecord{Type: recordType, ID: id})
}

// recorded finishes a write of one record: it emits the event announcing
// it (through the outbox, in the request's transaction) and names the
// record for the audit entry.
func (s *Server) recorded(c *gin.Context, recordType string, id uuid.UUID, event string, data map[string]any) error {
	e, err := models.NewEvent(credentialOf(c).OrganizationID, event, data)
	if err != nil {
		return err
	}
	setAuditRecord(c, recordType, id)
	return s.deferInsert(c, e)
}

// afterCommit runs fn once the request's transaction has committed: the
// place to start workflows about records the transaction created.
func afterCommit(c *gin.Context, fn func()) {
	hooks, _ := c.Get(ctxAfterCommit)
	list, _ := hooks.([]func())
	c.Set(ctxAfterCommit, append(list, fn))
}

// requestBody is the raw JSON body the pipeline already read.
func requestBody(c *gin.Context) []byte {
	b, _ := c.Get(ctxRequestBody)
	body, _ := b.([]byte)
	return body
}

// bufferedWriter holds the handler's response, headers included, until
// the transaction has committed, so a client never sees a success that was
// rolled back, nor its headers on another answer.
type bufferedWriter struct {
	gin.ResponseWriter
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedWriter(w gin.ResponseWriter) *bufferedWriter {
	return &bufferedWriter{ResponseWriter: w, header: http.Header{}}
}

func (w *bufferedWriter) Header() http.Header               { return w.header }
func (w *bufferedWriter) WriteHeader(code int)              { w.status = code }
func (w *bufferedWriter) WriteHeaderNow()                   {}
func (w *bufferedWriter) Write(b []byte) (int, error)       { return w.body.Write(b) }
func (w *bufferedWriter) WriteString(s string) (int, error) { return w.body.WriteString(s) }
func (w *bufferedWriter) Size() int                         { return w.body.Len() }
func (w *bufferedWriter) Written() bool                     { return w.body.Len() > 0 || w.status != 0 }
func (w *bufferedWriter) Status() int {
	if w.status == 0 {
		return http.StatusOK
	}
	return w.status
}

// flush sends the buffered answer.
func (w *bufferedWriter) flush() {
	out := w.ResponseWriter.Header()
	for k, v := range w.header {
		out[k] = v
	}
	w.ResponseWriter.WriteHeader(w.Status())
	_, _ = w.ResponseWriter.Write(w.body.Bytes())
}

// writeRequest is what the pipeline knows of a write besides its context.
type writeRequest struct {
	op          *Operation
	key         string
	fingerprint []byte
	body        []byte
}

// answer is the stored form of the request's answer in buf.
func (r writeRequest) answer(c *gin.Context, buf *bufferedWriter) *models.IdempotencyRecord {
	headers := map[string]any{}
	for _, h := range replayedHeaders {
		if v := buf.Header().Get(h); v != "" {
			headers[h] = v
		}
	}
	return models.NewIdempotencyRecord(credentialOf(c).KeyID, r.key, r.op.ID, r.fingerprint, buf.Status(), headers, buf.body.Bytes())
}

// replayedHeaders are the response headers a replay must reproduce.
var replayedHeaders = []string{"Content-Type", "Location", "ETag"}

// writeTransaction runs a write operation as one unit: the handler reads
// and writes in a transaction begun on first use and defers the writes it
// need not read back; then one statement writes those, the audit entry and,
// with an Idempotency-Key, the stored answer, and the transaction commits.
// Only then is the response sent and are after-commit hooks run.
//
// Idempotency rests on that stored answer committing with the effects.
// A duplicate running concurrently fails on the key (or on a row the
// first request created), rolls back and replays the first answer, so
// effects never happen twice; a replay of a finished request likewise runs
// its handler and discards the result for the stored answer. A refusal
// (4xx) changes nothing and its answer is stored on its own; a 5xx stores
// nothing, so the same key may be retried.
func (s *Server) writeTransaction(op *Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		body, ok := readJSONBody(c)
		if !ok {
			return
		}
		req := writeRequest{op: op, key: c.GetHeader("Idempotency-Key"), body: body}
		if op.Idempotent {
			if n := len(req.key); n < idempotencyKeyMin || n > idempotencyKeyMax {
				p := newProblem(http.StatusUnprocessableEntity, CodeIdempotencyKeyInvalid, "error.idempotency_key_invalid")
				p.Fields = []FieldError{Field("Idempotency-Key", "field.idempotency_key_length", idempotencyKeyMin, idempotencyKeyMax)}
				render(c, p)
				return
			}
		}
		req.fingerprint = requestFingerprint(c, body)

		work := &unitOfWork{db: s.DB.WithContext(c.Request.Context())}
		c.Set(ctxWork, work)
		out := c.Writer
		buf := newBufferedWriter(out)
		defer func() {
			c.Writer = out
			work.rollback()
		}()
		c.Writer = buf
		c.Next()
		c.Writer = out
		switch status := buf.Status(); {
		case status >= http.StatusInternalServerError:
			work.rollback()
			buf.flush()
		case status >= http.StatusBadRequest:
			work.rollback()
			s.refuse(c, req, buf)
		default:
			s.commit(c, work, req, buf)
		}
	}
}

// commit finishes a successful handler's unit of work and answers.
func (s *Server) commit(c *gin.Context, work *unitOfWork, req writeRequest, buf *bufferedWriter) {
	rows := []any{s.auditEntry(c, req.op, buf.Status(), req.body)}
	if req.op.Idempotent {
		rows = append(rows, req.answer(c, buf))
	}
	err := work.finish(c.Request.Context(), rows...)
	if err == nil {
		buf.flush()
		runAfterCommit(c)
		return
	}
	work.rollback()
	if req.op.Idempotent && s.replayStored(c, req) {
		return
	}
	if p := work.refusal(err); p != nil {
		refused := newBufferedWriter(c.Writer)
		c.Writer = refused
		render(c, p)
		c.Writer = refused.ResponseWriter
		s.refuse(c, req, refused)
		return
	}
	fail(c, err)
}

// refuse answers a refusal, first storing it for replays; if an answer for
// the key is stored already, that one is replayed instead.
func (s *Server) refuse(c *gin.Context, req writeRequest, buf *bufferedWriter) {
	if req.op.Idempotent {
		stored, err := models.KeepIdempotencyRecord(c.Request.Context(), s.DB, req.answer(c, buf))
		if err != nil {
			fail(c, err)
			return
		}
		if !stored && s.replayStored(c, req) {
			return
		}
	}
	buf.flush()
}

// replayStored answers with the key's stored answer, if there is one.
func (s *Server) replayStored(c *gin.Context, req writeRequest) bool {
	stored, err := models.FindIdempotencyRecord(c.Request.Context(), s.DB, credentialOf(c).KeyID, req.key)
	switch {
	case err != nil:
		fail(c, err)
	case stored == nil:
		return false
	case !stored.SameRequest(req.op.ID, req.fingerprint):
		render(c, newProblem(http.StatusConflict, CodeIdempotencyKeyReused, "error.idempotency_key_reused"))
	default:
		for k, v := range stored.ResponseHeaders {
			if s, ok := v.(string); ok {
				c.Header(k, s)
			}
		}
		c.Header("Idempotent-Replayed", "true")
		c.Status(stored.ResponseStatus)
		_, _ = c.Writer.Write(stored.ResponseBody)
	}
	return true
}

func runAfterCommit(c *gin.Context) {
	hooks, _ := c.Get(ctxAfterCommit)
	list, _ := hooks.([]func())
	for _, fn := range list {
		fn()
	}
}

// readJSONBody reads a bounded JSON body and puts it back for the handler.
// Multipart bodies are left to stream.
func readJSONBody(c *gin.Context) ([]byte, bool) {
	if c.Request.Body == nil || c.ContentType() == "multipart/form-data" {
		return nil, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			render(c, newProblem(http.StatusRequestEntityTooLarge, CodeRequestTooLarge, "error.request_too_large", maxJSONBody))
			return nil, false
		}
		fail(c, err)
		return nil, false
	}
	// Syntax errors are answered here, once for every operation, so no
	// handler can turn a malformed body into a 500.
	if len(bytes.TrimSpace(body)) > 0 && !json.Valid(body) {
		render(c, newProblem(http.StatusUnprocessableEntity, CodeInvalidJSON, "error.invalid_json"))
		return nil, false
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	c.Set(ctxRequestBody, body)
	return body, true
}

// requestFingerprint identifies a request for idempotency: the same key may
// only be replayed for the same method, path, query and body.
func requestFingerprint(c *gin.Context, body []byte) []byte {
	h := sha256.New()
	h.Write([]byte(c.Request.Method + " " + c.Request.URL.RequestURI() + "\n"))
	h.Write(body)
	return h.Sum(nil)
}

// auditEntry is the write's audit entry, naming the record the handler
// set with setAuditRecord.
func (s *Server) auditEntry(c *gin.Context, op *Operation, status int, body []byte) *models.AuditEntry {
	cred := credentialOf(c)
	entry := &models.AuditEntry{
		OrganizationID: cred.OrganizationID,
		ActorUserID:    &cred.UserID,
		APIKeyID:       &cred.KeyID,
		ActorKind:      models.ActorAPIKey,
		Operation:      op.ID,
		Method:         c.Request.Method,
		Path:           c.Request.URL.Path,
		Status:         &status,
		RequestID:      requestIDOf(c),
		Summary:        redactedSummary(c.Request.URL.Query(), body),
	}
	if rec, ok := c.Get(ctxAudit); ok {
		r := rec.(auditRecord)
		entry.RecordType, entry.RecordID = r.Type, &r.ID
	}
	return entry
}
