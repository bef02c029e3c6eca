package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/internal/work"
)

const (
	// maxJSONBody bounds JSON request bodies; uploads (multipart) are
	// streamed by their handlers and are not read here.
	maxJSONBody = 1 << 20

	// Idempotency-Key length, in characters (the spec's limit).
	idempotencyKeyMin = 16
	idempotencyKeyMax = 100

	// multipartForm is the media type of uploads.
	multipartForm = "multipart/form-data"
)

// readBody reads a write's JSON body once, bounded, into the request
// state. A body in another media type answers 415 and one that is not JSON
// 422, once for every operation, so no handler can turn either into a 500.
// Multipart uploads are left to stream.
func readBody(op *kit.Operation) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.Body == nil || (op.Request != nil && op.Request.ContentType == multipartForm) {
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(c.Writer, c.Request.Body, maxJSONBody))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				kit.Render(c, kit.NewProblem(http.StatusRequestEntityTooLarge, kit.CodeRequestTooLarge, "error.request_too_large", maxJSONBody))
				return
			}
			kit.Fail(c, err)
			return
		}
		if len(bytes.TrimSpace(body)) == 0 {
			return
		}
		if !isJSON(c.GetHeader("Content-Type")) {
			kit.Render(c, kit.NewProblem(http.StatusUnsupportedMediaType, kit.CodeUnsupportedMediaType, "error.unsupported_media_type"))
			return
		}
		if !json.Valid(body) {
			kit.Render(c, kit.NewProblem(http.StatusUnprocessableEntity, kit.CodeInvalidJSON, "error.invalid_json"))
			return
		}
		kit.State(c).Body = body
	}
}

// isJSON accepts application/json and the +json media types.
func isJSON(contentType string) bool {
	if contentType == "application/json" {
		return true // as nearly every client sends it: no parse, no map of parameters
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"))
}

// writeRequest is what the pipeline knows of a write besides its context.
type writeRequest struct {
	op          *kit.Operation
	key         string
	fingerprint []byte
}

// validKey reports whether an Idempotency-Key is 16 to 100 characters of
// UTF-8 text, as the database keeps it.
func validKey(key string) bool {
	n := utf8.RuneCountInString(key)
	return utf8.ValidString(key) && !strings.ContainsRune(key, 0) && n >= idempotencyKeyMin && n <= idempotencyKeyMax
}

// invalidKey refuses a write whose Idempotency-Key is missing or
// malformed; both are idempotency_key_invalid, and the message says
// which.
func invalidKey(key string) *kit.Problem {
	if strings.TrimSpace(key) == "" {
		p := kit.NewProblem(http.StatusUnprocessableEntity, kit.CodeIdempotencyKeyInvalid, "error.idempotency_key_missing", idempotencyKeyMin, idempotencyKeyMax)
		p.Fields = append(p.Fields, kit.Field("Idempotency-Key", "field.required"))
		return p
	}
	p := kit.NewProblem(http.StatusUnprocessableEntity, kit.CodeIdempotencyKeyInvalid, "error.idempotency_key_invalid")
	p.Fields = append(p.Fields, kit.Field("Idempotency-Key", "field.idempotency_key_length", idempotencyKeyMin, idempotencyKeyMax))
	return p
}

// unitOfWork runs a write as one unit of work (internal/work) acting for
// the request's key: the handler reads and writes in a transaction begun
// on first use and defers the rows it need not read back; then one
// statement writes those, the audit entry and, with an Idempotency-Key,
// the stored answer, and the transaction commits. Only then is the
// response sent.
//
// Idempotency rests on that stored answer committing with the effects.
// A duplicate running concurrently fails on the key (or on a row the
// first request created), rolls back and replays the first answer, so
// effects never happen twice; a replay of a finished request likewise runs
// its handler and discards the result for the stored answer. A refusal
// (4xx) changes nothing and its answer is stored on its own; a 5xx stores
// nothing, so the same key may be retried.
//
// An upload's handler streams its file to the object store, so a retried
// upload must not store it again: when its key has an answer stored, the
// handler reads the form only to fingerprint it (kit.ReadUpload), and the
// stored answer is replayed, or the key's reuse refused, by comparing
// that fingerprint (the form's fields and the file's SHA-256).
func (s *Server) unitOfWork(op *kit.Operation) gin.HandlerFunc {
	upload := op.Idempotent && op.Request != nil && op.Request.ContentType == multipartForm
	return func(c *gin.Context) {
		st := kit.State(c)
		req := writeRequest{op: op, key: c.GetHeader("Idempotency-Key")}
		if op.Idempotent && !validKey(req.key) {
			kit.Render(c, invalidKey(req.key))
			return
		}
		if upload {
			stored, err := domain.FindIdempotencyRecord(c.Request.Context(), s.DB, st.Credential.KeyID, req.key)
			if err != nil {
				kit.Fail(c, err)
				return
			}
			st.AnswerStored = stored != nil
		}
		cred := st.Credential
		st.Work = work.New(c.Request.Context(), s.DB, work.Actor{
			Kind: work.ActorAPIKey, OrganizationID: cred.OrganizationID, UserID: &cred.UserID, APIKeyID: &cred.KeyID, Reference: st.ID,
		})
		out := c.Writer
		buf := newBufferedWriter(out)
		defer func() {
			c.Writer = out
			st.Work.Rollback()
		}()
		c.Writer = buf
		c.Next()
		c.Writer = out
		// An upload's form is fingerprinted once its handler has read it.
		req.fingerprint = requestFingerprint(c)
		switch status := buf.Status(); {
		case st.AnswerStored && st.Form != nil && s.replayStored(c, req):
			// Replayed, or refused as a reuse of the key.
		case st.AnswerStored:
			// Refused before its form was read whole (or the stored
			// answer expired meanwhile): that refusal, not stored, as
			// the key has its answer already.
			buf.flush()
		case status >= http.StatusInternalServerError:
			st.Work.Rollback()
			buf.flush()
		case status >= http.StatusBadRequest:
			st.Work.Rollback()
			s.refuse(c, req, buf)
		default:
			s.commit(c, req, buf)
		}
	}
}

// commit finishes a successful handler's unit of work and answers.
func (s *Server) commit(c *gin.Context, req writeRequest, buf *bufferedWriter) {
	st := kit.State(c)
	status := buf.Status()
	entry := domain.AuditEntry{
		Operation: req.op.ID, Method: c.Request.Method, Path: c.Request.URL.Path, Status: &status,
		Summary: redactedSummary(c.Request.URL, st.Body),
	}
	var extra []any
	if req.op.Idempotent {
		extra = append(extra, req.answer(c, buf))
	}
	err := domain.Commit(st.Work, entry, extra...)
	if err == nil {
		buf.flush()
		return
	}
	st.Work.Rollback()
	kit.DiscardUpload(c)
	if req.op.Idempotent && s.replayStored(c, req) {
		return
	}
	if p := kit.ProblemOf(err); p != nil {
		refused := newBufferedWriter(c.Writer)
		c.Writer = refused
		kit.Render(c, p)
		c.Writer = refused.ResponseWriter
		s.refuse(c, req, refused)
		return
	}
	kit.Fail(c, err)
}

// refuse answers a refusal, first storing it for replays; if an answer for
// the key is stored already, that one is replayed instead.
func (s *Server) refuse(c *gin.Context, req writeRequest, buf *bufferedWriter) {
	if req.op.Idempotent {
		stored, err := domain.KeepIdempotencyRecord(c.Request.Context(), s.DB, req.answer(c, buf))
		if err != nil {
			kit.Fail(c, err)
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
	stored, err := domain.FindIdempotencyRecord(c.Request.Context(), s.DB, kit.Credential(c).KeyID, req.key)
	switch {
	case err != nil:
		kit.Fail(c, err)
	case stored == nil:
		return false
	case !stored.SameRequest(req.op.ID, req.fingerprint):
		kit.Render(c, kit.NewProblem(http.StatusConflict, kit.CodeIdempotencyKeyReused, "error.idempotency_key_reused"))
	default:
		for k, v := range stored.ResponseHeaders.Data() {
			c.Header(k, v)
		}
		c.Header("Idempotent-Replayed", "true")
		c.Status(stored.ResponseStatus)
		_, _ = c.Writer.Write(stored.ResponseBody)
	}
	return true
}

// answer is the stored form of the request's answer in buf.
func (r writeRequest) answer(c *gin.Context, buf *bufferedWriter) *domain.IdempotencyRecord {
	headers := map[string]string{}
	for _, h := range replayedHeaders {
		if v := buf.Header().Get(h); v != "" {
			headers[h] = v
		}
	}
	return domain.NewIdempotencyRecord(kit.Credential(c).KeyID, r.key, r.op.ID, r.fingerprint, buf.Status(), headers, buf.body.Bytes())
}

// replayedHeaders are the response headers a replay must reproduce; a
// replayed 202 asks to poll as the first answer did.
var replayedHeaders = []string{"Content-Type", "Location", "ETag", "Retry-After"}

// requestFingerprint identifies a request for idempotency: the same key may
// only be replayed for the same method, path, query and body, which is the
// JSON body as sent or an upload's form fingerprint (kit.ReadUpload).
func requestFingerprint(c *gin.Context) []byte {
	st := kit.State(c)
	h := sha256.New()
	h.Write([]byte(c.Request.Method + " " + c.Request.URL.RequestURI() + "\n"))
	h.Write(st.Body)
	h.Write(st.Form)
	return h.Sum(nil)
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
