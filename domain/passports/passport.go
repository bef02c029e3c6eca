package passports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/datatypes"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/assessments"
	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/domain/registers"
	"ppwr/internal/canonjson"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Passports: an item's compliance record. A passport starts as a draft;
// each publication freezes a new version, a canonical JSON document
// (internal/canonjson) built from what the item shows at that moment: its
// current data version, its current accepted register entries, its
// latest published assessment, its EU declaration and its evidence. The
// document is stored in the object store and its SHA-256 kept here, so
// every read can be verified; it never changes, and publishing again makes
// the next version. A passport is read by another organization only
// through a sharing grant (sharing_grant.go).

// Passport statuses.
const (
	PassportDraft     = "draft"
	PassportPublished = "published"
)

// PassportStatuses are every status of a passport.
var PassportStatuses = []string{PassportDraft, PassportPublished}

// What a version may lack: it is published anyway and names the gap.
const (
	PassportMissingAssessment  = "published_assessment"
	PassportMissingDeclaration = "eu_declaration"
)

// PassportMissingParts are everything a version may lack.
var PassportMissingParts = []string{PassportMissingAssessment, PassportMissingDeclaration}

// PassportFormat names the shape of a version's document; a change of
// shape gets a new format.
const PassportFormat = "ppwr-passport/1"

// PassportContentType is the media type of a stored document.
const PassportContentType = "application/json"

// Rules of passports.
var (
	ErrPassportExists       = &domain.RuleError{Code: "passport_exists", Key: "error.passport_exists"}
	ErrPassportNotPublished = &domain.RuleError{Code: "passport_not_published", Key: "error.passport_not_published"}
)

// Passport is an item's compliance record; its content is its versions.
type Passport struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	CatalogItemID  uuid.UUID `gorm:"type:uuid"`
	Status         string
	VersionCount   int
	Revision       int
	CreatedBy      *uuid.UUID `gorm:"type:uuid"`
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// PassportVersion is one frozen publication of a passport.
type PassportVersion struct {
	ID              uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID  uuid.UUID `gorm:"type:uuid"`
	PassportID      uuid.UUID `gorm:"type:uuid"`
	Version         int
	CatalogRevision int
	DataVersionID   uuid.UUID `gorm:"type:uuid"`
	ObjectKey       string
	SHA256          string `gorm:"column:sha256"`
	SizeBytes       int64
	Missing         datatypes.JSONSlice[string] `gorm:"type:jsonb"`
	PublishedBy     *uuid.UUID                  `gorm:"type:uuid"`
	PublishedAt     time.Time
	// Content is the stored document, when it was just built or read
	// back and verified.
	Content []byte `gorm:"-"`
}

// PassportObjectKey is where a version's document is stored.
func PassportObjectKey(org, passport uuid.UUID, version int) string {
	return "org/" + org.String() + "/passports/" + passport.String() + "/" + strconv.Itoa(version) + ".json"
}

// Verify reports whether raw, read back from the store, is the version's
// document: its length and SHA-256 are the recorded ones.
func (v *PassportVersion) Verify(raw []byte) bool {
	sum := sha256.Sum256(raw)
	return int64(len(raw)) == v.SizeBytes && hex.EncodeToString(sum[:]) == v.SHA256
}

// PassportCreate is the body of a new passport: the item, at the revision
// the client read.
type PassportCreate struct {
	input.Errors
	CatalogItem     input.Opt[uuid.UUID]
	CatalogRevision input.Opt[int]
}

// Declare names the passport's fields.
func (in *PassportCreate) Declare(f *input.Fields) {
	f.Ref("catalog_item", &in.CatalogItem, input.Ref{Required: true, Desc: "passport.catalog_item"})
	revision := input.Revision(true)
	revision.Desc = "passport.catalog_revision"
	f.Int("catalog_revision", &in.CatalogRevision, revision)
}

// CreatePassport records the draft passport of an item of the
// organization at its current revision; an item has one passport.
func CreatePassport(w *work.Unit, in *PassportCreate) (*Passport, error) {
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	var item *catalog.CatalogItem
	if in.CatalogItem.Set() {
		var err error
		if item, err = catalog.LockItemShared(w, in.CatalogItem.Value); err == domain.ErrNotFound {
			in.Fail("catalog_item", "field.not_found")
		} else if err != nil {
			return nil, err
		}
	}
	if in.Failed() {
		return nil, in.Err()
	}
	if err := refuseSecondPassport(ctx, tx, org, item.ID); err != nil {
		return nil, err
	}
	if in.CatalogRevision.Value != item.Revision {
		return nil, domain.ErrRevisionConflict
	}
	at := domain.Now()
	p := &Passport{ID: domain.NewID(), OrganizationID: org, CatalogItemID: item.ID, Status: PassportDraft, Revision: 1,
		CreatedBy: w.Actor().UserID, CreatedAt: at, UpdatedAt: at}
	res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(p)
	if res.Error != nil {
		return nil, domain.FromDatabase(res.Error)
	}
	if res.RowsAffected == 0 {
		// A concurrent request created it first.
		return nil, refuseSecondPassport(ctx, tx, org, item.ID)
	}
	w.Touch("passport", p.ID)
	return p, domain.Emit(w, PassportCreated{ID: p.ID, Item: item.ID})
}

// refuseSecondPassport refuses a second passport of the item, naming the
// first so the client can go on with it.
func refuseSecondPassport(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) error {
	var ids []uuid.UUID
	if err := domain.Tenant(ctx, db, org).Model(&Passport{}).Where("catalog_item_id = ?", itemID).Limit(1).Pluck("id", &ids).Error; err != nil {
		return err
	}
	if len(ids) > 0 {
		return ErrPassportExists.On("catalog_item", "field.passport_exists", ids[0].String())
	}
	return nil
}

// PassportPublish is the body of a publication: the passport's revision
// and, optionally, the item revision the publisher reviewed.
type PassportPublish struct {
	input.Errors
	Revision        input.Opt[int]
	CatalogRevision input.Opt[int]
}

// Declare names the publication's fields.
func (in *PassportPublish) Declare(f *input.Fields) {
	f.Int("revision", &in.Revision, input.Revision(true))
	revision := input.Revision(false)
	revision.Desc = "passport.publish_catalog_revision"
	f.Int("catalog_revision", &in.CatalogRevision, revision)
}

// PublishPassport freezes the passport's next version from the item's
// current state and returns it with its document, which the caller
// stores under the version's object key before the unit commits. Parts
// the item lacks do not block it: the document lists them in missing.
func PublishPassport(w *work.Unit, id uuid.UUID, in *PassportPublish) (*Passport, *PassportVersion, error) {
	p, err := domain.LockFor[Passport](w.Context(), w.Tx(), w.Organization(), id, "NO KEY UPDATE")
	if err != nil {
		return nil, nil, err
	}
	if in.Failed() {
		return nil, nil, in.Err()
	}
	if p.Revision != in.Revision.Value {
		return nil, nil, domain.ErrRevisionConflict
	}
	item, err := catalog.LockItemShared(w, p.CatalogItemID)
	if err != nil {
		return nil, nil, err
	}
	if in.CatalogRevision.Set() && in.CatalogRevision.Value != item.Revision {
		return nil, nil, domain.ErrRevisionConflict
	}
	at := domain.Now()
	v := &PassportVersion{ID: domain.NewID(), OrganizationID: p.OrganizationID, PassportID: p.ID, Version: p.VersionCount + 1,
		CatalogRevision: item.Revision, PublishedBy: w.Actor().UserID, PublishedAt: at}
	doc, err := buildPassportDocument(w, p, v, item)
	if err != nil {
		return nil, nil, err
	}
	if v.Content, err = canonjson.Marshal(doc); err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(v.Content)
	v.DataVersionID, v.Missing = doc.Item.DataVersion.ID, datatypes.JSONSlice[string](doc.Missing)
	v.ObjectKey, v.SHA256, v.SizeBytes = PassportObjectKey(p.OrganizationID, p.ID, v.Version), hex.EncodeToString(sum[:]), int64(len(v.Content))
	if err := w.Tx().Create(v).Error; err != nil {
		return nil, nil, err
	}
	p.Status, p.VersionCount, p.Revision, p.UpdatedAt = PassportPublished, v.Version, p.Revision+1, at
	if err := w.Tx().Model(p).Select("status", "version_count", "revision", "updated_at").Updates(p).Error; err != nil {
		return nil, nil, err
	}
	w.Touch("passport", p.ID)
	return p, v, domain.Emit(w, PassportPublishedEvent{ID: p.ID, Version: v.Version, SHA256: v.SHA256})
}

// LatestPassportVersions are the newest versions of the passports, by
// passport. They are read for a sharing grant, across organizations: the
// caller has checked the grant.
func LatestPassportVersions(ctx context.Context, db *gorm.DB, passports []uuid.UUID) (map[uuid.UUID]*PassportVersion, error) {
	var rows []PassportVersion
	if err := db.WithContext(ctx).Select("DISTINCT ON (passport_id) *").Where("passport_id IN ?", append(passports, uuid.Nil)).
		Order("passport_id, version DESC").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]*PassportVersion, len(rows))
	for i := range rows {
		out[rows[i].PassportID] = &rows[i]
	}
	return out, nil
}

// PassportDocument is the document of a version. Its JSON is made
// canonical before it is hashed, so field order here does not matter;
// decimals are strings and the only numbers are integers. The schema
// tags document it where a version answers it.
type PassportDocument struct {
	Format          string               `json:"format"`
	Passport        uuid.UUID            `json:"passport"`
	Version         int                  `json:"version"`
	PublishedAt     time.Time            `json:"published_at"`
	Organization    passportOrganization `json:"organization"`
	Item            passportItem         `json:"item"`
	RegisterEntries []passportEntry      `json:"register_entries" schema:"desc=schema.passport_register_entries"`
	EUDeclaration   *passportEntry       `json:"eu_declaration" schema:"desc=schema.passport_eu_declaration"`
	Assessment      *passportAssessment  `json:"assessment" schema:"desc=schema.passport_assessment"`
	Evidence        passportEvidence     `json:"evidence" schema:"desc=schema.passport_evidence"`
	Missing         []string             `json:"missing"`
}

type passportOrganization struct {
	ID   uuid.UUID `json:"id"`
	Name string    `json:"name"`
}

type passportItem struct {
	ID              uuid.UUID           `json:"id"`
	CatalogRevision int                 `json:"catalog_revision"`
	DataVersion     passportDataVersion `json:"data_version"`
}

// passportDataVersion keeps the data version's stored JSON as it is:
// an older version may hold fields the catalog no longer writes.
type passportDataVersion struct {
	ID             uuid.UUID         `json:"id"`
	Revision       int               `json:"revision"`
	SHA256         string            `json:"sha256"`
	Specifications json.RawMessage   `json:"specifications" schema:"object"`
	Components     []json.RawMessage `json:"components" schema:"object"`
	Markets        []json.RawMessage `json:"markets" schema:"object"`
}

type passportEntry struct {
	ID              uuid.UUID                   `json:"id"`
	Register        string                      `json:"register"`
	CatalogRevision int                         `json:"catalog_revision"`
	DataVersion     uuid.UUID                   `json:"data_version"`
	Components      []uuid.UUID                 `json:"components"`
	MarketScenarios []uuid.UUID                 `json:"market_scenarios"`
	RuleSet         *assessments.RuleSetVersion `json:"rule_set"`
	Values          json.RawMessage             `json:"values" schema:"object"`
	Method          string                      `json:"method"`
	MethodReference *string                     `json:"method_reference"`
	Evidence        []registers.EvidenceRef     `json:"evidence"`
	ValidFrom       string                      `json:"valid_from" schema:"date"`
	ValidUntil      *string                     `json:"valid_until" schema:"date"`
	ReviewStatus    string                      `json:"review_status"`
	ReviewedAt      *time.Time                  `json:"reviewed_at"`
	CreatedAt       time.Time                   `json:"created_at"`
}

type passportAssessment struct {
	ID              uuid.UUID                    `json:"id"`
	CatalogRevision int                          `json:"catalog_revision"`
	DataVersion     uuid.UUID                    `json:"data_version"`
	AssessedOn      string                       `json:"assessed_on" schema:"date"`
	Status          string                       `json:"status"`
	RuleSets        []assessments.RuleSetVersion `json:"rule_sets"`
	Markets         []uuid.UUID                  `json:"markets"`
	Results         []assessments.RuleOutcome    `json:"results"`
	ReviewedAt      *time.Time                   `json:"reviewed_at"`
	Stale           bool                         `json:"stale"`
}

type passportEvidence struct {
	AcceptedValues    []passportFact        `json:"accepted_values"`
	ApprovedDocuments []passportDocumentRef `json:"approved_documents"`
}

type passportFact struct {
	Code            string          `json:"code"`
	Component       *uuid.UUID      `json:"component"`
	Value           decimal.Decimal `json:"value"`
	Unit            string          `json:"unit"`
	Proposal        uuid.UUID       `json:"proposal"`
	DocumentVersion uuid.UUID       `json:"document_version"`
	DecidedAt       time.Time       `json:"decided_at"`
}

type passportDocumentRef struct {
	Link            uuid.UUID `json:"link"`
	LinkType        string    `json:"link_type"`
	Document        uuid.UUID `json:"document"`
	Title           string    `json:"title"`
	DocumentVersion uuid.UUID `json:"document_version"`
	Version         int       `json:"version"`
	FileName        string    `json:"file_name"`
	SHA256          string    `json:"sha256"`
	ValidFrom       *string   `json:"valid_from" schema:"date"`
	ValidUntil      *string   `json:"valid_until" schema:"date"`
}

// buildPassportDocument reads what the version freezes, on the unit's
// transaction, with the item locked.
func buildPassportDocument(w *work.Unit, p *Passport, v *PassportVersion, item *catalog.CatalogItem) (*PassportDocument, error) {
	ctx, tx, org := w.Context(), w.Tx(), w.Organization()
	var owner accounts.Organization
	if err := tx.WithContext(ctx).Take(&owner, "id = ?", org).Error; err != nil {
		return nil, err
	}
	dv, err := domain.Take[catalog.DataVersion](domain.Tenant(ctx, tx, org).Where("catalog_item_id = ? AND revision = ?", item.ID, item.Revision))
	if err != nil {
		return nil, err
	}
	frozen := passportDataVersion{ID: dv.ID, Revision: dv.Revision, SHA256: dv.SHA256, Specifications: json.RawMessage(dv.Specifications)}
	if err := json.Unmarshal(dv.Components, &frozen.Components); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(dv.Markets, &frozen.Markets); err != nil {
		return nil, err
	}
	doc := &PassportDocument{Format: PassportFormat, Passport: p.ID, Version: v.Version, PublishedAt: v.PublishedAt,
		Organization:    passportOrganization{ID: owner.ID, Name: owner.Name},
		Item:            passportItem{ID: item.ID, CatalogRevision: item.Revision, DataVersion: frozen},
		RegisterEntries: []passportEntry{}, Missing: []string{}}
	entries, err := currentAcceptedEntries(ctx, tx, org, item)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		e := passportEntryOf(&entries[i])
		doc.RegisterEntries = append(doc.RegisterEntries, e)
		if e.Register == "eu-declarations" {
			// Entries come oldest first: the last is the newest.
			doc.EUDeclaration = &e
		}
	}
	if doc.Assessment, err = latestPublishedAssessment(ctx, tx, org, item.ID); err != nil {
		return nil, err
	}
	if doc.Evidence, err = passportEvidenceOf(ctx, tx, org, item.ID); err != nil {
		return nil, err
	}
	if doc.Assessment == nil {
		doc.Missing = append(doc.Missing, PassportMissingAssessment)
	}
	if doc.EUDeclaration == nil {
		doc.Missing = append(doc.Missing, PassportMissingDeclaration)
	}
	return doc, nil
}

// currentAcceptedEntries are the item's entries a passport cites: active
// (not superseded), made on the item's current revision, accepted (or of a
// register without review) and valid today.
func currentAcceptedEntries(ctx context.Context, db *gorm.DB, org uuid.UUID, item *catalog.CatalogItem) ([]registers.RegisterEntry, error) {
	var entries []registers.RegisterEntry
	on := domain.Today().Format(time.DateOnly)
	err := domain.Tenant(ctx, db, org).Where("catalog_item_id = ? AND status = ? AND catalog_revision = ? AND review_status IN ?",
		item.ID, registers.EntryActive, item.Revision, []string{registers.EntryAccepted, registers.EntryNotReviewable}).
		Where("valid_from <= ? AND (valid_until IS NULL OR valid_until >= ?)", on, on).
		Order("register, id").Find(&entries).Error
	return entries, err
}

func passportEntryOf(e *registers.RegisterEntry) passportEntry {
	out := passportEntry{ID: e.ID, Register: e.Register, CatalogRevision: e.CatalogRevision, DataVersion: e.DataVersionID,
		Components: domain.NonNilIDs(e.Components), MarketScenarios: domain.NonNilIDs(e.MarketScenarios), Values: json.RawMessage(e.Values),
		Method: e.Method, MethodReference: e.MethodReference, Evidence: slices.Clone(e.Evidence), ValidFrom: e.ValidFrom.Format(time.DateOnly),
		ValidUntil: dayOfTime(e.ValidUntil), ReviewStatus: e.ReviewStatus, ReviewedAt: utcOf(e.ReviewedAt), CreatedAt: e.CreatedAt.UTC()}
	if out.Evidence == nil {
		out.Evidence = []registers.EvidenceRef{}
	}
	if e.RuleSet != nil {
		out.RuleSet = &assessments.RuleSetVersion{Code: *e.RuleSet, Version: *e.RuleSetVersion}
	}
	return out
}

// latestPublishedAssessment is the item's newest published assessment,
// saying whether what it read has changed since.
func latestPublishedAssessment(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (*passportAssessment, error) {
	a, stale, err := assessments.LatestPublishedAssessment(ctx, db, org, itemID)
	if err != nil || a == nil {
		return nil, err
	}
	return &passportAssessment{ID: a.ID, CatalogRevision: a.CatalogRevision, DataVersion: a.DataVersionID,
		AssessedOn: a.AssessedOn.Format(time.DateOnly), Status: a.Status, RuleSets: a.RuleSets, Markets: domain.NonNilIDs(a.Markets),
		Results: a.Results, ReviewedAt: utcOf(a.ReviewedAt), Stale: stale}, nil
}

// passportEvidenceOf is the item's accepted evidence values and the
// approved document versions linked to it and valid today.
func passportEvidenceOf(ctx context.Context, db *gorm.DB, org, itemID uuid.UUID) (passportEvidence, error) {
	out := passportEvidence{AcceptedValues: []passportFact{}, ApprovedDocuments: []passportDocumentRef{}}
	facts, err := documents.EvidencedFacts(ctx, db, org, itemID)
	if err != nil {
		return out, err
	}
	for _, f := range facts {
		out.AcceptedValues = append(out.AcceptedValues, passportFact{Code: f.Code, Component: f.ComponentID, Value: f.Value, Unit: f.Unit,
			Proposal: f.ProposalID, DocumentVersion: f.DocumentVersionID, DecidedAt: f.DecidedAt.UTC()})
	}
	var links []documents.TraceabilityLinkView
	if err := documents.ValidTraceabilityLinks(domain.Tenant(ctx, db, org), itemID).Order("id").Find(&links).Error; err != nil {
		return out, err
	}
	ids := make([]uuid.UUID, len(links))
	for i, l := range links {
		ids[i] = l.DocumentVersionID
	}
	var versions []documents.DocumentVersion
	if err := domain.Tenant(ctx, db, org).Where("id IN ?", append(ids, uuid.Nil)).Find(&versions).Error; err != nil {
		return out, err
	}
	for _, l := range links {
		i := slices.IndexFunc(versions, func(v documents.DocumentVersion) bool { return v.ID == l.DocumentVersionID })
		if i < 0 {
			continue
		}
		v := versions[i]
		out.ApprovedDocuments = append(out.ApprovedDocuments, passportDocumentRef{Link: l.ID, LinkType: l.LinkType, Document: l.DocumentID,
			Title: l.DocumentTitle, DocumentVersion: v.ID, Version: v.Version, FileName: v.FileName, SHA256: v.SHA256,
			ValidFrom: dayOfTime(l.ValidFrom), ValidUntil: dayOfTime(l.ValidUntil)})
	}
	return out, nil
}

func dayOfTime(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format(time.DateOnly)
	return &s
}

func utcOf(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// PassportCreated announces a new draft passport of an item.
type PassportCreated struct {
	ID   uuid.UUID `json:"id"`
	Item uuid.UUID `json:"item"`
}

func (PassportCreated) EventType() string { return "passport.created" }

// PassportPublishedEvent announces a new version of a passport with the
// digest of its document.
type PassportPublishedEvent struct {
	ID      uuid.UUID `json:"id"`
	Version int       `json:"version"`
	SHA256  string    `json:"sha256"`
}

func (PassportPublishedEvent) EventType() string { return "passport.published" }
