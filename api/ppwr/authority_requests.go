package ppwr

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gin-gonic/gin/binding"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/records"
	a "ppwr/internal/access"
)

// zipType is the media type of an authority request's bundle.
const zipType = "application/zip"

// authorityRequests is reasoned requests of market surveillance
// authorities and the documentation bundles answering them (rule R38).
// The spec lists a create and a read only, so the bundle is served by
// the read itself, chosen by the Accept header, and marking a request
// answered is an operator's command (ppwr admin authority-requests
// answered).
func (h *handlers) authorityRequests() kit.Area {
	record := kit.Ref("AuthorityRequest")
	bundle := kit.Described(kit.Binary(), "schema.authority_request_bundle")
	bundle["contentMediaType"] = zipType
	read := kit.OK(record)
	read.Negotiated = map[string]kit.Schema{zipType: bundle}
	read.Headers = []kit.Param{
		{Name: "Content-Disposition", Schema: kit.Str(), DescKey: "header.authority_bundle_name"},
		{Name: "X-Checksum-SHA256", Schema: kit.Str(), DescKey: "header.authority_bundle_sha256"},
	}
	read = read.Polled()
	return kit.Area{
		Operations: []kit.Operation{
			kit.Post("createAuthorityRequest", kit.Org+"/ppwr/authority-requests", tag, a.PPWRWrite, a.CatalogUpdate).
				Handle(kit.JSON(h.createAuthorityRequest), kit.CreatedResponse(record, "getAuthorityRequest").Polled()),
			kit.Get("getAuthorityRequest", kit.Org+"/ppwr/authority-requests/{recordId}", tag, a.PPWRRead, a.CatalogView).
				Answers(kit.FileNotReady("")).
				Handle(kit.Do(h.getAuthorityRequest), read),
		},
		Models: []kit.Model{kit.ModelOf[authorityRequestJSON]("AuthorityRequest").Described("schema.authority_request").
			Example(authorityRequestExample())},
	}
}

type authorityJSON struct {
	Name    string `json:"name"`
	Country string `json:"country"`
}

type authorityBundleJSON struct {
	Status    string       `json:"status"`
	FileName  string       `json:"file_name"`
	SizeBytes *int64       `json:"size_bytes"`
	SHA256    *string      `json:"sha256"`
	Error     *string      `json:"error"`
	BuiltAt   *time.Time   `json:"built_at"`
	Progress  kit.Progress `json:"progress"`
}

type authorityRequestJSON struct {
	ID                 uuid.UUID           `json:"id"`
	Authority          authorityJSON       `json:"authority"`
	AuthorityReference string              `json:"authority_reference"`
	Subject            *string             `json:"subject"`
	Note               *string             `json:"note"`
	Items              []uuid.UUID         `json:"items"`
	ReceivedOn         string              `json:"received_on" schema:"date"`
	DueOn              string              `json:"due_on" schema:"date"`
	AnsweredOn         *string             `json:"answered_on" schema:"date"`
	DeadlineStatus     string              `json:"deadline_status"`
	Bundle             authorityBundleJSON `json:"bundle"`
	CreatedAt          time.Time           `json:"created_at"`
	UpdatedAt          time.Time           `json:"updated_at"`
}

func (authorityRequestJSON) Declare(s *kit.Shape) {
	s.Enum("deadline_status", records.DeadlineStatuses...)
	s.Enum("bundle.status", records.BundleStatuses...)
	s.Enum("bundle.progress.stage", records.BundleStages...)
}

func authorityRequestToJSON(r *records.AuthorityRequest) authorityRequestJSON {
	return authorityRequestJSON{ID: r.ID, Authority: authorityJSON{Name: r.AuthorityName, Country: r.AuthorityCountry},
		AuthorityReference: r.AuthorityReference, Subject: r.Subject, Note: r.Note, Items: r.Items,
		ReceivedOn: r.ReceivedOn.Format(time.DateOnly), DueOn: r.DueOn.Format(time.DateOnly), AnsweredOn: kit.Day(r.AnsweredOn),
		DeadlineStatus: r.DeadlineStatus(time.Now().UTC().Truncate(24 * time.Hour)),
		Bundle: authorityBundleJSON{Status: r.BundleStatus, FileName: r.BundleFileName(), SizeBytes: r.BundleSizeBytes,
			SHA256: r.BundleSHA256, Error: r.BundleError, BuiltAt: kit.UTC(r.BundleBuiltAt), Progress: kit.ProgressOf(r.BundleProgress)},
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// authorityRequestExample is the document's example of a request whose
// bundle is being built.
func authorityRequestExample() authorityRequestJSON {
	r := records.AuthorityRequest{ID: uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e04")}
	subject := "Dokumentacja techniczna słoików 500 ml"
	return authorityRequestJSON{ID: r.ID, Authority: authorityJSON{Name: "Wojewódzki Inspektorat Ochrony Środowiska w Krakowie", Country: "PL"},
		AuthorityReference: "WI.7021.15.2026", Subject: &subject,
		Items:      []uuid.UUID{uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e10"), uuid.MustParse("0195a1c4-1b2c-7d3e-8f40-5a6b7c8d9e11")},
		ReceivedOn: "2026-02-27", DueOn: "2026-03-09", DeadlineStatus: records.DeadlineOpen,
		Bundle: authorityBundleJSON{Status: records.BundleBuilding, FileName: r.BundleFileName(),
			Progress: kit.ExampleProgress(records.StageCollecting, 1, domain.Known(2))},
		CreatedAt: kit.ExampleAt, UpdatedAt: kit.ExampleAt}
}

// createAuthorityRequest records the request and answers 201 with its
// bundle building.
func (h *handlers) createAuthorityRequest(c *gin.Context, in *records.AuthorityRequestCreate) error {
	r, err := records.CreateAuthorityRequest(kit.Work(c), in)
	if err != nil {
		return err
	}
	return kit.CreatedJob(c, r.ID, r, authorityRequestToJSON(r))
}

// getAuthorityRequest answers the record, or with Accept: application/zip
// streams its bundle; before the bundle is ready that is 409 with
// Retry-After.
func (h *handlers) getAuthorityRequest(c *gin.Context) error {
	id, err := kit.PathID(c, "recordId")
	if err != nil {
		return err
	}
	r, err := domain.Find[records.AuthorityRequest](c.Request.Context(), h.DB, kit.OrgID(c), id)
	if err != nil {
		return err
	}
	if c.NegotiateFormat(binding.MIMEJSON, zipType) != zipType {
		kit.Poll(c, r)
		c.JSON(http.StatusOK, authorityRequestToJSON(r))
		return nil
	}
	if r.BundleStatus != records.BundleReady {
		return kit.FileNotReady(r.BundleStatus)
	}
	c.Header("X-Checksum-SHA256", *r.BundleSHA256)
	return kit.Attachment(c, h.Storage, *r.BundleObjectKey, r.BundleFileName(), zipType)
}
