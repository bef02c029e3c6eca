package api

import (
	"encoding/json"
	"net/http"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/lib/pq"

	"ppwr/internal/dictionaries"
	"ppwr/models"
)

type partyJSON struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Roles     []string  `json:"roles"`
	Country   string    `json:"country"`
	TaxID     *string   `json:"tax_id"`
	Email     *string   `json:"email"`
	Address   *string   `json:"address"`
	CreatedAt time.Time `json:"created_at"`
}

func partyToJSON(p *models.Party) partyJSON {
	roles := []string(p.Roles)
	if roles == nil {
		roles = []string{}
	}
	return partyJSON{
		ID: p.ID, Name: p.Name, Roles: roles, Country: p.CountryCode,
		TaxID: emptyAsNull(p.TaxID), Email: emptyAsNull(p.Email), Address: emptyAsNull(p.Address),
		CreatedAt: p.CreatedAt.UTC(),
	}
}

func (s *Server) listParties(c *gin.Context) error {
	q := models.Parties(c.Request.Context(), s.DB, credentialOf(c).OrganizationID)
	return paginate(c, s, q, false, func(p *models.Party) uuid.UUID { return p.ID }, partyToJSON)
}

func (s *Server) getParty(c *gin.Context) error {
	id, err := pathID(c, "recordId")
	if err != nil {
		return err
	}
	p, err := models.FindParty(c.Request.Context(), s.DB, credentialOf(c).OrganizationID, id)
	if err != nil {
		return fromModel(err)
	}
	c.JSON(http.StatusOK, partyToJSON(p))
	return nil
}

// readPartyRoles reads "roles": a non-empty list of known roles; a role
// sent twice is kept once.
func readPartyRoles(in *input) []string {
	var raw []json.RawMessage
	if !in.value("roles", true, &raw, "field.string_list") {
		return nil
	}
	if len(raw) == 0 {
		in.fail("roles", "field.empty_list")
		return nil
	}
	roles := []string{}
	for _, r := range raw {
		var role string
		if json.Unmarshal(r, &role) != nil {
			in.fail("roles", "field.string_list")
			return nil
		}
		role = strings.TrimSpace(role)
		if !slices.Contains(models.PartyRoles, role) {
			in.fail("roles", "field.one_of", strings.Join(models.PartyRoles, ", "))
			return nil
		}
		if !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
	}
	return roles
}

// readEmail reads an optional bare e-mail address (no display name).
func readEmail(in *input, name string) string {
	email, ok := readOptionalText(in, name, partyEmailMax)
	if !ok || email == "" {
		return ""
	}
	if addr, err := mail.ParseAddress(email); err != nil || addr.Address != email || addr.Name != "" {
		in.fail(name, "field.email")
		return ""
	}
	return email
}

func (s *Server) createParty(c *gin.Context) error {
	in, err := readInput(c)
	if err != nil {
		return err
	}
	name, _ := in.text("name", true, structureNameMax)
	roles := readPartyRoles(in)
	country, _ := in.code("country", true, dictionaries.Default().HasCountry)
	taxID, _ := readOptionalText(in, "tax_id", partyTaxIDMax)
	email := readEmail(in, "email")
	address, _ := readOptionalText(in, "address", partyAddressMax)
	if err := in.err(); err != nil {
		return err
	}
	orgID := credentialOf(c).OrganizationID
	tx := s.tx(c)
	p := &models.Party{
		OrganizationID: orgID, Name: name, Roles: pq.StringArray(roles), CountryCode: country,
		TaxID: taxID, Email: email, Address: address,
	}
	if err := models.CreateParty(c.Request.Context(), tx, p); err != nil {
		return err
	}
	if err := s.recorded(c, "party", p.ID, "party.created", map[string]any{"party_id": p.ID}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, partyToJSON(p))
	return nil
}
