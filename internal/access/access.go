// Package access defines the spec's authorization vocabulary: token
// abilities, organization permissions and membership roles, and the rule that
// combines them, down to a resolved Credential. It has no I/O so both the API
// and the admin CLI share it.
package access

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/google/uuid"
)

// Ability is a capability granted to an API key.
type Ability string

// Token abilities of the spec's Authentication section, rule 7.
const (
	CatalogRead           Ability = "catalog:read"
	CatalogWrite          Ability = "catalog:write"
	FlowsRead             Ability = "flows:read"
	FlowsWrite            Ability = "flows:write"
	DocumentsUpload       Ability = "documents:upload"
	DocumentsRead         Ability = "documents:read"
	DocumentsReview       Ability = "documents:review"
	EvidenceReview        Ability = "evidence:review"
	SupplierRequestsRead  Ability = "supplier-requests:read"
	SupplierRequestsWrite Ability = "supplier-requests:write"
	ImportsRun            Ability = "imports:run"
	AssessmentsRead       Ability = "assessments:read"
	AssessmentsRun        Ability = "assessments:run"
	AssessmentsReview     Ability = "assessments:review"
	PPWRRead              Ability = "ppwr:read"
	PPWRWrite             Ability = "ppwr:write"
	PPWRReview            Ability = "ppwr:review"
	ReportsRead           Ability = "reports:read"
	ReportsRun            Ability = "reports:run"
	AuditRead             Ability = "audit:read"
)

// Abilities beyond the spec's list: the events feed and self-service
// webhook endpoints, which the spec leaves to operators.
const (
	EventsRead     Ability = "events:read"
	WebhooksManage Ability = "webhooks:manage"
)

// AllAbilities lists every ability in the spec's order, then the
// extensions.
var AllAbilities = []Ability{
	CatalogRead, CatalogWrite, FlowsRead, FlowsWrite, DocumentsUpload, DocumentsRead,
	DocumentsReview, EvidenceReview, SupplierRequestsRead, SupplierRequestsWrite, ImportsRun,
	AssessmentsRead, AssessmentsRun, AssessmentsReview, PPWRRead, PPWRWrite, PPWRReview,
	ReportsRead, ReportsRun, AuditRead, EventsRead, WebhooksManage,
}

// Permission is an organization permission held through a membership.
type Permission string

// Organization permissions of the spec's Authentication section, rule 8.
const (
	CatalogView            Permission = "catalog.view"
	CatalogCreate          Permission = "catalog.create"
	CatalogUpdate          Permission = "catalog.update"
	CatalogArchive         Permission = "catalog.archive"
	SuppliersManage        Permission = "suppliers.manage"
	DocumentsView          Permission = "documents.view"
	DocumentsUploadPerm    Permission = "documents.upload"
	DocumentsApprove       Permission = "documents.approve"
	DocumentsRevoke        Permission = "documents.revoke"
	EvidenceReviewPerm     Permission = "evidence.review"
	SupplierRequestsView   Permission = "supplier_requests.view"
	SupplierRequestsCreate Permission = "supplier_requests.create"
	SupplierRequestsSend   Permission = "supplier_requests.send"
	IssuesManage           Permission = "issues.manage"
	ImportsRunPerm         Permission = "imports.run"
	AssessmentsView        Permission = "assessments.view"
	AssessmentsRunPerm     Permission = "assessments.run"
	AssessmentsPublish     Permission = "assessments.publish"
	ReportsView            Permission = "reports.view"
	ReportsExport          Permission = "reports.export"
	AuditView              Permission = "audit.view"
)

// WebhooksManagePerm is beyond the spec's list: reading the events feed
// and managing the organization's webhook endpoints, which carry secrets
// and send its data out, so owners and admins hold it and members only
// when given it.
const WebhooksManagePerm Permission = "webhooks.manage"

// AllPermissions lists every permission in the spec's order, then the
// extensions.
var AllPermissions = []Permission{
	CatalogView, CatalogCreate, CatalogUpdate, CatalogArchive, SuppliersManage, DocumentsView,
	DocumentsUploadPerm, DocumentsApprove, DocumentsRevoke, EvidenceReviewPerm,
	SupplierRequestsView, SupplierRequestsCreate, SupplierRequestsSend, IssuesManage,
	ImportsRunPerm, AssessmentsView, AssessmentsRunPerm, AssessmentsPublish, ReportsView,
	ReportsExport, AuditView, WebhooksManagePerm,
}

// Role is a membership role.
type Role string

const (
	Owner  Role = "owner"
	Admin  Role = "admin"
	Member Role = "member"
)

// Roles lists the valid roles.
var Roles = []Role{Owner, Admin, Member}

// HoldsAllPermissions reports whether a role implies every organization
// permission; it says nothing about token abilities, which the owner role
// never bypasses.
func (r Role) HoldsAllPermissions() bool { return r == Owner || r == Admin }

// Grants reports whether a membership with this role and explicit permission
// list holds p.
func (r Role) Grants(explicit []string, p Permission) bool {
	return r.HoldsAllPermissions() || slices.Contains(explicit, string(p))
}

// ParseAbilities turns a comma-separated list (or "all") into abilities,
// rejecting unknown names so a typo never creates a powerless key silently.
func ParseAbilities(list string) ([]string, error) {
	if strings.TrimSpace(list) == "all" {
		out := make([]string, len(AllAbilities))
		for i, a := range AllAbilities {
			out[i] = string(a)
		}
		return out, nil
	}
	return parseList(list, AllAbilities, "ability")
}

// ParsePermissions turns a comma-separated list into permissions.
func ParsePermissions(list string) ([]string, error) {
	return parseList(list, AllPermissions, "permission")
}

// ParseRole validates a role name.
func ParseRole(s string) (Role, error) {
	if slices.Contains(Roles, Role(s)) {
		return Role(s), nil
	}
	return "", fmt.Errorf("unknown role %q (want owner, admin or member)", s)
}

func parseList[T ~string](list string, known []T, what string) ([]string, error) {
	out := []string{}
	for _, raw := range strings.Split(list, ",") {
		name := strings.TrimSpace(raw)
		if name == "" {
			continue
		}
		if !slices.Contains(known, T(name)) {
			return nil, fmt.Errorf("unknown %s %q", what, name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// Credential is everything the authorization rule needs about a bearer
// token, resolved in one query (accounts.LookupCredential) and possibly
// cached between requests, so it holds no per-request facts and is never
// modified once built.
type Credential struct {
	KeyID            uuid.UUID
	OrganizationID   uuid.UUID
	UserID           uuid.UUID
	Abilities        []string
	Revoked          bool
	EmailVerified    bool
	UserMFA          bool
	HasMembership    bool
	MembershipActive bool
	Role             Role
	Permissions      []string
	OrganizationOK   bool
	RequireMFA       bool
	DualControl      bool
	IPAllowList      []string
}

// AllowsIP applies the organization's IP allow-list (empty: any address).
// An address that cannot be parsed is refused when a list is configured.
func (c *Credential) AllowsIP(ip string) bool {
	if len(c.IPAllowList) == 0 {
		return true
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, raw := range c.IPAllowList {
		if p, err := netip.ParsePrefix(raw); err == nil && p.Contains(addr.Unmap()) {
			return true
		}
	}
	return false
}

// HasAbility reports whether the key carries ability a.
func (c *Credential) HasAbility(a Ability) bool { return slices.Contains(c.Abilities, string(a)) }

// HasPermission reports whether the membership grants p.
func (c *Credential) HasPermission(p Permission) bool {
	return c.HasMembership && c.Role.Grants(c.Permissions, p)
}
