package documents

import (
	"encoding/json"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// Kinds of documents the service renders from an item's data version,
// with the document type each is filed as. A generated document is a
// draft: the service never signs anything.
const (
	GeneratedSpecificationSheet       = "specification_sheet"
	GeneratedDeclarationOfConformity  = "declaration_of_conformity"
	GeneratedTechnicalDocumentSummary = "technical_documentation_summary"
)

// GeneratedKinds are the kinds, in their order.
var GeneratedKinds = []string{GeneratedSpecificationSheet, GeneratedDeclarationOfConformity, GeneratedTechnicalDocumentSummary}

var generatedTypes = map[string]string{
	GeneratedSpecificationSheet:       "specification_sheet",
	GeneratedDeclarationOfConformity:  "eu_declaration_of_conformity",
	GeneratedTechnicalDocumentSummary: "technical_documentation",
}

// GenerateDocument is the body of a generated document.
type GenerateDocument struct {
	input.Errors
	Kind            input.Opt[string]
	CatalogRevision input.Opt[int]
	Language        input.Opt[string]
}

// Declare names the body's fields; the language defaults to the
// request's.
func (in *GenerateDocument) Declare(f *input.Fields) {
	f.Enum("kind", &in.Kind, input.Enum{Required: true, Values: GeneratedKinds})
	f.Int("catalog_revision", &in.CatalogRevision, input.Revision(true))
	f.Enum("language", &in.Language, input.Enum{Values: []string{"pl", "en"}})
}

// GenerationBasis is what a generated document is rendered from: the
// item, its data version at the requested revision and its organization.
type GenerationBasis struct {
	Item           *catalog.CatalogItem
	Version        *catalog.DataVersion
	Specifications catalog.ItemSpecifications
	Components     []catalog.VersionComponent
	Organization   string
}

// LoadGenerationBasis reads the organization's item and its data version
// at the body's revision (any revision the item had: a document can be
// drawn up for an earlier state); a revision the item never had is
// refused on catalog_revision.
func LoadGenerationBasis(w *work.Unit, itemID uuid.UUID, in *GenerateDocument) (*GenerationBasis, error) {
	item, err := catalog.LockItemShared(w, itemID)
	if err != nil {
		return nil, err
	}
	if in.Failed() {
		return nil, in.Err()
	}
	var versions []catalog.DataVersion
	if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Where("catalog_item_id = ? AND revision = ?", item.ID, in.CatalogRevision.Value).
		Limit(1).Find(&versions).Error; err != nil {
		return nil, err
	}
	if len(versions) == 0 {
		return nil, input.Invalidf("catalog_revision", "field.revision_unknown", item.Revision)
	}
	b := &GenerationBasis{Item: item, Version: &versions[0]}
	if err := json.Unmarshal(b.Version.Specifications, &b.Specifications); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b.Version.Components, &b.Components); err != nil {
		return nil, err
	}
	var org accounts.Organization
	if err := w.Tx().Take(&org, "id = ?", w.Organization()).Error; err != nil {
		return nil, err
	}
	b.Organization = org.Name
	return b, nil
}

// CreateGeneratedDocument files a rendered, stored PDF as a new document
// about the item with its first version, like an upload, so it is
// processed and reviewed as any other file.
func CreateGeneratedDocument(w *work.Unit, b *GenerationBasis, documentID uuid.UUID, kind, title, language string, versionID uuid.UUID, file StoredFile) (*DocumentVersion, error) {
	doc := &Document{ID: documentID, GeneratedKind: &kind}
	in := &DocumentUpload{
		DocumentType: input.Of(generatedTypes[kind]), Title: input.Of(title),
		CatalogItem: input.Of(b.Item.ID), Language: input.Of(language),
	}
	v, err := CreateDocument(w, doc, versionID, in, file)
	if err != nil {
		return nil, err
	}
	return v, domain.Emit(w, GeneratedDocumentCreated{ID: v.ID})
}
