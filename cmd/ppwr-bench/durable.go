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

// durableWrite is one of the rows a durable write commits, into ppwr's
// own table (the benchmark's database is migrated as ppwr's is, so the
// same columns, indexes, constraints and triggers), rows of it per
// request (0: one).
type durableWrite struct {
	name    string
	table   string
	columns []string
	rows    int
}

// answerWrites are what every durable write commits beside its record:
// the outbox event, the audit entry and the stored answer for its
// Idempotency-Key, in the order of answerRows.
var answerWrites = []durableWrite{
	{name: "event", table: "events", columns: []string{"id", "organization_id", "type", "body"}},
	{name: "audit entry", table: "audit_log", columns: []string{"id", "organization_id", "occurred_at", "actor_user_id", "api_key_id", "actor_kind",
		"operation", "method", "path", "status", "record_type", "record_id", "request_id", "summary"}},
	{name: "idempotency record", table: "idempotency_keys", columns: []string{"api_key_id", "key", "operation", "fingerprint", "response_status",
		"response_headers", "response_body", "expires_at"}},
}

// durableWrites are what POST /catalog-items commits: the item, its first
// data version and the answer's writes. Columns the tables default are
// left to them.
var durableWrites = append([]durableWrite{
	{name: "item", table: "catalog_items", columns: []string{"id", "organization_id", "internal_code", "name", "sourcing_type", "mass_g",
		"main_material_code", "stock_unit", "food_contact_status", "reuse_type"}},
	{name: "data version", table: "catalog_item_data_versions", columns: []string{"id", "organization_id", "catalog_item_id", "revision",
		"specifications", "components", "markets", "sha256"}},
}, answerWrites...)

// withWrites is a statement inserting writes except the one at index skip
// (-1: none), each a data-modifying WITH query, so that it writes them all
// in one round trip.
func withWrites(writes []durableWrite, skip int) string {
	var parts []string
	for i, w := range writes {
		if i == skip {
			continue
		}
		row := "(" + strings.TrimSuffix(strings.Repeat("?,", len(w.columns)), ",") + ")"
		rows := strings.TrimSuffix(strings.Repeat(row+",", max(w.rows, 1)), ",")
		parts = append(parts, fmt.Sprintf("w%d AS (INSERT INTO %s (%s) VALUES %s)", i, w.table, strings.Join(w.columns, ","), rows))
	}
	return "WITH " + strings.Join(parts, ", ") + " SELECT"
}

// writer is who the same-work handlers write as: the key and user of the
// API's requests, so the audit entry and the stored answer name real ones.
type writer struct {
	orgID, userID, keyID uuid.UUID
}

// outcome is what a same-work handler did, for the rows of answerWrites.
type outcome struct {
	operation, recordType string
	record                uuid.UUID
	// event is the outbox event's type and its data, as JSON.
	eventType, eventData string
	status               int
	headers              map[string]string
	answer               []byte
}

// answerRows are the values of answerWrites for the request c with body
// that had outcome o at now, as ppwr writes them.
func (who writer) answerRows(c *gin.Context, body []byte, o outcome, now time.Time) [][]any {
	eventID := domain.NewID()
	event := `{"id":"` + eventID.String() + `","type":"` + o.eventType + `","schema_version":1,"organization_id":"` + who.orgID.String() +
		`","created_at":"` + now.Format(time.RFC3339Nano) + `","data":` + o.eventData + `}`
	headers, _ := json.Marshal(o.headers)
	fingerprint := sha256.Sum256(append([]byte(c.Request.Method+" "+c.Request.URL.RequestURI()+"\n"), body...))
	return [][]any{
		{eventID, who.orgID, o.eventType, event},
		{domain.NewID(), who.orgID, now, who.userID, who.keyID, "api_key", o.operation, c.Request.Method, c.Request.URL.Path, o.status,
			o.recordType, o.record, uuid.NewString(), `{"body":` + string(body) + `}`},
		{who.keyID, c.GetHeader("Idempotency-Key"), o.operation, fingerprint[:], o.status, headers, o.answer, now.Add(domain.IdempotencyTTL)},
	}
}

// flatten is the values of rows but those at index skip, in order, as
// the statement of withWrites binds them.
func flatten(rows [][]any, skip int) []any {
	var vars []any
	for i, v := range rows {
		if i != skip {
			vars = append(vars, v...)
		}
	}
	return vars
}

// durableCreate is a bare handler that writes what a durable create must,
// as cheaply as it can: the work of POST /catalog-items without its
// request pipeline, validation or unit of work, so it is the limit of
// that work on this machine. The writes at index skip (-1: none) are left
// out, to see what each one costs.
func durableCreate(db *gorm.DB, who writer, skip int) gin.HandlerFunc {
	sql := withWrites(durableWrites, skip)
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
		location := "/api/v1/organizations/" + who.orgID.String() + "/catalog-items/" + item.ID.String()
		o := outcome{operation: "createCatalogItem", recordType: "catalog_item", record: item.ID,
			eventType: "catalog_item.created", eventData: `{"catalog_item_id":"` + item.ID.String() + `","revision":1}`,
			status: http.StatusCreated, answer: answer,
			headers: map[string]string{"Content-Type": "application/json; charset=utf-8", "Location": location, "ETag": `"1"`}}
		rows := append([][]any{
			{item.ID, item.OrganizationID, item.InternalCode, item.Name, item.SourcingType, item.MassG,
				item.MainMaterialCode, item.StockUnit, item.FoodContactStatus, item.ReuseType},
			{domain.NewID(), who.orgID, item.ID, 1, spec, "[]", "[]", hex.EncodeToString(sum[:])},
		}, who.answerRows(c, body, o, now)...)
		if err := db.WithContext(c.Request.Context()).Exec(sql, flatten(rows, skip)...).Error; err != nil {
			c.AbortWithStatus(http.StatusInternalServerError)
			return
		}
		c.Header("Location", location)
		c.Header("ETag", `"1"`)
		c.Data(o.status, "application/json; charset=utf-8", answer)
	}
}

// sameWorkExplained prints, for the scenario name, the same-work
// baseline against base, the least work of the operation: the share of
// base's rate that the writes beside it (what beside names) leave. Below
// base's target for the API, the same-work baseline is measured again, in
// turn with itself without each write, so the rate each write costs is
// shown.
func sameWorkExplained(name, beside string, sameWork, base bareTarget, variants []bareTarget) func(result, []result, func(...bareTarget) []result) {
	return func(_ result, bare []result, measure func(...bareTarget) []result) {
		ratio := bare[0].rps() / bare[1].rps()
		fmt.Printf("%-34s %-16s %4s %9.0f%% of %s req/s: the writes beside %s cost %s of the machine and %s of PostgreSQL's CPU per request\n",
			name, "same-work/base", "", 100*ratio, base.name, beside, costPer(bare[0], bare[1]),
			(bare[0].cpuPerRequest().database - bare[1].cpuPerRequest().database).String())
		if ratio >= base.minRatio {
			return
		}
		fmt.Printf("%-34s %-16s %4s below %.0f%%: the same-work baseline again, in turn with itself without each write\n",
			name, "", "", 100*base.minRatio)
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
			fmt.Printf("%-34s %-16s %4s %9.0f%% of %s req/s: the %s costs %s of the machine and %s of PostgreSQL's CPU per request\n",
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

// writeVariants are the same-work handler, served at path, without each
// of writes from index from on (the writes before, which the others
// cite, stay): handler(skip) leaves out the write at skip.
func writeVariants(writes []durableWrite, from int, path string, handler func(skip int) gin.HandlerFunc,
	request func(string, int) (*http.Request, error)) []bareTarget {
	var out []bareTarget
	for i := from; i < len(writes); i++ {
		suffix := "-without-" + strconv.Itoa(i)
		out = append(out, bareTarget{
			name: "w/o " + writes[i].name, method: http.MethodPost, path: path + suffix,
			handler: handler(i),
			request: func(base string, n int) (*http.Request, error) {
				r, err := request(base, n)
				if err == nil {
					r.URL.Path += suffix
				}
				return r, err
			},
		})
	}
	return out
}
