// Package carbonref holds the reference carbon factor sets the service
// ships as versioned data (ppwr-facts §5.1), and the cradle-to-gate
// arithmetic of a packaging component (§5.3). A new edition of a source is
// a new set beside the old one, never an overwrite, so past calculations
// keep the factors they cite.
package carbonref

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/shopspring/decimal"
)

// Variants of a factor: primary material, the closed-loop recycled
// source, or re-use.
const (
	Primary  = "primary"
	Recycled = "recycled"
	ReUsed   = "re_used"
)

// Set is one published factor set.
type Set struct {
	Code      string `json:"code"`
	Title     string `json:"title"`
	Publisher string `json:"publisher"`
	Year      int    `json:"year"`
	Licence   string `json:"licence"`
	Scope     string `json:"scope"`
	Unit      string `json:"unit"`
	Note      string `json:"note"`
	Rows      []Row  `json:"rows"`
}

// Row is one factor as published, in kg CO2e per tonne, with the material
// codes of the dictionaries it stands for.
type Row struct {
	RowID       string          `json:"row_id"`
	Name        string          `json:"name"`
	Variant     string          `json:"variant"`
	VariantText string          `json:"variant_text"`
	Value       decimal.Decimal `json:"value"`
	Boundary    *string         `json:"boundary"`
	Materials   []string        `json:"materials"`
}

// PerKg is the factor in kg CO2e per kg of material.
func (r Row) PerKg() decimal.Decimal { return r.Value.Div(thousand) }

var thousand = decimal.NewFromInt(1000)

//go:embed desnz-2025-material-use.json
var desnz2025 []byte

// Sets are the reference sets, newest first.
var Sets = []Set{mustParse(desnz2025)}

func mustParse(raw []byte) Set {
	var s Set
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(fmt.Sprintf("carbonref: %v", err))
	}
	return s
}

// Find is the newest reference row for a material code and variant.
func Find(material, variant string) (Set, Row, bool) {
	for _, s := range Sets {
		for _, r := range s.Rows {
			if r.Variant != variant {
				continue
			}
			for _, m := range r.Materials {
				if m == material {
					return s, r, true
				}
			}
		}
	}
	return Set{}, Row{}, false
}

// ComponentKg is the cradle-to-gate footprint, in kg CO2e, of massG grams
// of a material with the recycled share r (0 to 1):
// mass_kg × ((1 − r) × F_primary + r × F_recycled), with F in kg CO2e per
// kg. The recycled factor is only read when r > 0.
func ComponentKg(massG, r, primaryPerKg, recycledPerKg decimal.Decimal) decimal.Decimal {
	kg := massG.Div(thousand)
	one := decimal.NewFromInt(1)
	factor := one.Sub(r).Mul(primaryPerKg)
	if r.IsPositive() {
		factor = factor.Add(r.Mul(recycledPerKg))
	}
	return kg.Mul(factor)
}
