package imports

import (
	"time"

	"github.com/google/uuid"

	"ppwr/domain/catalog"
	"ppwr/domain/documents"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// DocumentMetadataImportColumns are the columns of a document_metadata
// import: the document and the metadata it gets.
var DocumentMetadataImportColumns = []string{"document", "title", "documentType", "issuer", "issuedOn", "validUntil"}

// documentCodes are the document columns whose values may be the
// organization's own codes.
var documentCodes = map[string]string{"documentType": "document_types"}

// DocumentMetadataInput is new metadata of an existing document.
type DocumentMetadataInput struct {
	input.Errors
	Document     input.Opt[uuid.UUID]
	Title        input.Opt[string]
	DocumentType input.Opt[string]
	Issuer       input.Opt[string]
	IssuedOn     input.Opt[time.Time]
	ValidUntil   input.Opt[time.Time]
}

// Declare names the metadata's fields; a document is valid until a day
// after it was issued, not before.
func (in *DocumentMetadataInput) Declare(f *input.Fields) {
	f.Ref("document", &in.Document, input.Ref{Required: true})
	f.Text("title", &in.Title, input.Text{NotBlank: true, Max: documents.DocumentTitleMax})
	f.Code("documentType", &in.DocumentType, input.Code{Known: dictionaries.Default().HasDocumentType})
	f.Text("issuer", &in.Issuer, input.Text{NotBlank: true, Max: documents.DocumentIssuerMax})
	f.Date("issuedOn", &in.IssuedOn, input.Date{})
	f.Date("validUntil", &in.ValidUntil, input.Date{})
	if f.Binding() && in.IssuedOn.Set() && in.ValidUntil.Set() && in.ValidUntil.Value.Before(in.IssuedOn.Value) {
		f.Fail("validUntil", "field.valid_until_before_issued")
	}
}

// documentMetadataPlanner validates and plans the rows of a
// document_metadata import. Documents are not built yet, so a planned row
// cannot be checked against its document nor applied: its plan says so
// (plannedOnly), and applying the import is refused.
type documentMetadataPlanner struct {
	seen   fileKeys
	mapper catalog.CodeMapper
}

func (p *documentMetadataPlanner) Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error) {
	if p.seen == nil {
		p.seen = fileKeys{}
	}
	rows := make([]ImportRow, len(cells))
	for i, c := range cells {
		resolved, err := p.mapper.Resolve(w, c, documentCodes)
		if err != nil {
			return nil, err
		}
		rows[i] = *newImportRow(w, importID, first+i, c)
		in := &DocumentMetadataInput{}
		input.FromCells(resolved, in)
		if in.Document.Set() && !in.Has("document") {
			p.seen.once(in.Document.Value.String(), rows[i].Number, "document", &in.Errors)
		}
		fields := textValues(map[string]input.Opt[string]{"title": in.Title, "documentType": in.DocumentType, "issuer": in.Issuer})
		for name, d := range map[string]input.Opt[time.Time]{"issuedOn": in.IssuedOn, "validUntil": in.ValidUntil} {
			if d.Set() {
				fields[name] = text(d.Value.Format(time.DateOnly))
			}
		}
		rows[i].decide(&in.Errors, OutcomeUpdate, RowChange{Document: in.Document.Value, Fields: fields, PlannedOnly: true})
	}
	return rows, nil
}
