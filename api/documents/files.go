package documents

import (
	"encoding/base64"
	"encoding/hex"
	"io"
	"mime"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/domain/suppliers"
	a "ppwr/internal/access"
	"ppwr/internal/filecheck"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

// files declares documents and their versions: upload, reads, download.
func (h *handlers) files() kit.Area {
	version := kit.CreatedResponse(kit.Ref("DocumentVersion"), "getDocumentVersion").Polled()
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("uploadDocument", kit.Org+"/documents", tag, a.DocumentsUpload, a.DocumentsUploadPerm).
				Handle(kit.Multipart("DocumentUpload", kit.UploadSchema(&documents.DocumentUpload{}), h.uploadDocument), version),
			kit.List("listDocuments", kit.Org+"/documents", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Query(h.listDocuments), kit.ListOK("Document")),
			kit.Get("getDocument", kit.Org+"/documents/{recordId}", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Do(h.getDocument), kit.OK(kit.Ref("Document"))),
			kit.List("listDocumentVersions", kit.Org+"/documents/{documentId}/versions", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Do(h.listVersions), kit.ListOK("DocumentVersion")),
			kit.Post("uploadDocumentVersion", kit.Org+"/documents/{recordId}/versions", tag, a.DocumentsUpload, a.DocumentsUploadPerm).
				Handle(kit.Multipart("DocumentVersionUpload", fileOnly(), h.uploadVersion), version),
			kit.Get("getDocumentVersion", kit.Org+"/document-versions/{recordId}", tag, a.DocumentsRead, a.DocumentsView).
				Handle(kit.Do(h.getVersion), kit.OK(kit.Ref("DocumentVersion")).Polled()),
			kit.Get("downloadDocumentVersion", kit.Org+"/document-versions/{recordId}/download", tag, a.DocumentsRead, a.DocumentsView).
				Answers(documents.ErrDocumentNotServable).
				Handle(kit.Do(h.download), downloadResponse()),
			kit.List("listDocumentVersionPages", kit.Org+"/document-versions/{recordId}/pages", tag, a.DocumentsRead, a.DocumentsView).
				Answers(kit.FileNotReady(""), documents.ErrDocumentNotServable).
				Handle(kit.Do(h.listPages), kit.ListOK("DocumentPage")),
		},
		Models: []kit.Model{
			kit.ModelOf[documentJSON]("Document"), kit.ModelOf[versionJSON]("DocumentVersion").Example(versionExample()), kit.ModelOf[pageJSON]("DocumentPage").Described("schema.document_page"),
		},
	}
}

// downloadResponse documents a version's bytes: one of the allowed
// types, with its name and checksum.
func downloadResponse() kit.Response {
	return kit.Response{Status: http.StatusOK, ContentTypes: filecheck.AllowedTypes, Schema: kit.Binary(), Headers: []kit.Param{
		{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.content_disposition"},
		{Name: "X-Checksum-SHA256", Schema: kit.Str(), DescKey: "header.checksum_sha256"},
		{Name: "Repr-Digest", Schema: kit.Str(), DescKey: "header.repr_digest"},
	}}
}

// fileOnly documents the form of a new version: the file alone.
func fileOnly() kit.Schema {
	return kit.Schema{"type": "object", "required": []string{"file"}, "properties": map[string]any{"file": kit.Binary()}}
}

type documentJSON struct {
	ID             uuid.UUID    `json:"id"`
	DocumentType   string       `json:"document_type"`
	Title          string       `json:"title"`
	CatalogItem    *uuid.UUID   `json:"catalog_item"`
	Party          *uuid.UUID   `json:"party"`
	ValidFrom      *string      `json:"valid_from" schema:"date"`
	ValidUntil     *string      `json:"valid_until" schema:"date"`
	Language       *string      `json:"language"`
	GeneratedKind  *string      `json:"generated_kind"`
	VersionCount   int          `json:"version_count"`
	CurrentVersion *versionJSON `json:"current_version"`
	CreatedAt      time.Time    `json:"created_at"`
	UpdatedAt      time.Time    `json:"updated_at"`
}

func (documentJSON) Declare(s *kit.Shape) { s.Enum("language", documents.DocumentLanguages...) }

func documentToJSON(d *documents.Document) documentJSON {
	return documentJSON{ID: d.ID, DocumentType: d.DocumentType, Title: d.Title, CatalogItem: d.CatalogItemID, Party: d.PartyID,
		ValidFrom: kit.Day(d.ValidFrom), ValidUntil: kit.Day(d.ValidUntil), Language: d.Language, GeneratedKind: d.GeneratedKind,
		VersionCount: d.VersionCount, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
}

type versionJSON struct {
	ID               uuid.UUID  `json:"id"`
	Document         uuid.UUID  `json:"document"`
	Version          int        `json:"version"`
	FileName         string     `json:"file_name"`
	SizeBytes        int64      `json:"size_bytes"`
	SHA256           string     `json:"sha256"`
	ContentType      *string    `json:"content_type"`
	ProcessingStatus string     `json:"processing_status"`
	ProcessingReason *string    `json:"processing_reason"`
	PageCount        *int       `json:"page_count"`
	ProcessedAt      *time.Time `json:"processed_at"`
	ReviewStatus     string     `json:"review_status"`
	ReviewReason     *string    `json:"review_reason"`
	ReviewedBy       *uuid.UUID `json:"reviewed_by"`
	ReviewedAt       *time.Time `json:"reviewed_at"`
	UploadedBy       *uuid.UUID `json:"uploaded_by"`
	AnalysisCount    int        `json:"analysis_count"`
	// Analysis is the latest analysis run; null before the first.
	Analysis  *analysisStateJSON `json:"analysis"`
	Revision  int                `json:"revision"`
	CreatedAt time.Time          `json:"created_at"`
	UpdatedAt time.Time          `json:"updated_at"`
	// Progress is the processing's.
	Progress kit.Progress `json:"progress"`
}

func (versionJSON) Declare(s *kit.Shape) {
	s.Enum("processing_status", documents.ProcessingStatuses...)
	s.Enum("review_status", documents.ReviewStatuses...)
	s.Enum("progress.stage", documents.ProcessingStages...)
}

// versionExample is the document's example of a version being
// processed: its PDF's pages read so far, their total unknown until the
// last is read.
func versionExample() versionJSON {
	pdf, uploader := "application/pdf", uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e12")
	return versionJSON{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e05"), Document: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e06"),
		Version: 1, FileName: "karta-wyrobu.pdf", SizeBytes: 2_481_337, SHA256: "9f2b6c1d0e4a5b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e",
		ContentType: &pdf, ProcessingStatus: documents.ProcessingRunning, ReviewStatus: documents.ReviewUnreviewed, UploadedBy: &uploader,
		Revision: 1, CreatedAt: kit.ExampleAt.Add(-time.Minute), UpdatedAt: kit.ExampleAt,
		Progress: kit.ExampleProgress(documents.StageExtractingPages, 3, nil)}
}

// versionRenderer renders versions in the request's language: the
// reason of a quarantine or failure is a message key.
func versionRenderer(c *gin.Context) func(*documents.DocumentVersion) versionJSON {
	locale := kit.State(c).Locale
	return func(v *documents.DocumentVersion) versionJSON {
		out := versionJSON{ID: v.ID, Document: v.DocumentID, Version: v.Version, FileName: v.FileName, SizeBytes: v.SizeBytes,
			SHA256: v.SHA256, ContentType: v.ContentType, ProcessingStatus: v.ProcessingStatus, PageCount: v.PageCount,
			ProcessedAt: kit.UTC(v.ProcessedAt), ReviewStatus: v.ReviewStatus, ReviewReason: v.ReviewReason,
			ReviewedBy: v.ReviewedBy, ReviewedAt: kit.UTC(v.ReviewedAt), UploadedBy: v.UploadedBy,
			AnalysisCount: v.AnalysisCount, Analysis: analysisStateOf(v), Revision: v.Revision, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC(),
			Progress: kit.ProgressOf(v.ProcessingProgress)}
		if v.ProcessingReason != nil {
			var detail string
			if v.ProcessingDetail != nil {
				detail = *v.ProcessingDetail
			}
			msg := i18n.T(locale, "processing."+*v.ProcessingReason, detail)
			out.ProcessingReason = &msg
		}
		return out
	}
}

// maxUploadBytes bounds an uploaded document (DOCUMENT_MAX_BYTES).
func (h *handlers) maxUploadBytes() int64 { return h.Config.DocumentMaxBytes }

// metadataMax bounds each text field of the upload form.
const metadataMax = 4 << 10

// storeUpload streams the request's file to the object store under the
// version's key; the version id is chosen before the bytes arrive.
func (h *handlers) storeUpload(c *gin.Context, documentID, versionID uuid.UUID, fields []string) (*kit.Upload, documents.StoredFile, error) {
	ctx := c.Request.Context()
	key := documents.DocumentObjectKey(kit.OrgID(c), documentID, versionID)
	up, err := kit.ReadUpload(c, kit.UploadForm{
		MaxBytes: h.maxUploadBytes(), Fields: fields, FieldMax: metadataMax,
		Put:    func(_ string, body io.Reader) error { return h.Storage.Put(ctx, key, body, "application/octet-stream") },
		Remove: func(string) { _ = h.Storage.Delete(ctx, key) },
	})
	if err != nil {
		return nil, documents.StoredFile{}, err
	}
	return up, documents.StoredFile{FileName: up.FileName, ObjectKey: key, Size: up.Size, SHA256: up.SHA256}, nil
}

// uploadDocument streams the file to the object store, then records the
// document, its first version and the start of the version's processing
// in one unit of work. Should the metadata be refused or the unit fail,
// the object is removed: no document without its file, no orphan file.
func (h *handlers) uploadDocument(c *gin.Context) error {
	doc := &documents.Document{ID: domain.NewID()}
	versionID := domain.NewID()
	up, file, err := h.storeUpload(c, doc.ID, versionID, metadataFields)
	if err != nil {
		return err
	}
	var in documents.DocumentUpload
	input.FromCells(up.Fields, &in)
	v, err := suppliers.UploadDocument(kit.Work(c), doc, versionID, &in, file)
	return h.answerUpload(c, v, err, up.Discard)
}

// metadataFields are the upload form's text fields.
var metadataFields = []string{"document_type", "title", "catalog_item", "party", "valid_from", "valid_until", "language",
	"supplier_request", "supplier_request_line"}

// uploadVersion adds a version to a document, keeping the earlier ones.
func (h *handlers) uploadVersion(c *gin.Context) error {
	documentID, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	if _, err := domain.Find[documents.Document](c.Request.Context(), h.DB, kit.OrgID(c), documentID); err != nil {
		return err
	}
	versionID := domain.NewID()
	up, file, err := h.storeUpload(c, documentID, versionID, nil)
	if err != nil {
		return err
	}
	v, err := documents.AddDocumentVersion(kit.Work(c), documentID, versionID, file)
	return h.answerUpload(c, v, err, up.Discard)
}

// answerUpload answers 201 with a new version, whose processing start
// the command recorded, or removes the stored file (discard) when the
// command failed.
func (h *handlers) answerUpload(c *gin.Context, v *documents.DocumentVersion, err error, discard func()) error {
	if err != nil {
		discard()
		return err
	}
	return kit.CreatedJob(c, v.ID, v, versionRenderer(c)(v))
}

// documentQuery filters documents.
type documentQuery struct {
	input.Errors
	CatalogItem  input.Opt[uuid.UUID]
	DocumentType input.Opt[string]
	Party        input.Opt[uuid.UUID]
}

func (q *documentQuery) Declare(f *input.Fields) {
	f.Ref("catalog_item", &q.CatalogItem, input.Ref{})
	f.Text("document_type", &q.DocumentType, input.Text{Max: 100})
	f.Ref("party", &q.Party, input.Ref{})
}

func (h *handlers) listDocuments(c *gin.Context, q *documentQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&documents.Document{})
	db = kit.Filter(kit.Filter(kit.Filter(db, "catalog_item_id", q.CatalogItem), "document_type", q.DocumentType), "party_id", q.Party)
	return kit.Paginate(c, db, kit.NewestFirst, documentToJSON)
}

// getDocument answers the document with its current (latest) version.
func (h *handlers) getDocument(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	doc, err := domain.Find[documents.Document](ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	out := documentToJSON(doc)
	var current documents.DocumentVersion
	if err := domain.Tenant(ctx, h.DB, org).Where("document_id = ? AND version = ?", id, doc.VersionCount).Take(&current).Error; err != nil {
		return err
	}
	rendered := versionRenderer(c)(&current)
	out.CurrentVersion = &rendered
	c.JSON(http.StatusOK, out)
	return nil
}

func (h *handlers) listVersions(c *gin.Context) error {
	id, err := kit.PathID(c, "documentId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := domain.Find[documents.Document](ctx, h.DB, org, id); err != nil {
		return err
	}
	db := domain.Tenant(ctx, h.DB, org).Model(&documents.DocumentVersion{}).Where("document_id = ?", id)
	return kit.Paginate(c, db, kit.OldestFirst, versionRenderer(c))
}

func (h *handlers) getVersion(c *gin.Context) error {
	return kit.ShowJob(c, h.DB, "recordId", kit.Infallible(versionRenderer(c)))
}

// download streams a processed, clean version's bytes with their type,
// length, name and checksum. A version not processed yet, quarantined or
// failed is never served: its bytes are unknown or unsafe.
func (h *handlers) download(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	v, err := domain.Find[documents.DocumentVersion](ctx, h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	if !v.Servable() {
		return documents.ErrDocumentNotServable.On("processing_status", "field.document_state", v.ProcessingStatus, v.ReviewStatus)
	}
	obj, err := h.Storage.Get(ctx, v.ObjectKey)
	if err != nil {
		return err
	}
	defer obj.Body.Close()
	c.Header("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": v.FileName}))
	c.Header("X-Checksum-SHA256", v.SHA256)
	if sum, err := hex.DecodeString(v.SHA256); err == nil {
		c.Header("Repr-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum)+":")
	}
	c.DataFromReader(http.StatusOK, v.SizeBytes, *v.ContentType, obj.Body, map[string]string{"Content-Length": strconv.FormatInt(v.SizeBytes, 10)})
	return nil
}

// pageJSON is one page's extracted text, as stored.
type pageJSON struct {
	Page int    `json:"page"`
	Text string `json:"text"`
}

// listPages lists the text extracted from each page of a processed,
// clean PDF version, first page first; another clean version (an image)
// has no pages. Before processing ends the answer is 409 file_not_ready
// with Retry-After; a quarantined or failed version's text is never
// served, as its file is not.
func (h *handlers) listPages(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	v, err := domain.Find[documents.DocumentVersion](ctx, h.DB, org, id)
	if err != nil {
		return err
	}
	switch {
	case !v.Processed():
		return kit.FileNotReady(v.ProcessingStatus)
	case !v.Servable():
		return documents.ErrDocumentNotServable.On("processing_status", "field.document_state", v.ProcessingStatus, v.ReviewStatus)
	}
	db := domain.Tenant(ctx, h.DB, org).Model(&documents.DocumentPage{}).Where("document_version_id = ?", id)
	return kit.PaginateByNumber(c, db, "page", func(p *documents.DocumentPage) int { return p.Page },
		func(p *documents.DocumentPage) pageJSON { return pageJSON{Page: p.Page, Text: p.Text} })
}
