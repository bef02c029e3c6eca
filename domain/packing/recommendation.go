package packing

import (
	"context"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain/catalog"
	"ppwr/domain/stock"
	"ppwr/internal/input"
)

// Limits of a packing recommendation.
const (
	// RecommendationUnitsMax is the spec's limit of product units in one
	// recommendation.
	RecommendationUnitsMax = 100
	// RecommendationLimitMax bounds the candidates asked for;
	// RecommendationLimitDefault is the number answered when none is.
	RecommendationLimitMax     = 20
	RecommendationLimitDefault = 5
)

// EmptySpaceLimitPercent is PPWR Art. 24(1)'s maximum empty-space ratio of
// grouped, transport and e-commerce packaging.
var EmptySpaceLimitPercent = decimal.NewFromInt(50)

// Dimensions are the length, width and height of a product or of a box's
// inside, in millimetres.
type Dimensions [3]decimal.Decimal

// sorted are the dimensions from the smallest to the largest: one box fits
// into another in some orientation exactly when each of its sorted
// dimensions is at most the other's.
func (d Dimensions) sorted() Dimensions {
	slices.SortFunc(d[:], decimal.Decimal.Cmp)
	return d
}

// Volume is the product of the dimensions, in cubic millimetres.
func (d Dimensions) Volume() decimal.Decimal { return d[0].Mul(d[1]).Mul(d[2]) }

// FitsIn reports whether d fits inside box in at least one of its six
// orientations.
func (d Dimensions) FitsIn(box Dimensions) bool {
	p, b := d.sorted(), box.sorted()
	return p[0].LessThanOrEqual(b[0]) && p[1].LessThanOrEqual(b[1]) && p[2].LessThanOrEqual(b[2])
}

// gridHolds reports whether box holds quantity of d stacked in a grid, all
// in one orientation, in one of the six orientations.
func (d Dimensions) gridHolds(box Dimensions, quantity decimal.Decimal) bool {
	for _, o := range [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
		n := decimal.NewFromInt(1)
		for axis, i := range o {
			whole, _ := box[axis].QuoRem(d[i], 0)
			n = n.Mul(whole)
		}
		if n.GreaterThanOrEqual(quantity) {
			return true
		}
	}
	return false
}

// PackedProduct is one kind of product to pack: its dimensions and how
// many units.
type PackedProduct struct {
	Dimensions Dimensions
	Quantity   int
}

// Packing is what a recommendation packs.
type Packing []PackedProduct

// Volume is the products' total volume.
func (p Packing) Volume() decimal.Decimal {
	total := decimal.Zero
	for _, prod := range p {
		total = total.Add(prod.Dimensions.Volume().Mul(decimal.NewFromInt(int64(prod.Quantity))))
	}
	return total
}

// largest are, for each rank of sorted dimension, the largest among the
// products: a box fits every product exactly when its own sorted
// dimensions reach these.
func (p Packing) largest() Dimensions {
	var out Dimensions
	for _, prod := range p {
		s := prod.Dimensions.sorted()
		for i := range out {
			out[i] = decimal.Max(out[i], s[i])
		}
	}
	return out
}

// kinds are the distinct products, whatever their orientation, with their
// quantities summed.
func (p Packing) kinds() Packing {
	var out Packing
	for _, prod := range p {
		s := prod.Dimensions.sorted()
		i := slices.IndexFunc(out, func(k PackedProduct) bool { return k.Dimensions.sorted() == s })
		if i < 0 {
			out = append(out, prod)
			continue
		}
		out[i].Quantity += prod.Quantity
	}
	return out
}

// FitsIn is the recommendation's fit rule, a heuristic rather than 3-D bin
// packing: every product fits the box in some orientation, the products'
// volume is at most the box's, and a single kind of product also fits as a
// grid in one orientation.
func (p Packing) FitsIn(box Dimensions) bool { return p.rule().fits(box) }

// fitRule is the fit rule with what it needs of the products worked out
// once for all the boxes it is applied to.
type fitRule struct {
	largest Dimensions
	volume  decimal.Decimal
	single  *PackedProduct // the only kind of product, if there is one
}

func (p Packing) rule() fitRule {
	r := fitRule{largest: p.largest(), volume: p.Volume()}
	if kinds := p.kinds(); len(kinds) == 1 {
		r.single = &kinds[0]
	}
	return r
}

func (r fitRule) fits(box Dimensions) bool {
	if !r.largest.FitsIn(box) || r.volume.GreaterThan(box.Volume()) {
		return false
	}
	return r.single == nil || r.single.Dimensions.gridHolds(box, decimal.NewFromInt(int64(r.single.Quantity)))
}

// EmptySpaceRatio is the percentage of box's inner volume the products
// leave empty, (inner − products) / inner × 100, rounded up to two
// decimals so that it never understates the empty space.
func EmptySpaceRatio(inner, products decimal.Decimal) decimal.Decimal {
	return inner.Sub(products).Mul(decimal.NewFromInt(100)).DivRound(inner, 16).RoundCeil(2)
}

// RecommendationRequest is the body of a packing recommendation.
type RecommendationRequest struct {
	input.Errors
	Packing Packing
	Limit   input.Opt[int]
}

// Declare names the products and the limit; the product units together
// are at most RecommendationUnitsMax.
func (in *RecommendationRequest) Declare(f *input.Fields) {
	in.Packing = nil
	units := 0
	size := input.Decimal{Required: true, Positive: true}
	f.Items("products", input.Items{Required: true, MinItems: 1, MaxItems: RecommendationUnitsMax, Desc: "schema.recommendation_products"},
		func(_ int, p *input.Fields) {
			var length, width, height input.Opt[decimal.Decimal]
			var quantity input.Opt[int]
			p.Decimal("length_mm", &length, size)
			p.Decimal("width_mm", &width, size)
			p.Decimal("height_mm", &height, size)
			p.Int("quantity", &quantity, input.Int{Required: true, Min: 1, Max: RecommendationUnitsMax})
			units += quantity.Value
			if length.Set() && width.Set() && height.Set() && quantity.Set() {
				in.Packing = append(in.Packing, PackedProduct{Dimensions{length.Value, width.Value, height.Value}, quantity.Value})
			}
		})
	if units > RecommendationUnitsMax {
		f.Fail("products", "field.recommendation_units", RecommendationUnitsMax)
	}
	f.Int("limit", &in.Limit, input.Int{Min: 1, Max: RecommendationLimitMax, Desc: "schema.recommendation_limit"})
}

// Candidate is a catalogue item the products fit into.
type Candidate struct {
	Item        *catalog.CatalogItem
	Inner       Dimensions
	EmptySpace  decimal.Decimal
	WithinLimit bool
	Available   *decimal.Decimal // nil: the item's stock is not tracked
}

// Recommendation is the answer to a RecommendationRequest.
type Recommendation struct {
	ProductsVolume decimal.Decimal
	Candidates     []Candidate
}

// recommendationBatch is how many boxes large enough are read at a time
// while the grid rule turns some of them down: usually the first batch
// already holds the candidates asked for.
const recommendationBatch = 2 * RecommendationLimitMax

// innerVolumeSQL is the expression of the catalog_items_inner_volume
// index: the query must spell it the same way, and name the index's
// status literally, to use the index.
const innerVolumeSQL = "(c.inner_length_mm * c.inner_width_mm * c.inner_height_mm)"

// RecommendPacking finds the organization's active items whose inside
// holds the products, from the least empty space (the smallest inner
// volume: the products' volume is the same for all) and then the lightest.
// It writes nothing.
func RecommendPacking(ctx context.Context, db *gorm.DB, orgID uuid.UUID, in *RecommendationRequest) (*Recommendation, error) {
	limit := RecommendationLimitDefault
	if in.Limit.Set() {
		limit = in.Limit.Value
	}
	rule := in.Packing.rule()
	volume, need := rule.volume, rule.largest
	rec := &Recommendation{ProductsVolume: volume, Candidates: []Candidate{}}
	// Boxes come in index order and the SQL filter is the fit rule but for
	// the grid, which turns down only some of them: read batches until
	// enough pass.
	for offset := 0; len(rec.Candidates) < limit; offset += recommendationBatch {
		var rows []struct {
			catalog.CatalogItem
			Physical, Reserved decimal.NullDecimal
		}
		err := db.WithContext(ctx).Raw(`SELECT c.*, b.physical, b.reserved FROM catalog_items c
			LEFT JOIN stock_balances b ON b.catalog_item_id = c.id
			WHERE c.organization_id = ? AND c.status = '`+catalog.ItemActive+`'
			  AND c.inner_length_mm IS NOT NULL AND c.inner_width_mm IS NOT NULL AND c.inner_height_mm IS NOT NULL
			  AND `+innerVolumeSQL+` >= ?
			  AND least(c.inner_length_mm, c.inner_width_mm, c.inner_height_mm) >= ?
			  AND c.inner_length_mm + c.inner_width_mm + c.inner_height_mm
			      - least(c.inner_length_mm, c.inner_width_mm, c.inner_height_mm)
			      - greatest(c.inner_length_mm, c.inner_width_mm, c.inner_height_mm) >= ?
			  AND greatest(c.inner_length_mm, c.inner_width_mm, c.inner_height_mm) >= ?
			ORDER BY `+innerVolumeSQL+`, c.mass_g, c.internal_code
			LIMIT ? OFFSET ?`,
			orgID, volume, need[0], need[1], need[2], recommendationBatch, offset).Scan(&rows).Error
		if err != nil {
			return nil, err
		}
		for i := 0; i < len(rows) && len(rec.Candidates) < limit; i++ {
			stock := stock.StockBalance{Physical: rows[i].Physical.Decimal, Reserved: rows[i].Reserved.Decimal}
			if c, ok := candidate(&rows[i].CatalogItem, &stock, rule); ok {
				rec.Candidates = append(rec.Candidates, c)
			}
		}
		if len(rows) < recommendationBatch {
			break
		}
	}
	return rec, nil
}

// candidate is item as a candidate, with its stock (zero without a
// balance), if the products fit into it.
func candidate(item *catalog.CatalogItem, stock *stock.StockBalance, rule fitRule) (Candidate, bool) {
	inner := Dimensions{*item.InnerLengthMm, *item.InnerWidthMm, *item.InnerHeightMm}
	if !rule.fits(inner) {
		return Candidate{}, false
	}
	c := Candidate{Item: item, Inner: inner, EmptySpace: EmptySpaceRatio(inner.Volume(), rule.volume)}
	c.WithinLimit = c.EmptySpace.LessThanOrEqual(EmptySpaceLimitPercent)
	if item.StockTracked {
		available := stock.Available()
		c.Available = &available
	}
	return c, true
}
