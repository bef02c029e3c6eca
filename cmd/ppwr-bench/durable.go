package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"gorm.io/gorm"

	"ppwr/domain"
)

// durableWrite is one of the rows a durable create of a catalogue item
// writes, into ppwr's own table (the benchmark's database is migrated as
// ppwr's is, so the same columns, indexes, constraints and triggers).
type durableWrite struct {
	name    string
	table   string
	columns []string
}

// durableWrites are what POST /catalog-items commits: the item, its first
// data version, the outbox event, the audit entry and the stored answer
// for its Idempotency-Key. Columns the tables default are left to them.
var durableWrites = []durableWrite{
	{"item", "catalog_items", []string{"id", "organization_id", "internal_code", "name", "sourcing_type", "mass_g",
		"main_material_code", "stock_unit", "food_contact_status", "reuse_type"}},
	{"data version", "catalog_item_data_versions", []string{"id", "organization_id", "catalog_item_id", "revision",
		"specifications", "components", "markets", "sha256"}},
	{"event", "events", []string{"id", "organization_id", "type", "body"}},
	{"audit entry", "audit_log", []string{"id", "organization_id", "occurred_at", "actor_user_id", "api_key_id", "actor_kind",
		"operation", "method", "path", "status", "record_type", "record_id", "request_id", "summary"}},
	{"idempotency record", "idempotency_keys", []string{"api_key_id", "key", "operation", "fingerprint", "response_status",
		"response_headers", "response_body", "expires_at"}},
}

// durableSQL is one statement inserting the writes of durableWrites
// except the one at index skip (-1: none), each a data-modifying WITH
// query, so the whole create is one round trip and one commit.
func durableSQL(skip int) string {
	var parts []string
	for i, w := range durableWrites {
		if i == skip {
			continue
		}
		params := strings.TrimSuffix(strings.Repeat("?,", len(w.columns)), ",")
		parts = append(parts, fmt.Sprintf("w%d AS (INSERT INTO %s (%s) VALUES (%s))", i, w.table, strings.Join(w.columns, ","), params))
	}
	return "WITH " + strings.Join(parts, ", ") + " SELECT"
}

// writer is who the same-work handler writes as: the key and user of the
// API's requests, so the audit entry and the stored answer name real ones.
type writer struct {
	orgID, userID, keyID uuid.UUID
}

// durableCreate is a bare handler that writes what a durable create must,
// as cheaply as it can: the work of POST /catalog-items without its
// request pipeline, validation or unit of work, so it is the limit of
// that work on this machine. The writes at index skip (-1: none) are left
// out, to see what each one costs.
func durableCreate(db *gorm.DB, who writer, skip int) gin.HandlerFunc {
	sql := durableSQL(skip)
	return func(c *gin.Context) {
		body, err := io.ReadAll(c.Request.Body)
		var in struct {
			InternalCode string `json:"internalCode"`
		}
		if err == nil {
			err = json.Unmarshal(body, &in)
		}
		if err != nil {
			c.AbortWithStatus(http.StatusUnprocessableEntity)
			return
		}
		item := newItem(who.orgID, in.InternalCode)
		now := time.Now().UTC()
		item.CreatedAt, item.UpdatedAt = now, now
		answer, _ := json.Marshal(item)
		spec, _ := json.Marshal(item.Specifications())
		sum := sha256.Sum256(spec)
		eventID := domain.NewID()
		event := `{"id":"` + eventID.String() + `","type":"catalog_item.created","schema_version":1,"organization_id":"` + who.orgID.String() +
			`","created_at":"` + now.Format(time.RFC3339Nano) + `","data":{"catalog_item_id":"` + item.ID.String() + `","revision":1}}`
		location := "/api/v1/organizations/" + who.orgID.String() + "/catalog-items/" + item.ID.String()
		headers, _ := json.Marshal(map[string]string{"Content-Type": "application/json; charset=utf-8", "Location": location, "ETag": `"1"`})
		fingerprint := sha256.Sum256(append([]byte(c.Request.Method+" "+c.Request.URL.RequestURI()+"\n"), body...))
		status := http.StatusCreated
		values := [][]any{
			{item.ID, item.OrganizationID, item.InternalCode, item.Name, item.SourcingType, item.MassG,
				item.MainMaterialCode, item.StockUnit, item.FoodContactStatus, item.ReuseType},
			{domain.NewID(), who.orgID, item.ID, 1, spec, "[]", "[]", hex.EncodeToString(sum[:])},
			{eventID, who.orgID, "catalog_item.created", event},
			{domain.NewID(), who.orgID, now, who.userID, who.keyID, "api_key", "createCatalogItem", c.Request.Method, location, status,
				"catalog_item", item.ID, uuid.NewString(), `{"body":` + string(body) + `}`},
			{who.keyID, c.GetHeader("Idempotency-Key"), "createCatalogItem", fingerprint[:], status, headers, answer, now.Add(domain.IdempotencyTTL)},
		}
		var vars []any
		for i, v := range values {
			if i != skip {
				vars = append(vars, v...)
			}
		}
		if err := db.WithContext(c.Request.Context()).Exec(sql, vars...).Error; err != nil {
			c.AbortWithStatus(http.StatusInternalServerError)
			return
		}
		c.Header("Location", location)
		c.Header("ETag", `"1"`)
		c.Data(status, "application/json; charset=utf-8", answer)
	}
}

// itemCreateExplained prints the same-work baseline against the single
// insert: the share of the single insert's rate that the writes of a
// durable create leave. Below the API's target against the single insert,
// the same-work baseline is measured again, in turn with itself without
// each write, so the rate each write costs is shown.
func itemCreateExplained(sameWork, single bareTarget, variants []bareTarget) func(result, []result, func(...bareTarget) []result) {
	return func(_ result, bare []result, measure func(...bareTarget) []result) {
		name := "POST /catalog-items"
		ratio := bare[0].rps() / bare[1].rps()
		fmt.Printf("%-34s %-16s %4s %9.0f%% of %s req/s: the writes beside the item cost %s of the machine and %s of PostgreSQL's CPU per create\n",
			name, "same-work/insert", "", 100*ratio, single.name, costPer(bare[0], bare[1]),
			(bare[0].cpuPerRequest().database - bare[1].cpuPerRequest().database).String())
		if ratio >= single.minRatio {
			return
		}
		fmt.Printf("%-34s %-16s %4s below %.0f%%: the same-work baseline again, in turn with itself without each write\n",
			name, "", "", 100*single.minRatio)
		all := measure(append([]bareTarget{sameWork}, variants...)...)
		all[0].print(name, sameWork.name)
		for i, v := range variants {
			all[i+1].print(name, v.name)
		}
		printCPU(name, sameWork.name, all[0])
		for i, v := range variants {
			printCPU(name, v.name, all[i+1])
		}
		for i, v := range variants {
			r := all[i+1]
			fmt.Printf("%-34s %-16s %4s %9.0f%% of %s req/s: the %s costs %s of the machine and %s of PostgreSQL's CPU per create\n",
				name, v.name, "", 100*r.rps()/all[0].rps(), sameWork.name, strings.TrimPrefix(v.name, "w/o "), costPer(all[0], r),
				(all[0].cpuPerRequest().database - r.cpuPerRequest().database).String())
		}
	}
}

// costPer is the time the machine, saturated, spends per request of with
// beyond one of without: the difference of their inverse rates.
func costPer(with, without result) string {
	return (time.Duration(float64(time.Second)/with.rps()) - time.Duration(float64(time.Second)/without.rps())).Round(time.Microsecond).String()
}

// durableVariants are the same-work handler without each write but the
// item's, which the others cite.
func durableVariants(db *gorm.DB, who writer, request func(string, int) (*http.Request, error)) []bareTarget {
	var out []bareTarget
	for i := 1; i < len(durableWrites); i++ {
		out = append(out, bareTarget{
			name: "w/o " + durableWrites[i].name, method: http.MethodPost, path: "/catalog-items-without-" + strconv.Itoa(i),
			handler: durableCreate(db, who, i),
			request: func(base string, n int) (*http.Request, error) {
				r, err := request(base, n)
				if err == nil {
					r.URL.Path += "-without-" + strconv.Itoa(i)
				}
				return r, err
			},
		})
	}
	return out
}
