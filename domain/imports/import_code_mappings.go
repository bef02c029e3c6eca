package imports

import (
	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// CodeMappingImportColumns are the columns of a code_mappings import: the
// dictionary, the organization's own code and the dictionary code it
// stands for.
var CodeMappingImportColumns = []string{"dictionary", "sourceCode", "code"}

// codeMappingPlanner plans the rows of a code_mappings import: a new
// mapping, a changed code for a mapped source code, or unchanged. The
// organization's mappings are read once, with the first batch: an import
// does not change them before it is applied.
type codeMappingPlanner struct {
	seen     fileKeys
	existing map[string]*catalog.CodeMapping // dictionary|folded source code → mapping
}

func (p *codeMappingPlanner) Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error) {
	if p.existing == nil {
		var mappings []catalog.CodeMapping
		if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).Find(&mappings).Error; err != nil {
			return nil, err
		}
		p.seen, p.existing = fileKeys{}, map[string]*catalog.CodeMapping{}
		for i := range mappings {
			p.existing[mappings[i].Dictionary+"|"+catalog.FoldKey(mappings[i].SourceCode)] = &mappings[i]
		}
	}
	existing := p.existing
	rows := make([]ImportRow, len(cells))
	for i, c := range cells {
		rows[i] = *newImportRow(w, importID, first+i, c)
		in := &catalog.CodeMappingInput{}
		input.FromCells(c, in)
		key := in.Dictionary.Value + "|" + catalog.FoldKey(in.SourceCode.Value)
		if !in.Has("dictionary") && !in.Has("sourceCode") {
			p.seen.once(key, rows[i].Number, "sourceCode", &in.Errors)
		}
		fields := textValues(map[string]input.Opt[string]{"dictionary": in.Dictionary, "sourceCode": in.SourceCode, "code": in.Code})
		switch m := existing[key]; {
		case m == nil:
			rows[i].decide(&in.Errors, OutcomeCreate, RowChange{Fields: fields})
		case m.Code == in.Code.Value:
			rows[i].decide(&in.Errors, OutcomeUnchanged, RowChange{CodeMapping: m.ID})
		default:
			rows[i].decide(&in.Errors, OutcomeUpdate, RowChange{CodeMapping: m.ID, Fields: fields,
				Changes: map[string]FieldChange{"code": {From: text(m.Code), To: text(in.Code.Value)}}})
		}
	}
	return rows, nil
}

// applyCodeMappingRow saves the planned mapping.
func applyCodeMappingRow(w *work.Unit, row *ImportRow) (RowChange, error) {
	cells, err := plannedCells(row)
	if err != nil {
		return RowChange{}, err
	}
	in := &catalog.CodeMappingInput{}
	input.FromCells(cells, in)
	m, err := catalog.SaveCodeMapping(w, in)
	if err != nil {
		return RowChange{}, err
	}
	return RowChange{CodeMapping: m.ID}, nil
}
