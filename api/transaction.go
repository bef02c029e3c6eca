package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/gorm"

	"ppwr/models"
)

const (
	ctxTx          = "ppwr.tx"
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
// auditRecordOf so the pipeline can write the audit entry for them.
type auditRecord struct {
	Type string
	ID   uuid.UUID
}

// tx is the request's transaction on writes and the plain pool on reads.
func (s *Server) tx(c *gin.Context) *gorm.DB {
	if tx, ok := c.Get(ctxTx); ok {
		return tx.(*gorm.DB)
	}
	return s.DB.WithContext(c.Request.Context())
}

// setAuditRecord tells the pipeline which record the write changed.
func setAuditRecord(c *gin.Context, recordType string, id uuid.UUID) {
	c.Set(ctxAudit, auditRecord{Type: recordType, ID: id})
}

// recorded finishes a write of one record: it emits the event announcing
// it (through the outbox, in the request's transaction) and names the
// record for the audit entry.
func (s *Server) recorded(c *gin.Context, recordType string, id uuid.UUID, event string, data map[string]any) error {
	if _, err := models.EmitEvent(c.Request.Context(), s.tx(c), credentialOf(c).OrganizationID, event, data); err != nil {
		return err
	}
	setAuditRecord(c, recordType, id)
	return nil
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

// bufferedWriter holds the handler's response until the transaction has
// committed, so a client never sees a success that was rolled back.
type bufferedWriter struct {
	gin.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *bufferedWriter) WriteHeader(code int)              { w.status = code }
func (w *bufferedWriter) WriteHeaderNow()                   {}
func (w *bufferedWriter) Write(b []byte) (int, error)       { return w.body.Write(b) }
func (w *bufferedWriter) WriteString(s string) (int, error) { return w.body.WriteString(s) }
func (w *bufferedWriter) Status() int                       { return w.status }
func (w *bufferedWriter) Size() int                         { return w.body.Len() }
func (w *bufferedWriter) Written() bool                     { return w.body.Len() > 0 || w.status != 0 }

// writeTransaction runs a write operation in one database transaction:
// claim the Idempotency-Key (or replay its stored answer), run the handler,
// append the audit entry, store the answer for replays, commit, and only
// then send the response and run after-commit hooks. A handler error (4xx)
// rolls back its changes but keeps the stored answer; a 5xx or panic rolls
// back everything, so the same key may be retried.
func (s *Server) writeTransaction(op *Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		body, ok := readJSONBody(c)
		if !ok {
			return
		}
		key := c.GetHeader("Idempotency-Key")
		if op.Idempotent {
			if n := len(key); n < idempotencyKeyMin || n > idempotencyKeyMax {
				p := newProblem(http.StatusUnprocessableEntity, CodeIdempotencyKeyInvalid, "error.idempotency_key_invalid")
				p.Fields = []FieldError{Field("Idempotency-Key", "field.idempotency_key_length", idempotencyKeyMin, idempotencyKeyMax)}
				render(c, p)
				return
			}
		}
		cred := credentialOf(c)
		fingerprint := requestFingerprint(c, body)

		tx := s.DB.WithContext(c.Request.Context()).Begin()
		if tx.Error != nil {
			fail(c, tx.Error)
			return
		}
		committed := false
		out := c.Writer
		buf := &bufferedWriter{ResponseWriter: out}
		defer func() {
			c.Writer = out
			if !committed {
				tx.Rollback()
			}
		}()

		if op.Idempotent {
			stored, err := claimKey(c, tx, cred.KeyID, key, op.ID, fingerprint)
			if err != nil {
				fail(c, err)
				return
			}
			if stored != nil {
				replay(c, stored, op.ID, fingerprint)
				return
			}
		}
		if err := tx.Exec("SAVEPOINT handler").Error; err != nil {
			fail(c, err)
			return
		}
		c.Set(ctxTx, tx)
		c.Writer = buf
		c.Next()
		c.Writer = out
		status := buf.status
		if status == 0 {
			status = http.StatusOK
		}
		if status >= http.StatusInternalServerError {
			// Roll back before answering, so a retry finds the key unclaimed.
			tx.Rollback()
			committed = true
			flush(out, buf, status)
			return
		}
		if err := s.finishWrite(c, tx, op, status, buf, key, body); err != nil {
			fail(c, err)
			return
		}
		if err := tx.Commit().Error; err != nil {
			fail(c, err)
			return
		}
		committed = true
		flush(out, buf, status)
		runAfterCommit(c)
	}
}

// finishWrite records the outcome inside the transaction: on success the
// audit entry, on a handler error a rollback of the handler's changes, and
// for idempotent operations the stored answer.
func (s *Server) finishWrite(c *gin.Context, tx *gorm.DB, op *Operation, status int, buf *bufferedWriter, key string, body []byte) error {
	if status >= http.StatusBadRequest {
		if err := tx.Exec("ROLLBACK TO SAVEPOINT handler").Error; err != nil {
			return err
		}
	} else if err := s.appendAudit(c, tx, op, status, body); err != nil {
		return err
	}
	if !op.Idempotent {
		return nil
	}
	headers := map[string]any{}
	for _, h := range replayedHeaders {
		if v := buf.Header().Get(h); v != "" {
			headers[h] = v
		}
	}
	return models.CompleteIdempotencyKey(c.Request.Context(), tx, credentialOf(c).KeyID, key, status, headers, buf.body.Bytes())
}

// replayedHeaders are the response headers a replay must reproduce.
var replayedHeaders = []string{"Content-Type", "Location", "ETag"}

// claimKey claims the Idempotency-Key with a bounded wait: a concurrent
// duplicate waits for the first request to finish, but not forever.
func claimKey(c *gin.Context, tx *gorm.DB, keyID uuid.UUID, key, opID string, fingerprint []byte) (*models.IdempotencyRecord, error) {
	if err := tx.Exec("SET LOCAL lock_timeout = '10s'").Error; err != nil {
		return nil, err
	}
	stored, err := models.ClaimIdempotencyKey(c.Request.Context(), tx, keyID, key, opID, fingerprint)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "55P03" { // lock_not_available
		return nil, newProblem(http.StatusConflict, CodeIdempotencyInProgress, "error.idempotency_in_progress")
	}
	if err != nil {
		return nil, err
	}
	return stored, tx.Exec("SET LOCAL lock_timeout = DEFAULT").Error
}

// replay answers with a stored response, or 409 when the key was used for
// a different request.
func replay(c *gin.Context, stored *models.IdempotencyRecord, opID string, fingerprint []byte) {
	if !stored.SameRequest(opID, fingerprint) {
		render(c, newProblem(http.StatusConflict, CodeIdempotencyKeyReused, "error.idempotency_key_reused"))
		return
	}
	for k, v := range stored.ResponseHeaders {
		if s, ok := v.(string); ok {
			c.Header(k, s)
		}
	}
	c.Header("Idempotent-Replayed", "true")
	c.Status(stored.ResponseStatus)
	_, _ = c.Writer.Write(stored.ResponseBody)
	c.Abort()
}

func flush(w gin.ResponseWriter, buf *bufferedWriter, status int) {
	w.WriteHeader(status)
	_, _ = w.Write(buf.body.Bytes())
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

func (s *Server) appendAudit(c *gin.Context, tx *gorm.DB, op *Operation, status int, body []byte) error {
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
	if err := models.AppendAudit(c.Request.Context(), tx, entry); err != nil {
		slog.ErrorContext(c, "audit append failed", "request_id", requestIDOf(c), "error", err)
		return err
	}
	return nil
}
