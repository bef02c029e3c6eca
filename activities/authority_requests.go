package activities

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash"
	"io"
	"os"
	"path"
	"strings"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/assessments"
	"ppwr/domain/records"
	"ppwr/domain/registers"
	"ppwr/internal/storage"
)

// AuthorityRequests assembles the documentation bundles that answer
// authority requests and keeps their deadlines.
type AuthorityRequests struct {
	DB      *gorm.DB
	Storage *storage.Store
}

// AuthorityBundleKey is where a request's bundle lives in the object
// store.
func AuthorityBundleKey(r *records.AuthorityRequest) string {
	return "org/" + r.OrganizationID.String() + "/authority-requests/" + r.ID.String() + "/" + r.BundleFileName()
}

// BuildAuthorityBundle writes the request's bundle, a ZIP of each item's
// technical documentation and a manifest.json listing every file with its
// size and SHA-256 digest, into the object store, and records the
// bundle's size and digest. The ZIP is written to a temporary file and
// every document streams from the object store into it, so no file is
// held whole in memory. A ready bundle is left alone; a retry builds the
// bundle again from the records.
func (a *AuthorityRequests) BuildAuthorityBundle(ctx context.Context, in records.AuthorityRequestInput) error {
	r, err := domain.Find[records.AuthorityRequest](ctx, a.DB, in.OrganizationID, in.RequestID)
	if err != nil || r.BundleStatus != records.BundleBuilding {
		return err
	}
	var size int64
	var digest string
	err = storeFile(ctx, a.Storage, AuthorityBundleKey(r), "application/zip", func(f *os.File) error {
		sum := sha256.New()
		b := &bundle{ctx: ctx, store: a.Storage, zip: zip.NewWriter(io.MultiWriter(f, sum)), at: time.Now().UTC(), files: []bundleFile{}}
		manifest := bundleManifest{Request: r.ID, Authority: bundleAuthority{Name: r.AuthorityName, Country: r.AuthorityCountry},
			AuthorityReference: r.AuthorityReference, ReceivedOn: r.ReceivedOn.Format(time.DateOnly), DueOn: r.DueOn.Format(time.DateOnly),
			GeneratedAt: b.at, Statement: bundleStatement, Items: []bundleItem{}}
		progress, total := records.TrackBundle(a.DB, r), domain.Known(int64(len(r.Items)))
		for i, id := range r.Items {
			item, err := records.AuthorityBundleContents(ctx, a.DB, r.OrganizationID, id)
			if err != nil {
				return err
			}
			if err := b.addItem(item); err != nil {
				return err
			}
			if err := progress.Move(ctx, records.StageCollecting, int64(i+1), total); err != nil {
				return err
			}
			manifest.Items = append(manifest.Items, bundleItem{ID: item.Item.ID, InternalCode: item.Item.InternalCode,
				Name: item.Item.Name, Revision: item.Item.Revision, Folder: itemFolder(item.Item.ID)})
		}
		manifest.Files = b.files
		if err := b.writeJSON("manifest.json", manifest); err != nil {
			return err
		}
		if err := b.zip.Close(); err != nil {
			return err
		}
		info, err := f.Stat()
		if err != nil {
			return err
		}
		size, digest = info.Size(), hex.EncodeToString(sum.Sum(nil))
		return nil
	})
	if err != nil {
		return err
	}
	w := systemUnit(ctx, a.DB, r.OrganizationID)
	if err := records.FinishAuthorityBundle(w, r.ID, AuthorityBundleKey(r), size, digest, nil); err != nil {
		w.Rollback()
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: "buildAuthorityRequestBundle"})
}

// FailAuthorityBundle records that the request's bundle could not be
// built.
func (a *AuthorityRequests) FailAuthorityBundle(ctx context.Context, in records.AuthorityRequestInput, reason string) error {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	if err := records.FinishAuthorityBundle(w, in.RequestID, "", 0, "", errors.New(reason)); err != nil {
		w.Rollback()
		return err
	}
	return domain.Commit(w, domain.AuditEntry{Operation: "failAuthorityRequestBundle"})
}

// OpenAuthorityRequestDueIssue opens the reminder issue of a request not
// answered as its due date nears; it reports whether it opened one.
func (a *AuthorityRequests) OpenAuthorityRequestDueIssue(ctx context.Context, in records.AuthorityRequestInput) (bool, error) {
	w := systemUnit(ctx, a.DB, in.OrganizationID)
	opened, err := records.OpenAuthorityRequestDueIssue(w, in.RequestID)
	if err != nil || !opened {
		w.Rollback()
		return false, err
	}
	return true, domain.Commit(w, domain.AuditEntry{Operation: "openAuthorityRequestDueIssue"})
}

// AuthorityRequestDeadlineStatus reads the request's deadline status
// (records.Answered), for its run to find out whether it was answered
// before the run started.
func (a *AuthorityRequests) AuthorityRequestDeadlineStatus(ctx context.Context, in records.AuthorityRequestInput) (string, error) {
	return recordStatus(ctx, a.DB, in.OrganizationID, in.RequestID,
		func(r *records.AuthorityRequest) string { return r.DeadlineStatus(domain.Today()) })
}

// bundleStatement is what the manifest says of itself: the bundle is the
// organization's own records, not a decision of anyone else.
const bundleStatement = "Technical documentation compiled by the economic operator from its own records in answer to the authority's request. " +
	"It records no decision of the authority; register reviews and assessment statuses are internal and no certification."

// bundleManifest is manifest.json: the request, the items and every other
// file of the bundle.
type bundleManifest struct {
	Request            uuid.UUID       `json:"authority_request"`
	Authority          bundleAuthority `json:"authority"`
	AuthorityReference string          `json:"authority_reference"`
	ReceivedOn         string          `json:"received_on"`
	DueOn              string          `json:"due_on"`
	GeneratedAt        time.Time       `json:"generated_at"`
	Statement          string          `json:"statement"`
	Items              []bundleItem    `json:"items"`
	Files              []bundleFile    `json:"files"`
}

type bundleAuthority struct {
	Name    string `json:"name"`
	Country string `json:"country"`
}

type bundleItem struct {
	ID           uuid.UUID `json:"id"`
	InternalCode string    `json:"internal_code"`
	Name         string    `json:"name"`
	Revision     int       `json:"revision"`
	Folder       string    `json:"folder"`
}

// Kinds of files in a bundle.
const (
	bundleDocument      = "document_version"
	bundleRegisterEntry = "register_entry"
	bundleAssessment    = "assessment"
	bundleDeclaration   = "eu_declaration"
)

// bundleFile is one file of the bundle as the manifest lists it: where it
// is, what record it comes from and its exact bytes' size and digest.
type bundleFile struct {
	Path      string    `json:"path"`
	Kind      string    `json:"kind"`
	Item      uuid.UUID `json:"item"`
	Source    uuid.UUID `json:"source_id"`
	Title     *string   `json:"title,omitempty"`
	SizeBytes int64     `json:"size_bytes"`
	SHA256    string    `json:"sha256"`
}

// bundle writes the files of a bundle into its ZIP, noting each one's
// size and digest for the manifest.
type bundle struct {
	ctx   context.Context
	store *storage.Store
	zip   *zip.Writer
	at    time.Time
	files []bundleFile
}

func itemFolder(id uuid.UUID) string { return "items/" + id.String() }

// addItem files an item's documents, register entries, latest published
// assessment and EU declarations under its folder.
func (b *bundle) addItem(item *records.AuthorityBundleItem) error {
	folder, id := itemFolder(item.Item.ID), item.Item.ID
	for _, d := range item.Documents {
		name := folder + "/documents/" + d.ID.String() + "-" + safeName(d.FileName)
		title := d.DocumentTitle
		if err := b.copyObject(bundleFile{Path: name, Kind: bundleDocument, Item: id, Source: d.ID, Title: &title}, d.ObjectKey); err != nil {
			return err
		}
	}
	for i := range item.Entries {
		e := &item.Entries[i]
		f := bundleFile{Path: folder + "/registers/" + e.Register + "/" + e.ID.String() + ".json", Kind: bundleRegisterEntry, Item: id, Source: e.ID}
		if err := b.addJSON(f, entryForBundle(e, item.Item.Revision)); err != nil {
			return err
		}
	}
	if as := item.Assessment; as != nil {
		f := bundleFile{Path: folder + "/assessment.json", Kind: bundleAssessment, Item: id, Source: as.ID}
		if err := b.addJSON(f, assessmentForBundle(as, item.AssessmentStale)); err != nil {
			return err
		}
	}
	for i := range item.Declarations {
		e := &item.Declarations[i]
		f := bundleFile{Path: folder + "/eu-declarations/" + e.ID.String() + ".json", Kind: bundleDeclaration, Item: id, Source: e.ID}
		if err := b.addJSON(f, entryForBundle(e, item.Item.Revision)); err != nil {
			return err
		}
	}
	return nil
}

// safeName is a stored file name fit for a path inside the ZIP: its base
// name only, so no name can climb out of its folder.
func safeName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" || name == ".." {
		return "file"
	}
	return name
}

// create opens the next file of the ZIP, its bytes counted and hashed as
// they are written.
func (b *bundle) create(name string) (io.Writer, *counter, hash.Hash, error) {
	w, err := b.zip.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: b.at})
	if err != nil {
		return nil, nil, nil, err
	}
	n, sum := &counter{}, sha256.New()
	return io.MultiWriter(w, n, sum), n, sum, nil
}

// copyObject streams an object of the store into the ZIP as file f.
func (b *bundle) copyObject(f bundleFile, key string) error {
	obj, err := b.store.Get(b.ctx, key)
	if err != nil {
		return err
	}
	defer obj.Body.Close()
	w, n, sum, err := b.create(f.Path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, obj.Body); err != nil {
		return err
	}
	b.note(f, n, sum)
	return nil
}

// addJSON writes v as the JSON file f.
func (b *bundle) addJSON(f bundleFile, v any) error {
	w, n, sum, err := b.create(f.Path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	b.note(f, n, sum)
	return nil
}

// writeJSON writes v as a file the manifest does not list (the manifest
// itself).
func (b *bundle) writeJSON(name string, v any) error {
	w, _, _, err := b.create(name)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func (b *bundle) note(f bundleFile, n *counter, sum hash.Hash) {
	f.SizeBytes, f.SHA256 = n.n, hex.EncodeToString(sum.Sum(nil))
	b.files = append(b.files, f)
}

// counter counts the bytes written through it.
type counter struct{ n int64 }

func (c *counter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// bundleEntry is a register entry as a bundle files it.
type bundleEntry struct {
	ID                     uuid.UUID               `json:"id"`
	Register               string                  `json:"register"`
	Item                   uuid.UUID               `json:"item"`
	CatalogRevision        int                     `json:"catalog_revision"`
	BasedOnCurrentRevision bool                    `json:"based_on_current_revision"`
	DataVersion            uuid.UUID               `json:"data_version"`
	Components             []uuid.UUID             `json:"components"`
	MarketScenarios        []uuid.UUID             `json:"market_scenarios"`
	RuleSet                *string                 `json:"rule_set"`
	RuleSetVersion         *string                 `json:"rule_set_version"`
	Values                 json.RawMessage         `json:"values"`
	Method                 string                  `json:"method"`
	MethodReference        *string                 `json:"method_reference"`
	Evidence               []registers.EvidenceRef `json:"evidence"`
	ValidFrom              string                  `json:"valid_from"`
	ValidUntil             *string                 `json:"valid_until"`
	ReviewStatus           string                  `json:"review_status"`
	ReviewReason           *string                 `json:"review_reason"`
	ReviewedAt             *time.Time              `json:"reviewed_at"`
	CreatedAt              time.Time               `json:"created_at"`
}

func entryForBundle(e *registers.RegisterEntry, itemRevision int) bundleEntry {
	return bundleEntry{ID: e.ID, Register: e.Register, Item: e.CatalogItemID, CatalogRevision: e.CatalogRevision,
		BasedOnCurrentRevision: e.CatalogRevision == itemRevision, DataVersion: e.DataVersionID, Components: e.Components,
		MarketScenarios: e.MarketScenarios, RuleSet: e.RuleSet, RuleSetVersion: e.RuleSetVersion, Values: json.RawMessage(e.Values),
		Method: e.Method, MethodReference: e.MethodReference, Evidence: e.Evidence, ValidFrom: e.ValidFrom.Format(time.DateOnly),
		ValidUntil: dateOnly(e.ValidUntil), ReviewStatus: e.ReviewStatus, ReviewReason: e.ReviewReason, ReviewedAt: e.ReviewedAt,
		CreatedAt: e.CreatedAt.UTC()}
}

// bundleAssessmentJSON is a published assessment as a bundle files it.
type bundleAssessmentJSON struct {
	ID              uuid.UUID                    `json:"id"`
	Item            uuid.UUID                    `json:"item"`
	CatalogRevision int                          `json:"catalog_revision"`
	DataVersion     uuid.UUID                    `json:"data_version"`
	AssessedOn      string                       `json:"assessed_on"`
	RuleSets        []assessments.RuleSetVersion `json:"rule_sets"`
	Markets         []uuid.UUID                  `json:"markets"`
	Status          string                       `json:"status"`
	Results         []assessments.RuleOutcome    `json:"results"`
	Entries         []uuid.UUID                  `json:"entries"`
	Evidence        []uuid.UUID                  `json:"evidence"`
	Stale           bool                         `json:"stale"`
	ReviewStatus    string                       `json:"review_status"`
	ReviewReason    *string                      `json:"review_reason"`
	ReviewedAt      *time.Time                   `json:"reviewed_at"`
	CreatedAt       time.Time                    `json:"created_at"`
}

func assessmentForBundle(a *assessments.Assessment, stale bool) bundleAssessmentJSON {
	return bundleAssessmentJSON{ID: a.ID, Item: a.CatalogItemID, CatalogRevision: a.CatalogRevision, DataVersion: a.DataVersionID,
		AssessedOn: a.AssessedOn.Format(time.DateOnly), RuleSets: a.RuleSets, Markets: a.Markets, Status: a.Status, Results: a.Results,
		Entries: a.Entries, Evidence: a.Evidence, Stale: stale, ReviewStatus: a.ReviewStatus, ReviewReason: a.ReviewReason,
		ReviewedAt: a.ReviewedAt, CreatedAt: a.CreatedAt.UTC()}
}

func dateOnly(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}
