package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
)

// seedItems creates n catalogue items, one per connection, to read.
func seedItems(db *gorm.DB, orgID uuid.UUID, n int) ([]uuid.UUID, error) {
	ids := make([]uuid.UUID, n)
	for i := range ids {
		item := newItem(orgID, "SEED-"+strconv.Itoa(i))
		if err := db.Create(item).Error; err != nil {
			return nil, err
		}
		ids[i] = item.ID
	}
	return ids, nil
}

func newItem(orgID uuid.UUID, code string) *catalog.CatalogItem {
	return &catalog.CatalogItem{
		ID: domain.NewID(), OrganizationID: orgID, InternalCode: code, Name: "Bench bottle", SourcingType: "purchased",
		MassG: decimal.RequireFromString("24.5"), MainMaterialCode: "PLASTIC_PET", StockUnit: "piece",
		FoodContactStatus: "food_contact", ReuseType: "single_use", Status: catalog.ItemActive, Revision: 1,
	}
}

// itemReadScenario reads one item per request: the API's full pipeline
// against a handler doing the same single-row query with GORM. Both
// receive the same request, the organization's path and the bearer key
// (which the bare handler does not check), so that what the load
// generator and net/http spend on its bytes is no part of the difference.
func itemReadScenario(db *gorm.DB, orgID uuid.UUID, tokens *tokenRing, items []uuid.UUID) scenario {
	// The paths are made once, so that building a request costs the load
	// generator as much for the API as for the bare handler.
	paths := make([]string, len(items))
	for i, id := range items {
		paths[i] = "/organizations/" + orgID.String() + "/catalog-items/" + id.String()
	}
	get := func(url string) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodGet, url, nil)
		if err == nil {
			r.Header.Set("Authorization", "Bearer "+tokens.next())
		}
		return r, err
	}
	return scenario{
		name:        "GET /catalog-items/{id}",
		fullRequest: func(base string, i int) (*http.Request, error) { return get(base + "/api/v1" + paths[i%len(items)]) },
		bare: []bareTarget{{
			name: "bare gin+gorm", path: "/organizations/:org/catalog-items/:id", minRatio: 0.90, p99Factor: 1.2,
			handler: func(c *gin.Context) {
				var item catalog.CatalogItem
				if err := db.WithContext(c.Request.Context()).Where("organization_id = ? AND id = ?", c.Param("org"), c.Param("id")).First(&item).Error; err != nil {
					c.AbortWithStatus(http.StatusNotFound)
					return
				}
				c.JSON(http.StatusOK, item)
			},
			request: func(base string, i int) (*http.Request, error) { return get(base + paths[i%len(items)]) },
		}},
	}
}

// itemCreateScenario creates one item per request: the API (idempotency,
// validation, data version, event and audit in one transaction) against a
// handler doing the same writes in one statement (durable.go) and one
// doing the single insert of the item.
func itemCreateScenario(db *gorm.DB, orgID uuid.UUID, tokens *tokenRing) scenario {
	var seq atomic.Int64
	body := func() []byte {
		n := seq.Add(1)
		raw, _ := json.Marshal(map[string]any{
			"internalCode": "BENCH-" + strconv.FormatInt(n, 10), "name": "Bench bottle", "sourcingType": "purchased",
			"massG": "24.5", "mainMaterialCode": "PLASTIC_PET", "stockUnit": "piece", "foodContactStatus": "food_contact", "reuseType": "single_use",
		})
		return raw
	}
	post := func(url string) (*http.Request, error) {
		r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body()))
		if err == nil {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return r, err
	}
	cred, err := accounts.LookupCredential(context.Background(), db, accounts.HashToken(tokens.next()))
	if err != nil {
		panic(err)
	}
	who := writer{orgID: orgID, userID: cred.UserID, keyID: cred.KeyID}
	sameWork := bareTarget{
		name: "bare same-work", method: http.MethodPost, path: "/catalog-items", minRatio: 0.90,
		handler: durableCreate(db, who, -1),
		request: func(base string, _ int) (*http.Request, error) { return post(base + "/catalog-items") },
	}
	single := bareTarget{
		name: "bare 1 insert", method: http.MethodPost, path: "/catalog-items-insert", minRatio: 0.75,
		handler: func(c *gin.Context) {
			var in struct {
				InternalCode string `json:"internalCode"`
			}
			if err := c.ShouldBindJSON(&in); err != nil {
				c.AbortWithStatus(http.StatusUnprocessableEntity)
				return
			}
			item := newItem(orgID, in.InternalCode)
			if err := db.WithContext(c.Request.Context()).Create(item).Error; err != nil {
				c.AbortWithStatus(http.StatusInternalServerError)
				return
			}
			c.JSON(http.StatusCreated, item)
		},
		request: func(base string, _ int) (*http.Request, error) { return post(base + "/catalog-items-insert") },
	}
	variants := writeVariants(durableWrites, 1, sameWork.path, func(skip int) gin.HandlerFunc { return durableCreate(db, who, skip) }, sameWork.request)
	return scenario{
		name: "POST /catalog-items",
		fullRequest: func(base string, i int) (*http.Request, error) {
			r, err := post(base + "/api/v1/organizations/" + orgID.String() + "/catalog-items")
			if err == nil {
				r.Header.Set("Authorization", "Bearer "+tokens.next())
			}
			return r, err
		},
		bare:     []bareTarget{sameWork, single},
		variants: variants,
		explain:  sameWorkExplained("POST /catalog-items", "the item", sameWork, single, variants),
	}
}
