package imports

import (
	"strings"

	"github.com/google/uuid"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/internal/input"
	"ppwr/internal/work"
)

// PartnerImportColumns are the columns of a partners import: the fields of
// a new party.
var PartnerImportColumns = []string{"name", "roles", "country", "tax_id", "email", "address"}

// partnerCodes are the partner columns whose values may be the
// organization's own codes.
var partnerCodes = map[string]string{"country": "countries"}

// partnerPlanner plans the rows of a partners import. Parties are created
// only: a row naming a party the organization has (the same tax id, or
// without one the same name in the same country) is unchanged, so a file
// imported twice creates nobody twice.
type partnerPlanner struct {
	seen   fileKeys
	mapper catalog.CodeMapper
}

// partnerKey identifies a party for an import: its tax id, else its name
// and country.
func partnerKey(taxID, name, country string) string {
	if taxID = catalog.FoldKey(taxID); taxID != "" {
		return "tax:" + taxID
	}
	return "name:" + catalog.FoldKey(name) + "|" + strings.ToUpper(country)
}

func (p *partnerPlanner) Plan(w *work.Unit, importID uuid.UUID, first int, cells []map[string]string) ([]ImportRow, error) {
	if p.seen == nil {
		p.seen = fileKeys{}
	}
	rows := make([]ImportRow, len(cells))
	ins := make([]*catalog.PartyCreate, len(cells))
	var taxIDs, names []string
	for i, c := range cells {
		resolved, err := p.mapper.Resolve(w, c, partnerCodes)
		if err != nil {
			return nil, err
		}
		rows[i] = *newImportRow(w, importID, first+i, c)
		ins[i] = &catalog.PartyCreate{}
		input.FromCells(resolved, ins[i])
		taxIDs, names = append(taxIDs, catalog.FoldKey(ins[i].TaxID.Value)), append(names, catalog.FoldKey(ins[i].Name.Value))
	}
	var parties []catalog.Party
	if err := domain.Tenant(w.Context(), w.Tx(), w.Organization()).
		Where("lower(tax_id)"+inBatch+" OR lower(name)"+inBatch, batchKeys(taxIDs), batchKeys(names)).Find(&parties).Error; err != nil {
		return nil, err
	}
	existing := map[string]uuid.UUID{}
	for _, party := range parties {
		existing[partnerKey(party.TaxID, party.Name, party.CountryCode)] = party.ID
		existing[partnerKey("", party.Name, party.CountryCode)] = party.ID
	}
	for i, in := range ins {
		key := partnerKey(in.TaxID.Value, in.Name.Value, in.Country.Value)
		if !in.Failed() {
			p.seen.once(key, rows[i].Number, "name", &in.Errors)
		}
		if id, ok := existing[key]; ok {
			rows[i].decide(&in.Errors, OutcomeUnchanged, RowChange{Party: id})
			continue
		}
		fields := textValues(map[string]input.Opt[string]{"name": in.Name, "country": in.Country, "tax_id": in.TaxID,
			"email": in.Email, "address": in.Address})
		if in.Roles.Set() {
			fields["roles"] = text(strings.Join(in.Roles.Value, ","))
		}
		rows[i].decide(&in.Errors, OutcomeCreate, RowChange{Fields: fields})
	}
	return rows, nil
}

// applyPartnerRow creates the planned party.
func applyPartnerRow(w *work.Unit, row *ImportRow) (RowChange, error) {
	cells, err := plannedCells(row)
	if err != nil {
		return RowChange{}, err
	}
	in := &catalog.PartyCreate{}
	input.FromCells(cells, in)
	party, err := catalog.CreateParty(w, in)
	if err != nil {
		return RowChange{}, err
	}
	return RowChange{Party: party.ID}, nil
}
