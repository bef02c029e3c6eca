// Package packing is the spec's "Order packing and inventory" area: packing
// sets (recipes), reservations, set and packing consumptions,
// recommendations and the stock balance. Each part declares its
// operations in its own file.
package packing

import (
	"github.com/gin-gonic/gin"

	"ppwr/api/kit"
	"ppwr/domain"
	"ppwr/domain/packing"
)

const tag = "packing"

type handlers struct{ kit.Deps }

// Area declares the area's operations, schemas and error codes.
func Area(d kit.Deps) kit.Area {
	h := &handlers{d}
	return kit.Join(h.inventory(), h.systems(), h.consumptions(), h.reservations(), h.recommendations())
}

// listOfSystem pages through the rows of T that belong to the set the
// path names (systemId); another organization's set is a 404.
func listOfSystem[T any, R any](c *gin.Context, h *handlers, order kit.Order, render func(*T) R) error {
	id, err := kit.PathID(c, "systemId")
	if err != nil {
		return err
	}
	ctx, org := c.Request.Context(), kit.OrgID(c)
	if _, err := domain.Find[packing.PackagingSystem](ctx, h.DB, org, id); err != nil {
		return err
	}
	q := domain.Tenant(ctx, h.DB, org).Model(new(T)).Where("packaging_system_id = ?", id)
	return kit.Paginate(c, q, order, render)
}
