// Package passports is the spec's passports and sharing grants: an item's
// compliance record frozen into verifiable versions, and read access to it
// granted to other organizations, the spec's one exception to
// organization scope.
//
// The spec names these operations only in workflow lists, without their
// abilities, permissions and bodies; they follow the nearest documented
// area (see the README, "Choices where the spec is silent").
package passports

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/passports"
	a "ppwr/internal/access"
	"ppwr/internal/input"
	"ppwr/internal/storage"
)

const tag = "passports"

type handlers struct{ kit.Deps }

// Area declares the area's operations.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	passport, grant := kit.Ref("Passport"), kit.Ref("SharingGrant")
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createPassport", kit.Org+"/passports", tag, a.PPWRWrite, a.CatalogUpdate).
				Answers(passports.ErrPassportExists, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.create), created(passport)),
			kit.Post("publishPassport", kit.Org+"/passports/{recordId}/publish", tag, a.PPWRWrite, a.CatalogUpdate).
				Answers(domain.ErrRevisionConflict).
				Handle(kit.JSON(h.publish), kit.OK(passport)),
			kit.Post("sharePassport", kit.Org+"/passports/{recordId}/shares", tag, a.PPWRWrite, a.CatalogUpdate).
				Answers(passports.ErrPassportNotPublished, passports.ErrPassportAlreadyShared).
				Handle(kit.JSON(h.share), created(grant)),
			kit.List("listSharingGrants", kit.Org+"/sharing-grants", tag, a.PPWRRead, a.CatalogView).
				Handle(kit.Query(h.listGrants), kit.ListOK("SharingGrant")),
			kit.Post("revokeSharingGrant", kit.Org+"/sharing-grants/{recordId}/revoke", tag, a.PPWRWrite, a.CatalogUpdate).
				Answers(passports.ErrGrantRevoked, domain.ErrRevisionConflict).
				Handle(kit.JSON(h.revoke), kit.OK(grant)),
		},
		Models: []kit.Model{
			kit.ModelOf[passportJSON]("Passport").Described("schema.passport"), kit.ModelOf[versionJSON]("PassportVersion").Described("schema.passport_version"),
			kit.ModelOf[passportDocumentJSON]("PassportDocument").Described("schema.passport_document"), kit.ModelOf[grantJSON]("SharingGrant").Described("schema.sharing_grant"),
		},
	}
}

// created is a 201 without Location: neither a passport nor a grant has
// a read of its own (the spec lists none); grants are read in the list.
func created(schema kit.Schema) kit.Response {
	return kit.Response{Status: http.StatusCreated, Schema: schema}
}

type passportJSON struct {
	ID            uuid.UUID    `json:"id"`
	CatalogItem   uuid.UUID    `json:"catalog_item"`
	Status        string       `json:"status" schema:"desc=schema.passport_status"`
	VersionCount  int          `json:"version_count"`
	LatestVersion *versionJSON `json:"latest_version" schema:"desc=schema.passport_latest_version"`
	Revision      int          `json:"revision"`
	CreatedBy     *uuid.UUID   `json:"created_by"`
	CreatedAt     time.Time    `json:"created_at"`
	UpdatedAt     time.Time    `json:"updated_at"`
}

func (passportJSON) Declare(s *kit.Shape) { s.Enum("status", passports.PassportStatuses...) }

type versionJSON struct {
	Version         int              `json:"version"`
	SHA256          string           `json:"sha256" schema:"desc=schema.passport_sha256"`
	SizeBytes       int64            `json:"size_bytes"`
	PublishedAt     time.Time        `json:"published_at"`
	CatalogRevision int              `json:"catalog_revision"`
	DataVersion     uuid.UUID        `json:"data_version"`
	Missing         []string         `json:"missing" schema:"desc=schema.passport_missing"`
	Verified        bool             `json:"verified" schema:"desc=schema.passport_verified"`
	Document        *json.RawMessage `json:"document" schema:"ref=PassportDocument,desc=schema.passport_document_field"`
}

func (versionJSON) Declare(s *kit.Shape) { s.Enum("missing", passports.PassportMissingParts...) }

// passportDocumentJSON documents a version's document, which is answered
// as the verified bytes that were stored, never encoded again.
type passportDocumentJSON struct{ passports.PassportDocument }

func (passportDocumentJSON) Declare(s *kit.Shape) {
	s.Enum("format", passports.PassportFormat)
	s.Enum("missing", passports.PassportMissingParts...)
}

// versionToJSON answers a version with its document when v.Content
// holds the verified bytes, and without it otherwise.
func versionToJSON(v *passports.PassportVersion) *versionJSON {
	out := &versionJSON{Version: v.Version, SHA256: v.SHA256, SizeBytes: v.SizeBytes, PublishedAt: v.PublishedAt.UTC(),
		CatalogRevision: v.CatalogRevision, DataVersion: v.DataVersionID, Missing: append([]string{}, v.Missing...),
		Verified: v.Content != nil}
	if v.Content != nil {
		doc := json.RawMessage(v.Content)
		out.Document = &doc
	}
	return out
}

func passportToJSON(p *passports.Passport, latest *passports.PassportVersion) passportJSON {
	out := passportJSON{ID: p.ID, CatalogItem: p.CatalogItemID, Status: p.Status, VersionCount: p.VersionCount, Revision: p.Revision,
		CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
	if latest != nil {
		out.LatestVersion = versionToJSON(latest)
	}
	return out
}

func (h *handlers) create(c *gin.Context, in *passports.PassportCreate) error {
	p, err := passports.CreatePassport(kit.Work(c), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, passportToJSON(p, nil))
	return nil
}

// publish freezes the next version and stores its document before the
// unit commits: should the store fail, nothing is recorded; should the
// commit fail, the stored object belongs to no version and the next
// publication of that number replaces it.
func (h *handlers) publish(c *gin.Context, in *passports.PassportPublish) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	p, v, err := passports.PublishPassport(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	if err := h.Storage.Put(c.Request.Context(), v.ObjectKey, bytes.NewReader(v.Content), passports.PassportContentType); err != nil {
		return err
	}
	c.JSON(http.StatusOK, passportToJSON(p, v))
	return nil
}

func (h *handlers) share(c *gin.Context, in *passports.PassportShare) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	g, err := passports.SharePassport(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, grantToJSON(g, kit.OrgID(c), nil))
	return nil
}

func (h *handlers) revoke(c *gin.Context, in *passports.GrantRevoke) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	g, err := passports.RevokeSharingGrant(kit.Work(c), id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, grantToJSON(g, kit.OrgID(c), nil))
	return nil
}

type grantJSON struct {
	ID                   uuid.UUID    `json:"id"`
	Direction            string       `json:"direction" schema:"desc=grant.direction"`
	Passport             uuid.UUID    `json:"passport"`
	GrantingOrganization uuid.UUID    `json:"granting_organization"`
	Organization         uuid.UUID    `json:"organization" schema:"desc=grant.organization"`
	ExpiresOn            *string      `json:"expires_on" schema:"date,desc=grant.expires_on"`
	Note                 *string      `json:"note"`
	Status               string       `json:"status" schema:"desc=grant.status"`
	RevokedAt            *time.Time   `json:"revoked_at"`
	RevokeReason         *string      `json:"revoke_reason"`
	Revision             int          `json:"revision"`
	CreatedAt            time.Time    `json:"created_at"`
	UpdatedAt            time.Time    `json:"updated_at"`
	Content              *versionJSON `json:"content" schema:"desc=schema.grant_content"`
}

func (grantJSON) Declare(s *kit.Shape) {
	s.Enum("direction", passports.GrantDirections...)
	s.Enum("status", passports.GrantStatuses...)
}

// grantToJSON answers a grant as org sees it, with the passport's
// version when the grantee reads an active grant.
func grantToJSON(g *passports.SharingGrant, org uuid.UUID, content *passports.PassportVersion) grantJSON {
	out := grantJSON{ID: g.ID, Direction: passports.GrantGiven, Passport: g.PassportID, GrantingOrganization: g.OrganizationID,
		Organization: g.GranteeOrganizationID, ExpiresOn: kit.Day(g.ExpiresOn), Note: g.Note, Status: g.Status(),
		RevokedAt: kit.UTC(g.RevokedAt), RevokeReason: g.RevokeReason, Revision: g.Revision, CreatedAt: g.CreatedAt.UTC(),
		UpdatedAt: g.UpdatedAt.UTC()}
	if g.OrganizationID != org {
		out.Direction = passports.GrantReceived
	}
	if content != nil {
		out.Content = versionToJSON(content)
	}
	return out
}

// grantQuery filters the grants an organization gave and received.
type grantQuery struct {
	input.Errors
	Direction input.Opt[string]
	Status    input.Opt[string]
	Passport  input.Opt[uuid.UUID]
}

func (q *grantQuery) Declare(f *input.Fields) {
	f.Enum("direction", &q.Direction, input.Enum{Values: passports.GrantDirections, Desc: "grant.direction"})
	f.Enum("status", &q.Status, input.Enum{Values: passports.GrantStatuses, Desc: "grant.status"})
	f.Ref("passport", &q.Passport, input.Ref{})
}

func (h *handlers) listGrants(c *gin.Context, q *grantQuery) error {
	ctx, org := c.Request.Context(), kit.OrgID(c)
	db := passports.SharingGrantsOf(ctx, h.DB, org, q.Direction.Value)
	if q.Status.Set() {
		db = passports.GrantsInStatus(db, q.Status.Value)
	}
	return kit.PaginatePage(c, kit.Filter(db, "passport_id", q.Passport), kit.NewestFirst, func(page []passports.SharingGrant) ([]grantJSON, error) {
		return h.renderGrants(ctx, org, page)
	})
}

// renderGrants answers a page of grants; each active grant the
// organization received carries the passport's latest version, read back
// from the object store and verified against its recorded digest.
func (h *handlers) renderGrants(ctx context.Context, org uuid.UUID, page []passports.SharingGrant) ([]grantJSON, error) {
	var readable []uuid.UUID
	for i := range page {
		if g := &page[i]; g.GranteeOrganizationID == org && g.Status() == passports.GrantActive {
			readable = append(readable, g.PassportID)
		}
	}
	latest, err := passports.LatestPassportVersions(ctx, h.DB, readable)
	if err != nil {
		return nil, err
	}
	for _, v := range latest {
		if err := h.readVerified(ctx, v); err != nil {
			return nil, err
		}
	}
	out := make([]grantJSON, len(page))
	for i := range page {
		var content *passports.PassportVersion
		if g := &page[i]; g.GranteeOrganizationID == org && g.Status() == passports.GrantActive {
			content = latest[g.PassportID]
		}
		out[i] = grantToJSON(&page[i], org, content)
	}
	return out, nil
}

// readVerified sets v.Content to the stored document when its length and
// digest are the recorded ones. A missing or altered object leaves it
// unset, and the answer says the version is not verified; a store that
// cannot be reached fails the request.
func (h *handlers) readVerified(ctx context.Context, v *passports.PassportVersion) error {
	obj, err := h.Storage.Get(ctx, v.ObjectKey)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	defer obj.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(obj.Body, v.SizeBytes+1))
	if err != nil {
		return err
	}
	if v.Verify(raw) {
		v.Content = raw
	}
	return nil
}
