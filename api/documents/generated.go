package documents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/documents"
	a "ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/pdfgen"
)

// generated declares documents the service renders from an item's data.
func (h *handlers) generated() kit.Area {
	return kit.Area{Operations: []kit.Operation{
		kit.Post("generateDocument", kit.Org+"/catalog-items/{catalogItemId}/generated-documents", tag, a.DocumentsUpload, a.DocumentsUploadPerm).
			Handle(kit.JSON(h.generate), kit.CreatedResponse(kit.Ref("DocumentVersion"), "getDocumentVersion")),
	}}
}

// generate renders the kind of document from the item's data version at
// the body's revision, stores the PDF as the first version of a new
// document about the item and queues its processing like an upload's.
// The PDF is a draft and says so: nothing is signed.
func (h *handlers) generate(c *gin.Context, in *documents.GenerateDocument) error {
	itemID, err := kit.PathID(c, "catalogItemId")
	if err != nil {
		return err
	}
	w := kit.Work(c)
	basis, err := documents.LoadGenerationBasis(w, itemID, in)
	if err != nil {
		return err
	}
	locale := kit.State(c).Locale
	if in.Language.Set() {
		locale = i18n.Locale(in.Language.Value)
	}
	doc := renderable(locale, in.Kind.Value, basis, time.Now().UTC())
	var pdf bytes.Buffer
	if err := pdfgen.Render(&pdf, doc); err != nil {
		return err
	}
	sum := sha256.Sum256(pdf.Bytes())
	documentID, versionID := domain.NewID(), domain.NewID()
	fileName := in.Kind.Value + "-" + basis.Specifications.InternalCode + "-r" + strconv.Itoa(basis.Version.Revision) + ".pdf"
	file := documents.StoredFile{FileName: fileName, ObjectKey: documents.DocumentObjectKey(kit.OrgID(c), documentID, versionID),
		Size: int64(pdf.Len()), SHA256: hex.EncodeToString(sum[:])}
	ctx := c.Request.Context()
	if err := h.Storage.Put(ctx, file.ObjectKey, &pdf, "application/pdf"); err != nil {
		return err
	}
	v, err := documents.CreateGeneratedDocument(w, basis, documentID, in.Kind.Value, doc.Title, string(locale), versionID, file)
	return h.answerUpload(c, v, err, func() { _ = h.Storage.Delete(ctx, file.ObjectKey) })
}

// renderable is the content of a generated document in a language.
func renderable(l i18n.Locale, kind string, b *documents.GenerationBasis, at time.Time) pdfgen.Document {
	t := func(key string, args ...any) string { return i18n.T(l, "generated."+key, args...) }
	s := b.Specifications
	item := pdfgen.Section{Heading: t("item"), Rows: []pdfgen.Row{
		{Label: t("internal_code"), Value: s.InternalCode},
		{Label: t("name"), Value: s.Name},
		{Label: t("mass_g"), Value: s.MassG.String()},
		{Label: t("main_material"), Value: s.MainMaterialCode},
		{Label: t("sourcing_type"), Value: s.SourcingType},
		{Label: t("food_contact"), Value: s.FoodContactStatus},
		{Label: t("reuse_type"), Value: s.ReuseType},
	}}
	if s.InnerLengthMm != nil && s.InnerWidthMm != nil && s.InnerHeightMm != nil {
		item.Rows = append(item.Rows, pdfgen.Row{Label: t("inner_dimensions"),
			Value: s.InnerLengthMm.String() + " × " + s.InnerWidthMm.String() + " × " + s.InnerHeightMm.String() + " mm"})
	}
	components := pdfgen.Section{Heading: t("components")}
	for _, comp := range b.Components {
		components.Rows = append(components.Rows, pdfgen.Row{Label: comp.Name + " (" + comp.Role + ")",
			Value: comp.MaterialCode + ", " + comp.MassG.String() + " g"})
	}
	if len(components.Rows) == 0 {
		components.Paragraphs = []string{t("no_components")}
	}
	basis := pdfgen.Section{Heading: t("basis"), Rows: []pdfgen.Row{
		{Label: t("revision"), Value: strconv.Itoa(b.Version.Revision)},
		{Label: t("data_version"), Value: b.Version.ID.String()},
		{Label: "SHA-256", Value: b.Version.SHA256},
		{Label: t("generated_at"), Value: at.Format(time.RFC3339)},
	}}
	doc := pdfgen.Document{
		Title: t(kind+".title", s.Name), Subtitle: b.Organization + " · " + s.InternalCode,
		Notice: t("draft_notice"), Footer: t("footer", b.Version.Revision), Created: at,
	}
	switch kind {
	case documents.GeneratedDeclarationOfConformity:
		doc.Sections = []pdfgen.Section{
			{Heading: t("doc.identification"), Rows: []pdfgen.Row{{Label: t("doc.number"), Value: t("doc.number_draft")}}},
			{Heading: t("doc.packaging"), Rows: item.Rows[:2]},
			{Heading: t("doc.manufacturer"), Rows: []pdfgen.Row{{Label: t("doc.name"), Value: b.Organization}}},
			{Heading: t("doc.statements"), Paragraphs: []string{t("doc.responsibility"), t("doc.conformity")}},
			item, components,
			{Heading: t("doc.signature"), Paragraphs: []string{t("doc.not_signed")}},
			basis,
		}
	case documents.GeneratedTechnicalDocumentSummary:
		doc.Sections = []pdfgen.Section{item, components,
			{Heading: t("tech.contents"), Paragraphs: []string{t("tech.scope")}}, basis}
	default:
		doc.Sections = []pdfgen.Section{item, components, basis}
	}
	return doc
}
