package packing

import (
	"net/http"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain/packing"
	a "ppwr/internal/access"
)

// legalBasis cites the rule the empty-space limit comes from.
const legalBasis = "Regulation (EU) 2025/40 (PPWR), Art. 24(1)"

func (h *handlers) recommendations() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("recommendPacking", kit.Org+"/packing-recommendations", tag, a.FlowsRead, a.CatalogView).Computes().WithRate(kit.RateRecommendations).
				Handle(kit.JSON(h.recommendPacking), kit.OK(kit.Ref("PackingRecommendation"))),
		},
		Models: []kit.Model{
			kit.ModelOf[recommendationJSON]("PackingRecommendation").Described("schema.packing_recommendation"),
			kit.ModelOf[candidateJSON]("PackingCandidate"),
		},
	}
}

type recommendationJSON struct {
	Candidates             []candidateJSON `json:"candidates"`
	ProductsVolumeMm3      decimal.Decimal `json:"products_volume_mm3"`
	EmptySpaceLimitPercent decimal.Decimal `json:"empty_space_limit_percent"`
	LegalBasis             string          `json:"legal_basis"`
}

type candidateJSON struct {
	Item                  uuid.UUID        `json:"item"`
	InternalCode          string           `json:"internal_code"`
	Name                  string           `json:"name"`
	InnerLengthMm         decimal.Decimal  `json:"inner_length_mm"`
	InnerWidthMm          decimal.Decimal  `json:"inner_width_mm"`
	InnerHeightMm         decimal.Decimal  `json:"inner_height_mm"`
	InnerVolumeMm3        decimal.Decimal  `json:"inner_volume_mm3"`
	ProductsVolumeMm3     decimal.Decimal  `json:"products_volume_mm3"`
	EmptySpaceRatio       string           `json:"empty_space_ratio" schema:"decimal"`
	WithinEmptySpaceLimit bool             `json:"within_empty_space_limit"`
	MassG                 decimal.Decimal  `json:"mass_g"`
	StockTracked          bool             `json:"stock_tracked"`
	Available             *decimal.Decimal `json:"available"`
}

func (h *handlers) recommendPacking(c *gin.Context, in *packing.RecommendationRequest) error {
	if in.Failed() {
		return in.Err()
	}
	rec, err := packing.RecommendPacking(c.Request.Context(), h.DB, kit.OrgID(c), in)
	if err != nil {
		return err
	}
	out := recommendationJSON{
		Candidates: make([]candidateJSON, len(rec.Candidates)), ProductsVolumeMm3: rec.ProductsVolume,
		EmptySpaceLimitPercent: packing.EmptySpaceLimitPercent, LegalBasis: legalBasis,
	}
	for i, cand := range rec.Candidates {
		out.Candidates[i] = candidateJSON{
			Item: cand.Item.ID, InternalCode: cand.Item.InternalCode, Name: cand.Item.Name,
			InnerLengthMm: cand.Inner[0], InnerWidthMm: cand.Inner[1], InnerHeightMm: cand.Inner[2],
			InnerVolumeMm3: cand.Inner.Volume(), ProductsVolumeMm3: rec.ProductsVolume,
			EmptySpaceRatio: cand.EmptySpace.StringFixed(2), WithinEmptySpaceLimit: cand.WithinLimit,
			MassG: cand.Item.MassG, StockTracked: cand.Item.StockTracked, Available: cand.Available,
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}
