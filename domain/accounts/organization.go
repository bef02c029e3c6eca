package accounts

import (
	"context"
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/lib/pq"
	"gorm.io/gorm"

	"ppwr/domain"
)

// Organization is a tenant. Its policies (MFA, IP allow-list, dual control)
// are enforced on every request of its keys.
type Organization struct {
	ID          uuid.UUID `gorm:"type:uuid;primaryKey"`
	Name        string
	Slug        string
	Status      string `gorm:"default:active"`
	RequireMFA  bool   `gorm:"column:require_mfa"`
	DualControl bool
	IPAllowList pq.StringArray `gorm:"type:cidr[]"`
	Revision    int            `gorm:"default:1"`
	domain.Timestamps
}

// Organization statuses.
const (
	OrganizationActive    = "active"
	OrganizationSuspended = "suspended"
)

var slugInvalid = regexp.MustCompile(`[^a-z0-9]+`)

// Slugify derives a URL-friendly slug from a name ("Acme Sp. z o.o." →
// "acme-sp-z-o-o").
func Slugify(name string) string {
	return strings.Trim(slugInvalid.ReplaceAllString(strings.ToLower(name), "-"), "-")
}

// CreateOrganization inserts an organization, deriving the slug from the
// name when none is given.
func CreateOrganization(ctx context.Context, db *gorm.DB, name, slug string) (*Organization, error) {
	if slug == "" {
		slug = Slugify(name)
	}
	org := &Organization{ID: domain.NewID(), Name: name, Slug: slug, Status: OrganizationActive, IPAllowList: pq.StringArray{}}
	if err := db.WithContext(ctx).Create(org).Error; err != nil {
		return nil, fmt.Errorf("create organization: %w", err)
	}
	return org, nil
}

// ParseCIDRs validates an IP allow-list; single addresses become /32 or /128.
func ParseCIDRs(list []string) (pq.StringArray, error) {
	out := pq.StringArray{}
	for _, raw := range list {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if !strings.Contains(raw, "/") {
			addr, err := netip.ParseAddr(raw)
			if err != nil {
				return nil, fmt.Errorf("invalid address %q", raw)
			}
			raw = netip.PrefixFrom(addr, addr.BitLen()).String()
		}
		p, err := netip.ParsePrefix(raw)
		if err != nil {
			return nil, fmt.Errorf("invalid CIDR %q", raw)
		}
		out = append(out, p.Masked().String())
	}
	return out, nil
}
