package ppwr

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/records"
	"ppwr/domain/registers"
	a "ppwr/internal/access"
)

// depositSchemes is the record of the deposit-return schemes items take
// part in (PPWR Art. 50); the service never handles a deposit.
func (h *handlers) depositSchemes() kit.Area {
	scheme := kit.Ref("DepositScheme")
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createDepositScheme", kit.Org+"/ppwr/deposit-schemes", tag, a.PPWRWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.createDepositScheme), kit.CreatedResponse(scheme, "getDepositScheme")),
			kit.Get("getDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}", tag, a.PPWRRead, a.CatalogView).
				Handle(kit.Do(h.getDepositScheme), kit.OK(scheme)),
			kit.Post("reviewDepositScheme", kit.Org+"/ppwr/deposit-schemes/{recordId}/review", tag, a.PPWRReview, a.EvidenceReviewPerm).
				Answers(registers.ErrSelfReview, records.ErrRecordDecided, domain.ErrRevisionConflict).
				Handle(kit.JSONBody("DepositSchemeReview", records.NewDepositReview, kit.Change("recordId", records.ReviewDepositScheme, depositSchemeToJSON)), kit.OK(scheme)),
		},
		Models: []kit.Model{kit.ModelOf[depositSchemeJSON]("DepositScheme").Described("schema.deposit_scheme")},
	}
}

type depositSchemeJSON struct {
	ID               uuid.UUID       `json:"id"`
	Market           string          `json:"market"`
	SchemeName       string          `json:"scheme_name"`
	SchemeOperator   string          `json:"scheme_operator"`
	DepositAmount    decimal.Decimal `json:"deposit_amount"`
	Currency         string          `json:"currency"`
	Items            []uuid.UUID     `json:"items"`
	LabelRequirement string          `json:"label_requirement"`
	LabelApplied     bool            `json:"label_applied"`
	Evidence         []uuid.UUID     `json:"evidence"`
	ParticipatesFrom string          `json:"participates_from" schema:"date"`
	CreatedAt        time.Time       `json:"created_at"`
	kit.ReviewJSON
}

func (depositSchemeJSON) Declare(s *kit.Shape) {
	s.Enum("review_status", registers.EntryUnreviewed, registers.EntryAccepted, registers.EntryRejected)
}

func depositSchemeToJSON(s *records.DepositScheme) depositSchemeJSON {
	return depositSchemeJSON{ID: s.ID, Market: s.Market, SchemeName: s.SchemeName, SchemeOperator: s.SchemeOperator,
		DepositAmount: s.DepositAmount, Currency: s.Currency, Items: s.Items, LabelRequirement: s.LabelRequirement,
		LabelApplied: s.LabelApplied, Evidence: s.Evidence, ParticipatesFrom: s.ParticipatesFrom.Format(time.DateOnly),
		CreatedAt: s.CreatedAt.UTC(), ReviewJSON: kit.Review(&s.ReviewState)}
}

func (h *handlers) createDepositScheme(c *gin.Context, in *records.DepositSchemeCreate) error {
	s, err := records.CreateDepositScheme(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.Created(c, s.ID, depositSchemeToJSON(s))
}

func (h *handlers) getDepositScheme(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", depositSchemeToJSON)
}
