package catalog

import (
	"maps"
	"strings"
	"time"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/internal/dictionaries"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// CodeMapping maps one of the organization's own codes (say its material
// name "Karton 3W") to a dictionary code, so its files import as they are.
type CodeMapping struct {
	ID             uuid.UUID `gorm:"type:uuid;primaryKey"`
	OrganizationID uuid.UUID `gorm:"type:uuid"`
	Dictionary     string
	SourceCode     string
	Code           string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// SourceCodeMax bounds an organization's own code.
const SourceCodeMax = 100

// CodeMappingDictionaries are the dictionaries a code can be mapped into,
// with how each knows its codes.
var CodeMappingDictionaries = []string{"materials", "countries", "economic_roles", "document_types", "packaging_categories", "packaging_formats"}

func dictionaryKnows(dictionary string) func(string) bool {
	d := dictionaries.Default()
	return map[string]func(string) bool{
		"materials": d.HasMaterial, "countries": d.HasCountry, "economic_roles": d.HasEconomicRole,
		"document_types": d.HasDocumentType, "packaging_categories": d.HasPackagingCategory, "packaging_formats": d.HasPackagingFormat,
	}[dictionary]
}

// CodeMappingInput is one mapping: a dictionary, the organization's code
// and the dictionary code it stands for.
type CodeMappingInput struct {
	input.Errors
	Dictionary input.Opt[string]
	SourceCode input.Opt[string]
	Code       input.Opt[string]
}

// Declare names the mapping's fields; the code must be one of the named
// dictionary's.
func (in *CodeMappingInput) Declare(f *input.Fields) {
	f.Enum("dictionary", &in.Dictionary, input.Enum{Required: true, Values: CodeMappingDictionaries})
	f.Text("sourceCode", &in.SourceCode, input.Text{Required: true, NotBlank: true, Max: SourceCodeMax})
	f.Text("code", &in.Code, input.Text{Required: true, NotBlank: true, Max: SourceCodeMax})
	if f.Binding() && in.Dictionary.Set() && in.Code.Set() && !in.Has("dictionary") && !in.Has("code") &&
		!dictionaryKnows(in.Dictionary.Value)(in.Code.Value) {
		f.Fail("code", "field.code_not_in_dictionary", in.Dictionary.Value)
	}
}

// SaveCodeMapping creates the mapping of its source code, or changes the
// code an existing one maps to.
func SaveCodeMapping(w *work.Unit, in *CodeMappingInput) (*CodeMapping, error) {
	if in.Failed() {
		return nil, in.Err()
	}
	var m CodeMapping
	err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).
		Where("dictionary = ? AND lower(source_code) = lower(?)", in.Dictionary.Value, in.SourceCode.Value).
		Limit(1).Find(&m).Error
	if err != nil {
		return nil, err
	}
	stamp := domain.Now()
	if m.ID == uuid.Nil {
		m = CodeMapping{ID: domain.NewID(), OrganizationID: w.Organization(), Dictionary: in.Dictionary.Value,
			SourceCode: in.SourceCode.Value, Code: in.Code.Value, CreatedAt: stamp, UpdatedAt: stamp}
		err = w.Tx().Create(&m).Error
	} else {
		m.Code, m.UpdatedAt = in.Code.Value, stamp
		err = w.Tx().Model(&m).Updates(map[string]any{"code": m.Code, "updated_at": stamp}).Error
	}
	w.Touch("code_mapping", m.ID)
	return &m, err
}

// CodeMapper resolves the organization's own codes in the cells of an
// import's rows, with the mappings as they were when the preview began.
type CodeMapper struct {
	byDictionary map[string]map[string]string // dictionary → folded source code → code
}

// Resolve returns cells with each field's value replaced by the code it is
// mapped to in the field's dictionary, if it is mapped; the row's input
// keeps what the file said. Cells without a mapped value are returned as
// they are.
func (m *CodeMapper) Resolve(w *work.Unit, cells map[string]string, dictionaryOf map[string]string) (map[string]string, error) {
	if m.byDictionary == nil {
		var all []CodeMapping
		if err := domain.Tenant(w.Context(), w.Read(), w.Organization()).Find(&all).Error; err != nil {
			return nil, err
		}
		m.byDictionary = map[string]map[string]string{}
		for _, c := range all {
			if m.byDictionary[c.Dictionary] == nil {
				m.byDictionary[c.Dictionary] = map[string]string{}
			}
			m.byDictionary[c.Dictionary][FoldKey(c.SourceCode)] = c.Code
		}
	}
	// Cells are copied only when a value is mapped, and only a field whose
	// dictionary has mappings is looked up: copying every row and folding
	// every cell was a sixth of planning a 100,000-row catalogue.
	out, copied := cells, false
	for field, v := range cells {
		mapped := m.byDictionary[dictionaryOf[field]]
		if len(mapped) == 0 || v == "" {
			continue
		}
		if code, ok := mapped[FoldKey(v)]; ok {
			if !copied {
				out, copied = maps.Clone(cells), true
			}
			out[field] = code
		}
	}
	return out, nil
}

// FoldKey is how keys compare that match whatever their case.
func FoldKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
