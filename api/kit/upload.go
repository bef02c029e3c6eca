package kit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gin-gonic/gin"

	"ppwr/internal/input"
	"ppwr/internal/intake"
)

// Upload is a multipart form with one file, streamed to the object store
// as it arrives (never held whole in memory), and its text fields.
type Upload struct {
	FileName string
	Size     int64
	SHA256   string // hex
	// Fields are the form's text fields as sent; a field over FieldMax
	// or not UTF-8 is refused by ReadUpload.
	Fields  map[string]string
	discard func()
}

// UploadForm says what a multipart form may carry.
type UploadForm struct {
	MaxBytes int64    // the file's limit: a larger one is 413 and nothing is kept
	Fields   []string // the text fields read; others are ignored
	FieldMax int      // bytes per text field
	// Put stores the file under its (cleaned) name; Remove deletes what
	// Put stored.
	Put    func(fileName string, body io.Reader) error
	Remove func(fileName string)
}

// ReadUpload reads the request's multipart form: the part `file` is
// streamed through Put, bounded by MaxBytes and hashed on the way; the
// listed text fields are kept. A form without a file is answered as a
// 422 on `file`. On any error nothing stays stored; once the caller has
// the upload it calls Discard if its own work fails.
//
// A form read whole leaves its fingerprint in the request state for the
// pipeline's idempotency. When the key has a stored answer already
// (Request.AnswerStored), the file is only hashed, never stored, and the
// caller gets errAnswerStored: the pipeline answers in its place.
func ReadUpload(c *gin.Context, form UploadForm) (*Upload, error) {
	st := State(c)
	// The multipart framing and text fields come on top of the file.
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, form.MaxBytes+1<<20)
	parts, err := c.Request.MultipartReader()
	if err != nil {
		return nil, NewProblem(http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, "error.unsupported_media_type")
	}
	up := &Upload{Fields: map[string]string{}, discard: func() {}}
	fail := func(err error) (*Upload, error) {
		up.Discard()
		return nil, err
	}
	var fp formFingerprint
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(uploadProblem(err, form.MaxBytes))
		}
		switch name := part.FormName(); {
		case name == "file":
			if up.FileName != "" {
				return fail(Invalid(Field("file", "field.one_file")))
			}
			if up.FileName = intake.CleanName(part.FileName()); up.FileName == "" {
				return fail(Invalid(Field("file", "field.file_name")))
			}
			body := intake.Measure(part, form.MaxBytes)
			var err error
			if st.AnswerStored {
				_, err = io.Copy(io.Discard, body)
			} else {
				err = form.Put(up.FileName, body)
				stored := up.FileName
				up.discard = func() { form.Remove(stored) }
			}
			up.Size, up.SHA256 = body.Size(), body.SHA256()
			switch {
			case body.Over():
				return fail(NewProblem(http.StatusRequestEntityTooLarge, CodeRequestTooLarge, "error.request_too_large", form.MaxBytes))
			case err != nil:
				return fail(uploadProblem(err, form.MaxBytes))
			}
			fp.add(name, part.FileName(), up.SHA256)
		case slices.Contains(form.Fields, name):
			raw, err := io.ReadAll(io.LimitReader(part, int64(form.FieldMax)+1))
			if err != nil {
				return fail(uploadProblem(err, form.MaxBytes))
			}
			if len(raw) > form.FieldMax || !utf8.Valid(raw) {
				return fail(Invalid(Field(name, "field.too_long", form.FieldMax)))
			}
			up.Fields[name] = string(raw)
			sum := sha256.Sum256(raw)
			fp.add(name, part.FileName(), hex.EncodeToString(sum[:]))
		default:
			// A part the form does not read still tells two requests
			// apart, as any member of a JSON body does.
			sum := sha256.New()
			if _, err := io.Copy(sum, part); err != nil {
				return fail(uploadProblem(err, form.MaxBytes))
			}
			fp.add(name, part.FileName(), hex.EncodeToString(sum.Sum(nil)))
		}
	}
	if up.FileName == "" {
		return fail(Invalid(Field("file", "field.required")))
	}
	st.Form = fp.sum()
	if st.AnswerStored {
		return nil, errAnswerStored
	}
	st.upload = up
	return up, nil
}

// errAnswerStored ends an upload read only to be fingerprinted
// (Request.AnswerStored). The pipeline discards what it renders and
// answers with the stored answer, or with this same 409 when the form
// differs from the stored request's. A Problem, so that it is never
// logged as a failure.
var errAnswerStored = NewProblem(http.StatusConflict, CodeIdempotencyKeyReused, "error.idempotency_key_reused")

// formFingerprint identifies a form by its parts: each part's name, file
// name and the SHA-256 of its content, whatever the parts' order and the
// boundary, which clients do not keep across retries.
type formFingerprint []string

func (f *formFingerprint) add(name, fileName, digest string) {
	*f = append(*f, strconv.Quote(name)+" "+strconv.Quote(fileName)+" "+digest+"\n")
}

func (f formFingerprint) sum() []byte {
	slices.Sort(f)
	h := sha256.New()
	for _, part := range f {
		h.Write([]byte(part))
	}
	return h.Sum(nil)
}

// DiscardUpload removes the file the request's upload stored, if any. The
// pipeline calls it when the write's unit of work fails to commit after
// its handler succeeded (a concurrent duplicate won the key), so no object
// outlives the records that would have named it.
func DiscardUpload(c *gin.Context) {
	if u := State(c).upload; u != nil {
		u.Discard()
	}
}

// Discard removes the stored file, if any.
func (u *Upload) Discard() { u.discard() }

// uploadProblem maps an error reading the form: a body over the limit is
// a 413, a broken form a 422, anything else (the object store failing)
// stays a server error.
func uploadProblem(err error, max int64) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return NewProblem(http.StatusRequestEntityTooLarge, CodeRequestTooLarge, "error.request_too_large", max)
	}
	if strings.Contains(err.Error(), "multipart") {
		return NewProblem(http.StatusUnprocessableEntity, CodeValidationFailed, "error.multipart_invalid")
	}
	return err
}

// UploadSchema documents a multipart form: the file in field `file` and
// the text fields of the typed body fields (each sent as a text part).
func UploadSchema(fields input.Body) Schema {
	s := input.Describe(fields)
	s["properties"].(map[string]any)["file"] = Binary()
	s["required"] = append([]string{"file"}, s["required"].([]string)...)
	return s
}
