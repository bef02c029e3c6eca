package suppliers

import (
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"ppwr/api/kit"
	"ppwr/domain"
	a "ppwr/internal/access"
	"ppwr/internal/i18n"
	"ppwr/internal/input"
)

// issues declares the read-only list of compliance issues.
func (h *handlers) issues() kit.Area {
	return kit.Area{
		Operations: []kit.Operation{
			kit.List("listIssues", kit.Org+"/issues", tag, a.SupplierRequestsRead, a.IssuesManage).
				Handle(kit.Query(h.listIssues), kit.ListOK("ComplianceIssue")),
			kit.Get("getIssue", kit.Org+"/issues/{recordId}", tag, a.SupplierRequestsRead, a.IssuesManage).
				Handle(kit.Do(h.getIssue), kit.OK(kit.Ref("ComplianceIssue"))),
		},
		Models: []kit.Model{kit.ModelOf[issueJSON]("ComplianceIssue")},
	}
}

type subjectJSON struct {
	Type string    `json:"type"`
	ID   uuid.UUID `json:"id"`
}

type issueJSON struct {
	ID          uuid.UUID   `json:"id"`
	Kind        string      `json:"kind"`
	Severity    string      `json:"severity"`
	Status      string      `json:"status"`
	Subject     subjectJSON `json:"subject"`
	CatalogItem *uuid.UUID  `json:"catalog_item"`
	Message     string      `json:"message"`
	Resolution  *string     `json:"resolution"`
	OpenedAt    time.Time   `json:"opened_at"`
	ResolvedAt  *time.Time  `json:"resolved_at"`
}

func (issueJSON) Declare(s *kit.Shape) {
	s.Enum("kind", domain.IssueKinds...)
	s.Enum("severity", domain.IssueSeverities...)
	s.Enum("status", domain.IssueStatuses...)
}

// issueRenderer renders issues with their messages in the request's
// language.
func issueRenderer(c *gin.Context) func(*domain.ComplianceIssue) issueJSON {
	locale := kit.State(c).Locale
	return func(i *domain.ComplianceIssue) issueJSON {
		out := issueJSON{ID: i.ID, Kind: i.Kind, Severity: i.Severity, Status: i.Status,
			Subject: subjectJSON{Type: i.SubjectType, ID: i.SubjectID}, CatalogItem: i.CatalogItemID,
			Message: i18n.T(locale, i.MessageKey, i.MessageArgs...), OpenedAt: i.OpenedAt.UTC(), ResolvedAt: kit.UTC(i.ResolvedAt)}
		if i.ResolutionKey != nil {
			msg := i18n.T(locale, *i.ResolutionKey)
			out.Resolution = &msg
		}
		return out
	}
}

// issueQuery filters issues.
type issueQuery struct {
	input.Errors
	Status input.Opt[string]
	Item   input.Opt[uuid.UUID]
	Kind   input.Opt[string]
}

func (q *issueQuery) Declare(f *input.Fields) {
	f.Enum("status", &q.Status, input.Enum{Values: domain.IssueStatuses})
	f.Ref("item", &q.Item, input.Ref{})
	f.Enum("kind", &q.Kind, input.Enum{Values: domain.IssueKinds})
}

func (h *handlers) listIssues(c *gin.Context, q *issueQuery) error {
	db := domain.Tenant(c.Request.Context(), h.DB, kit.OrgID(c)).Model(&domain.ComplianceIssue{})
	db = kit.Filter(kit.Filter(kit.Filter(db, "status", q.Status), "catalog_item_id", q.Item), "kind", q.Kind)
	return kit.Paginate(c, db, kit.NewestFirst, issueRenderer(c))
}

func (h *handlers) getIssue(c *gin.Context) error {
	return kit.Show(c, h.DB, "recordId", issueRenderer(c))
}
