package activities

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/documents"
	"ppwr/internal/clamav"
	"ppwr/internal/filecheck"
	"ppwr/internal/measure"
	"ppwr/internal/pdftext"
	"ppwr/internal/storage"
)

// Documents processes and analyses document versions: the checksum,
// the content type, the malware scan, the structural checks, the page
// text and the evidence found in it.
type Documents struct {
	DB      *gorm.DB
	Storage *storage.Store
	Scanner *clamav.Client

	// The PDF engine is started on first use: it takes a while, and a
	// worker that never meets a PDF never pays for it.
	pdfOnce sync.Once
	pdf     *pdftext.Extractor
	pdfErr  error
}

func (a *Documents) extractor(ctx context.Context) (*pdftext.Extractor, error) {
	a.pdfOnce.Do(func() { a.pdf, a.pdfErr = pdftext.New(context.WithoutCancel(ctx), pdftext.Options{}) })
	return a.pdf, a.pdfErr
}

// Outcomes of an inspection or a scan.
const (
	OutcomeClean       = "clean"
	OutcomeQuarantined = "quarantined"
	OutcomeFailed      = "failed"
)

// Finding is what a processing step found: clean (with the content
// type, for an inspection), or a quarantine or failure with its reason
// (a stable code, the key of its message) and detail.
type Finding struct {
	Outcome     string `json:"outcome"`
	ContentType string `json:"content_type,omitempty"`
	Reason      string `json:"reason,omitempty"`
	Detail      string `json:"detail,omitempty"`
}

func clean(contentType string) Finding {
	return Finding{Outcome: OutcomeClean, ContentType: contentType}
}

// version reads the run's version through its organization's scope.
func (a *Documents) version(ctx context.Context, in documents.VersionInput) (*documents.DocumentVersion, error) {
	v, err := domain.Find[documents.DocumentVersion](ctx, a.DB, in.OrganizationID, in.VersionID)
	if errors.Is(err, domain.ErrNotFound) {
		return nil, temporal.NewNonRetryableApplicationError("document version not found", "NotFound", err)
	}
	return v, err
}

// download copies the version's object into a temporary file, hashing
// it on the way; the caller removes the file.
func (a *Documents) download(ctx context.Context, v *documents.DocumentVersion) (*os.File, string, int64, error) {
	obj, err := a.Storage.Get(ctx, v.ObjectKey)
	if err != nil {
		return nil, "", 0, err
	}
	defer obj.Body.Close()
	f, err := os.CreateTemp("", "ppwr-document-*")
	if err != nil {
		return nil, "", 0, err
	}
	sum := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, sum), obj.Body)
	if err != nil {
		removeTemp(f)
		return nil, "", 0, err
	}
	return f, hex.EncodeToString(sum.Sum(nil)), n, nil
}

func removeTemp(f *os.File) {
	_ = f.Close()
	_ = os.Remove(f.Name())
}

// Inspect marks the version as processing, verifies that the stored
// bytes are the uploaded ones, and tells their real type and structural
// safety from the content.
func (a *Documents) Inspect(ctx context.Context, in documents.VersionInput) (Finding, error) {
	v, err := a.version(ctx, in)
	if err != nil {
		return Finding{}, err
	}
	w := systemUnit(ctx, a.DB, v.OrganizationID)
	if err := documents.StartProcessing(w, v.ID); err != nil {
		w.Rollback()
		return Finding{}, err
	}
	if err := w.Commit(); err != nil {
		return Finding{}, err
	}
	if err := documents.TrackProcessing(a.DB, v).Reach(ctx, documents.StageInspecting, 0, nil); err != nil {
		return Finding{}, err
	}
	f, sum, size, err := a.download(ctx, v)
	if err != nil {
		return Finding{}, err
	}
	defer removeTemp(f)
	if sum != v.SHA256 || size != v.SizeBytes {
		return Finding{Outcome: OutcomeFailed, Reason: "checksum_mismatch",
			Detail: fmt.Sprintf("%d bytes, sha-256 %s", size, sum)}, nil
	}
	report, err := filecheck.Inspect(f, size)
	if err != nil {
		return Finding{}, err
	}
	return inspection(report), nil
}

// inspection maps the file check's report onto a finding.
func inspection(r filecheck.Report) Finding {
	switch {
	case r.Unsafe():
		return Finding{Outcome: OutcomeQuarantined, Reason: r.Reason, Detail: r.Detail}
	case r.Refused():
		return Finding{Outcome: OutcomeFailed, Reason: r.Reason, Detail: r.Detail}
	}
	return clean(r.ContentType)
}

// Scan streams the stored bytes to clamd. A connection that fails is
// retried by Temporal; a file over the scanner's limit cannot be vouched
// for, so it is quarantined like an infected one.
func (a *Documents) Scan(ctx context.Context, in documents.VersionInput) (Finding, error) {
	v, err := a.version(ctx, in)
	if err != nil {
		return Finding{}, err
	}
	if err := documents.TrackProcessing(a.DB, v).Reach(ctx, documents.StageScanning, 0, nil); err != nil {
		return Finding{}, err
	}
	obj, err := a.Storage.Get(ctx, v.ObjectKey)
	if err != nil {
		return Finding{}, err
	}
	defer obj.Body.Close()
	stop := beating(ctx)
	verdict, err := a.Scanner.Scan(ctx, obj.Body)
	stop()
	switch {
	case errors.Is(err, clamav.ErrStreamTooLarge):
		return Finding{Outcome: OutcomeQuarantined, Reason: "too_large_to_scan", Detail: fmt.Sprintf("%d bytes", v.SizeBytes)}, nil
	case err != nil && clamav.IsPermanent(err):
		return Finding{}, temporal.NewNonRetryableApplicationError(err.Error(), "ScannerRefused", err)
	case err != nil:
		return Finding{}, err
	case verdict.Infected:
		return Finding{Outcome: OutcomeQuarantined, Reason: "malware", Detail: verdict.Signature}, nil
	}
	return clean(""), nil
}

// pageBatch is how many pages are stored per transaction.
const pageBatch = 50

// ExtractPages stores the text of every page of a PDF version, in
// batches, heartbeating after each; a retry rewrites the pages it finds
// stored. It returns the page count, or a failure for a PDF that cannot
// be read.
func (a *Documents) ExtractPages(ctx context.Context, in documents.VersionInput) (int, error) {
	v, err := a.version(ctx, in)
	if err != nil {
		return 0, err
	}
	pdf, err := a.extractor(ctx)
	if err != nil {
		return 0, err
	}
	f, _, _, err := a.download(ctx, v)
	if err != nil {
		return 0, err
	}
	defer removeTemp(f)
	progress := documents.TrackProcessing(a.DB, v)
	if err := progress.Reach(ctx, documents.StageExtractingPages, 0, nil); err != nil {
		return 0, err
	}
	batch := make([]documents.DocumentPage, 0, pageBatch)
	flush := func() error {
		w := systemUnit(ctx, a.DB, v.OrganizationID)
		if err := documents.StorePages(w, batch); err != nil {
			w.Rollback()
			return err
		}
		if err := w.Commit(); err != nil {
			return err
		}
		last := batch[len(batch)-1].Page
		activity.RecordHeartbeat(ctx, last)
		batch = batch[:0]
		return progress.Move(ctx, documents.StageExtractingPages, int64(last), nil)
	}
	count, err := pdf.Pages(ctx, f.Name(), func(p pdftext.Page) error {
		batch = append(batch, documents.DocumentPage{DocumentVersionID: v.ID, Page: p.Number, OrganizationID: v.OrganizationID,
			HasText: p.HasText, Text: p.Text})
		if len(batch) == pageBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	if errors.Is(err, pdftext.ErrEncrypted) || errors.Is(err, pdftext.ErrUnreadable) {
		return 0, temporal.NewNonRetryableApplicationError(err.Error(), ErrorTypeUnreadablePDF, err)
	}
	return count, err
}

// ErrorTypeUnreadablePDF marks an extraction that no retry can fix.
const ErrorTypeUnreadablePDF = "UnreadablePDF"

// FinishProcessing records the outcome of processing with its event and
// audit entry; a version already finished is left as it is. A quarantined
// version's bytes are first moved under the store's quarantine prefix,
// which no reader of the store opens, so they can never be served.
func (a *Documents) FinishProcessing(ctx context.Context, in documents.VersionInput, out documents.ProcessingOutcome) error {
	v, err := a.version(ctx, in)
	if err != nil {
		return err
	}
	if out.Status == documents.ProcessingQuarantined {
		if out.ObjectKey, err = a.Storage.Quarantine(ctx, v.ObjectKey); err != nil {
			return err
		}
	}
	w := systemUnit(ctx, a.DB, v.OrganizationID)
	if err := documents.FinishProcessing(w, v.ID, out); err != nil {
		w.Rollback()
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: "processDocumentVersion"})
}

// Analyze proposes the measurable values found in the version's page
// text as evidence proposals of its run; a retry proposes nothing twice.
// It returns how many proposals the run holds.
func (a *Documents) Analyze(ctx context.Context, in documents.VersionInput) (int, error) {
	v, err := a.version(ctx, in)
	if err != nil {
		return 0, err
	}
	var pages []documents.DocumentPage
	if err := domain.Tenant(ctx, a.DB, v.OrganizationID).Where("document_version_id = ? AND has_text", v.ID).Order("page").Find(&pages).Error; err != nil {
		return 0, err
	}
	var found []measure.Finding
	for _, p := range pages {
		found = append(found, measure.Find(p.Page, p.Text)...)
	}
	w := systemUnit(ctx, a.DB, v.OrganizationID)
	n, err := documents.ProposeFindings(w, v, in.Run, found)
	if err != nil {
		w.Rollback()
		return 0, err
	}
	return n, domain.Commit(w, domain.AuditEntry{Operation: "analyzeDocumentVersion"})
}
