package documents

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Documents hold evidence: a supplier's declaration, a lab report, a
// specification sheet. Each upload is an immutable version; a version is
// processed (checksum, type, malware scan, structural checks, page text)
// by a workflow and then reviewed by a person. Processing and review are
// separate statuses: only a clean (review_required) version can be
// approved, and only an approved one is evidence.

// Processing statuses of a version.
const (
	ProcessingQueued         = "queued"
	ProcessingRunning        = "processing"
	ProcessingReviewRequired = "review_required"
	ProcessingQuarantined    = "quarantined"
	ProcessingFailed         = "failed"
)

// ProcessingStatuses are every processing status, in their order.
var ProcessingStatuses = []string{ProcessingQueued, ProcessingRunning, ProcessingReviewRequired, ProcessingQuarantined, ProcessingFailed}

// Review statuses of a version.
const (
	ReviewUnreviewed = "unreviewed"
	ReviewInReview   = "in_review"
	ReviewApproved   = "approved"
	ReviewRejected   = "rejected"
	ReviewRevoked    = "revoked"
)

// ReviewStatuses are every review status.
var ReviewStatuses = []string{ReviewUnreviewed, ReviewInReview, ReviewApproved, ReviewRejected, ReviewRevoked}

// Analysis statuses of a version's latest analysis run: queued until its
// workflow records what it found.
const (
	AnalysisQueued    = "queued"
	AnalysisCompleted = "completed"
)

// AnalysisStatuses are every analysis status, in their order.
var AnalysisStatuses = []string{AnalysisQueued, AnalysisCompleted}

// Document is a piece of evidence with its metadata; its files are its
// versions.
type Document struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	DocumentType   string
	Title          string
	CatalogItemID  *uuid.UUID `gorm:"type:uuid"`
	PartyID        *uuid.UUID `gorm:"type:uuid"`
	ValidFrom      *time.Time `gorm:"type:date"`
	ValidUntil     *time.Time `gorm:"type:date"`
	Language       *string
	GeneratedKind  *string
	VersionCount   int
	Revision       int
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// DocumentVersion is one immutable file of a document.
type DocumentVersion struct {
	ID               uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID   uuid.UUID `gorm:"type:uuid"`
	DocumentID       uuid.UUID `gorm:"type:uuid"`
	Version          int
	FileName         string
	ObjectKey        string
	SizeBytes        int64
	SHA256           string `gorm:"column:sha256"`
	ContentType      *string
	ProcessingStatus string
	ProcessingReason *string
	ProcessingDetail *string
	PageCount        *int
	ProcessedAt      *time.Time
	ReviewStatus     string
	ReviewReason     *string
	ReviewedBy       *uuid.UUID `gorm:"type:uuid"`
	ReviewedAt       *time.Time
	UploadedBy       *uuid.UUID `gorm:"type:uuid"`
	AnalysisCount    int
	// AnalysisStatus, AnalysisProposalCount and AnalysisCompletedAt are
	// those of the latest run (AnalysisCount); nil before the first.
	AnalysisStatus        *string
	AnalysisProposalCount *int
	AnalysisCompletedAt   *time.Time
	Revision              int
	CreatedAt             time.Time
	UpdatedAt             time.Time
	// ProcessingProgress is the progress of processing the version.
	ProcessingProgress domain.Progress `gorm:"embedded"`
}

// Progress stages of processing a version: checking its bytes and type,
// scanning them for malware, extracting a PDF's pages (their total known
// when the last is read), and finished, with every page.
const (
	StageInspecting      = "inspecting"
	StageScanning        = "scanning"
	StageExtractingPages = "extracting_pages"
	StageFinished        = "finished"
)

// ProcessingStages are the progress stages of processing in order.
var ProcessingStages = domain.Stages{domain.StageQueued, StageInspecting, StageScanning, StageExtractingPages, StageFinished}

// Running reports whether the version is being processed, or its latest
// analysis is queued: a client reading it should read it again.
func (v *DocumentVersion) Running() bool {
	return !v.Processed() || (v.AnalysisStatus != nil && *v.AnalysisStatus == AnalysisQueued)
}

// TrackProcessing is the progress tracker of processing the version.
func TrackProcessing(db *gorm.DB, v *DocumentVersion) *domain.ProgressTracker {
	return ProcessingStages.Track(db, &DocumentVersion{}, v.OrganizationID, v.ID)
}

// Servable reports whether the version's bytes may be handed out: only a
// processed, clean version is.
func (v *DocumentVersion) Servable() bool { return v.ProcessingStatus == ProcessingReviewRequired }

// Processed reports whether the version's processing has ended, whatever
// it found.
func (v *DocumentVersion) Processed() bool {
	return !slices.Contains(processingUnfinished, v.ProcessingStatus)
}

// processingUnfinished are the statuses of a version still to be processed.
var processingUnfinished = []string{ProcessingQueued, ProcessingRunning}

// DocumentPage is the text of one page of a PDF version.
type DocumentPage struct {
	DocumentVersionID uuid.UUID `gorm:"type:uuid;primaryKey"`
	Page              int       `gorm:"primaryKey"`
	OrganizationID    uuid.UUID `gorm:"type:uuid"`
	HasText           bool
	Text              string
}

// DocumentLanguages are the languages a document can be declared in: the
// EU's official languages.
var DocumentLanguages = []string{"bg", "cs", "da", "de", "el", "en", "es", "et", "fi", "fr", "ga", "hr", "hu", "it",
	"lt", "lv", "mt", "nl", "pl", "pt", "ro", "sk", "sl", "sv"}

// DocumentUpload is the metadata of a new document, sent as the text
// fields of the upload form.
type DocumentUpload struct {
	input.Errors
	DocumentType input.Opt[string]
	Title        input.Opt[string]
	CatalogItem  input.Opt[uuid.UUID]
	Party        input.Opt[uuid.UUID]
	ValidFrom    input.Opt[time.Time]
	ValidUntil   input.Opt[time.Time]
	Language     input.Opt[string]
	// A file answering a supplier request, optionally one of its lines.
	SupplierRequest     input.Opt[uuid.UUID]
	SupplierRequestLine input.Opt[uuid.UUID]
}

// Declare names the metadata's fields.
func (in *DocumentUpload) Declare(f *input.Fields) {
	f.Code("document_type", &in.DocumentType, input.Code{Required: true, Known: dictionaries.Default().HasDocumentType})
	f.Text("title", &in.Title, input.Text{Required: true, Max: DocumentTitleMax})
	f.Ref("catalog_item", &in.CatalogItem, input.Ref{})
	f.Ref("party", &in.Party, input.Ref{})
	f.Date("valid_from", &in.ValidFrom, input.Date{})
	f.Date("valid_until", &in.ValidUntil, input.Date{})
	f.Enum("language", &in.Language, input.Enum{Values: DocumentLanguages})
	f.Ref("supplier_request", &in.SupplierRequest, input.Ref{})
	f.Ref("supplier_request_line", &in.SupplierRequestLine, input.Ref{})
	f.RequiredWith("supplier_request", "supplier_request_line")
	if f.Binding() && in.ValidFrom.Set() && in.ValidUntil.Set() && in.ValidUntil.Value.Before(in.ValidFrom.Value) {
		f.Fail("valid_until", "field.valid_until_before_from")
	}
}

// StoredFile is an uploaded file already in the object store.
type StoredFile struct {
	FileName  string
	ObjectKey string
	Size      int64
	SHA256    string
}

// DocumentObjectKey is where a version's bytes live.
func DocumentObjectKey(org, document, version uuid.UUID) string {
	return "org/" + org.String() + "/documents/" + document.String() + "/" + version.String()
}

// VersionInput names the version a document workflow works on; an
// analysis also carries its run number.
type VersionInput struct {
	domain.Org
	VersionID uuid.UUID `json:"version_id"`
	Run       int       `json:"run,omitempty"`
}

// ProcessingWorkflow checks a new version; AnalysisWorkflow is the Run-th
// analysis of a version's page text.
var (
	ProcessingWorkflow = domain.Workflow[VersionInput]{
		Type:     "DocumentProcessing",
		ID:       func(in VersionInput) string { return "document-version/" + in.VersionID.String() + "/processing" },
		Resource: versionOf,
	}
	AnalysisWorkflow = domain.Workflow[VersionInput]{
		Type: "DocumentAnalysis",
		ID: func(in VersionInput) string {
			return "document-version/" + in.VersionID.String() + "/analysis/" + strconv.Itoa(in.Run)
		},
		Resource: versionOf,
	}
)

func versionOf(in VersionInput) uuid.UUID { return in.VersionID }

// CreateDocument records a new document with its first version, whose
// file is stored, and the start of its processing. Errors a caller
// already collected in in refuse it too.
func CreateDocument(w *work.Unit, doc *Document, versionID uuid.UUID, in *DocumentUpload, file StoredFile) (*DocumentVersion, error) {
	var refs domain.References
	refs.Add("catalog_items", "catalog_item", in.CatalogItem, &in.Errors)
	refs.Add("parties", "party", in.Party, &in.Errors)
	if err := refs.Check(w); err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	doc.OrganizationID, doc.DocumentType, doc.Title = w.Organization(), in.DocumentType.Value, in.Title.Value
	doc.CatalogItemID, doc.PartyID = OptionalID(in.CatalogItem), OptionalID(in.Party)
	doc.ValidFrom, doc.ValidUntil, doc.Language = optionalDate(in.ValidFrom), optionalDate(in.ValidUntil), domain.Optional(in.Language)
	doc.VersionCount, doc.Revision = 1, 1
	doc.CreatedAt = domain.Now()
	doc.UpdatedAt = doc.CreatedAt
	if err := w.Tx().Create(doc).Error; err != nil {
		return nil, err
	}
	return addProcessedVersion(w, doc, versionID, file)
}

// AddDocumentVersion adds a version to the organization's document id,
// with the start of its processing; the earlier versions are kept as they
// are.
func AddDocumentVersion(w *work.Unit, documentID, versionID uuid.UUID, file StoredFile) (*DocumentVersion, error) {
	doc, err := domain.LockFor[Document](w.Context(), w.Tx(), w.Organization(), documentID, "NO KEY UPDATE")
	if err != nil {
		return nil, err
	}
	doc.VersionCount++
	doc.UpdatedAt = domain.Now()
	if err := w.Tx().Model(doc).Select("version_count", "updated_at").Updates(doc).Error; err != nil {
		return nil, err
	}
	return addProcessedVersion(w, doc, versionID, file)
}

// addProcessedVersion adds an uploaded version and records the start of
// its processing. A reply's versions are added without (AddVersion): the
// reply's workflow starts their processing.
func addProcessedVersion(w *work.Unit, doc *Document, versionID uuid.UUID, file StoredFile) (*DocumentVersion, error) {
	v, err := AddVersion(w, doc, versionID, file)
	if err != nil {
		return nil, err
	}
	return v, domain.Start(w, ProcessingWorkflow, VersionInput{Org: domain.OrgOf(v.OrganizationID), VersionID: v.ID},
		fmt.Sprintf("Process document version %d `%s`: %s bytes", v.Version, v.FileName, domain.Count(v.SizeBytes)))
}

func AddVersion(w *work.Unit, doc *Document, versionID uuid.UUID, file StoredFile) (*DocumentVersion, error) {
	v := &DocumentVersion{
		ID: versionID, OrganizationID: doc.OrganizationID, DocumentID: doc.ID, Version: doc.VersionCount,
		FileName: file.FileName, ObjectKey: file.ObjectKey, SizeBytes: file.Size, SHA256: file.SHA256,
		ProcessingStatus: ProcessingQueued, ReviewStatus: ReviewUnreviewed, UploadedBy: w.Actor().UserID,
		Revision: 1, CreatedAt: domain.Now(), ProcessingProgress: ProcessingStages.Queued(),
	}
	v.UpdatedAt = v.CreatedAt
	if err := w.Tx().Create(v).Error; err != nil {
		return nil, err
	}
	w.Touch("document_version", v.ID)
	return v, domain.Emit(w, DocumentVersionCreated{ID: v.ID, Status: v.ProcessingStatus})
}

func OptionalID(v input.Opt[uuid.UUID]) *uuid.UUID {
	if !v.Set() {
		return nil
	}
	return &v.Value
}

func optionalDate(v input.Opt[time.Time]) *time.Time {
	if !v.Set() {
		return nil
	}
	return &v.Value
}

// ProcessingOutcome is what processing found: the final status with the
// sniffed type and page count, or the reason (a message key and detail)
// of a quarantine or failure.
type ProcessingOutcome struct {
	Status      string
	ContentType string
	PageCount   *int
	Reason      string
	Detail      string
	// ObjectKey is where a quarantined version's bytes were moved
	// (storage.QuarantinePrefix); empty, the key stays.
	ObjectKey string
}

// StartProcessing marks a queued version as being processed; a version
// past that (a retried activity) is left as it is.
func StartProcessing(w *work.Unit, id uuid.UUID) error {
	return w.Tx().Model(&DocumentVersion{}).Scopes(domain.InOrganization(w.Organization())).
		Where("id = ? AND processing_status = ?", id, ProcessingQueued).
		Updates(map[string]any{"processing_status": ProcessingRunning, "updated_at": domain.Now()}).Error
}

// FinishProcessing records processing's outcome once, with its event: a
// retried activity finds the version finished and changes nothing.
func FinishProcessing(w *work.Unit, id uuid.UUID, out ProcessingOutcome) error {
	updates := map[string]any{"processing_status": out.Status, "processed_at": domain.Now(), "updated_at": domain.Now(),
		"content_type": NilIfEmpty(out.ContentType), "processing_reason": NilIfEmpty(out.Reason),
		"processing_detail": NilIfEmpty(out.Detail), "page_count": out.PageCount, "revision": gorm.Expr("revision + 1")}
	if out.ObjectKey != "" {
		updates["object_key"] = out.ObjectKey
	}
	res := w.Tx().Model(&DocumentVersion{}).Scopes(domain.InOrganization(w.Organization())).
		Where("id = ? AND processing_status IN ?", id, processingUnfinished).Updates(updates)
	if res.Error != nil || res.RowsAffected == 0 {
		return res.Error
	}
	var pages int64
	if out.PageCount != nil {
		pages = int64(*out.PageCount)
	}
	if err := ProcessingStages.End(w.Context(), w.Tx(), &DocumentVersion{}, w.Organization(), id, StageFinished, pages); err != nil {
		return err
	}
	w.Touch("document_version", id)
	if out.Status == ProcessingQuarantined {
		return domain.Emit(w, DocumentVersionQuarantined{ID: id, Status: out.Status})
	}
	return domain.Emit(w, DocumentVersionProcessed{ID: id, Status: out.Status})
}

// StorePages records extracted pages; a page stored by an earlier
// attempt is replaced, so a retried extraction converges.
func StorePages(w *work.Unit, pages []DocumentPage) error {
	if len(pages) == 0 {
		return nil
	}
	return w.Tx().Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "document_version_id"}, {Name: "page"}},
		DoUpdates: clause.AssignmentColumns([]string{"has_text", "text"}),
	}).Create(&pages).Error
}

func NilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Limits of a document's metadata.
const (
	DocumentTitleMax  = 300
	DocumentIssuerMax = 300
)
