package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/accounts"
	"ppwr/domain/catalog"
	"ppwr/domain/packing"
	"ppwr/domain/stock"
	"ppwr/internal/database"
	"ppwr/internal/work"
)

// reservationsScenario is the name -scenario matches to run the
// reservation benchmark: reservationClients clients reserving sets of one
// packing set at once, so every request queues for the same balance rows.
const reservationsScenario = "reservations"

const (
	reservationClients = 200
	// reservationStock is the sets the opening stock makes: more than a
	// run reserves, so the figure is the cost of contention, not of
	// refusals; the end check proves no set was sold twice.
	reservationStock = 1_000_000
	// reservationsMinRatio is the target: the share of the bare
	// conditional UPDATE's reservations per second.
	reservationsMinRatio = 0.80
)

// runReservations measures createReservation under contention, in turn
// with two bare handlers: one doing the same work (reservationSameWork) and
// one that takes the same stock with one conditional UPDATE per item. It
// then checks the ledger: reserved equals what the held reservations hold,
// nothing is negative, and balances equal movements.
func runReservations(o options) error {
	db, fullURL, stopFull, err := benchAPI(o)
	if err != nil {
		return err
	}
	defer stopFull()
	orgID, tokens, err := seedClients(db, reservationClients)
	if err != nil {
		return err
	}
	ring := &tokenRing{tokens: tokens}
	setID, items, err := seedPackingSet(db, orgID)
	if err != nil {
		return err
	}
	w := work.New(context.Background(), db, work.Actor{Kind: work.ActorSystem, OrganizationID: orgID})
	conf, err := packing.LoadConfiguration(w, setID)
	if err != nil {
		return err
	}
	cred, err := accounts.LookupCredential(context.Background(), db, accounts.HashToken(ring.next()))
	if err != nil {
		return err
	}
	who := writer{orgID: orgID, userID: cred.UserID, keyID: cred.KeyID}

	var seq atomic.Int64
	post := func(url string) (*http.Request, error) {
		body, _ := json.Marshal(map[string]any{"revision": conf.System.Revision, "configuration_hash": conf.Hash, "sets_count": 1,
			"order_reference": "B-" + strconv.FormatInt(seq.Add(1), 10), "country": "PL", "expires_in_hours": 1})
		r, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err == nil {
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return r, err
	}
	path := fmt.Sprintf("/api/v1/organizations/%s/packaging-systems/%s/reservations", orgID, setID)
	sameWork := bareTarget{
		name: "bare same-work", method: http.MethodPost, path: "/reservations",
		handler: reservationSameWork(db, who, conf, -1),
		request: func(base string, _ int) (*http.Request, error) { return post(base + "/reservations") },
	}
	// The bare holds move only reserved, so what they took is given back
	// before the ledger check.
	var bareHolds atomic.Int64
	update := bareTarget{
		name: "bare UPDATE", method: http.MethodPost, path: "/hold", minRatio: reservationsMinRatio,
		handler: func(c *gin.Context) {
			err := db.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
				for _, id := range items {
					res := tx.Exec(`UPDATE stock_balances SET reserved = reserved + 2 WHERE catalog_item_id = ? AND physical - reserved >= 2`, id)
					if res.Error != nil || res.RowsAffected == 0 {
						return fmt.Errorf("short: %v", res.Error)
					}
				}
				return nil
			})
			if err != nil {
				c.AbortWithStatus(http.StatusUnprocessableEntity)
				return
			}
			bareHolds.Add(1)
			c.Status(http.StatusCreated)
		},
		request: func(base string, _ int) (*http.Request, error) {
			return http.NewRequest(http.MethodPost, base+"/hold", nil)
		},
	}
	// Without the reservation or its movements the ledger check would
	// fail, so only the writes after them are left out in turn.
	writes := reservationWrites(len(items))
	variants := writeVariants(writes, 2, sameWork.path, func(skip int) gin.HandlerFunc {
		return reservationSameWork(db, who, conf, skip)
	}, sameWork.request)
	name := "POST reservations"
	explain := sameWorkExplained(name, "the conditional UPDATE", sameWork, update, variants)
	s := scenario{
		name: name,
		fullRequest: func(base string, _ int) (*http.Request, error) {
			r, err := post(base + path)
			if err == nil {
				r.Header.Set("Authorization", "Bearer "+ring.next())
			}
			return r, err
		},
		bare:     []bareTarget{sameWork, update},
		variants: variants,
		explain: func(full result, bare []result, measure func(...bareTarget) []result) {
			fmt.Printf("%-34s %-16s %4s %9.0f requests/s handled, %.0f reservations/s\n", name, "ppwr", "",
				float64(len(full.latencies)+full.errors)/full.elapsed.Seconds(), full.rps())
			explain(full, bare, measure)
		},
	}
	clients := o
	clients.conns = reservationClients
	fmt.Printf("\n%d clients reserving 1 set each of one packing set (2 items), %s measured after %s warm-up per target, in turns of %d\n",
		reservationClients, o.duration, o.warmup, measureRounds)
	fmt.Printf("%-34s %-16s %10s %10s %10s %10s %8s\n", "scenario", "target", "requests", "ok/s", "p50", "p99", "refused")
	if err := runAgainstBare(clients, db, []scenario{s}, fullURL, ring); err != nil {
		return err
	}
	if err := db.Exec(`UPDATE stock_balances SET reserved = reserved - ? WHERE catalog_item_id IN ?`, 2*bareHolds.Load(), items).Error; err != nil {
		return err
	}
	return checkNoOversell(db, orgID, items)
}

// reservationWrites are what a reservation of a set of items items
// commits: the reservation with its composition, a movement per item, the
// parcel's claim, the start of its expiry workflow and the answer's
// writes. The balances' UPDATE follows them.
func reservationWrites(items int) []durableWrite {
	return append([]durableWrite{
		{name: "reservation", table: "packing_reservations", columns: []string{"id", "organization_id", "packaging_system_id", "system_revision",
			"configuration_hash", "composition", "sets_count", "order_reference", "country", "status", "expires_at"}},
		{name: "movements", table: "stock_movements", columns: []string{"id", "organization_id", "catalog_item_id", "data_version_id", "kind",
			"physical_delta", "reserved_delta", "source_type", "source_id"}, rows: items},
		{name: "parcel claim", table: "parcel_claims", columns: []string{"organization_id", "order_reference", "path", "record_id"}},
		{name: "workflow start", table: "workflow_starts", columns: []string{"id", "workflow_id", "workflow_type", "organization_id", "resource_id",
			"input", "summary", "created_at"}},
	}, answerWrites...)
}

// reservationSameWork is a bare handler that does what a reservation must,
// as cheaply as it can, in ppwr's five round trips: in one transaction,
// it reads the set's recipe share-locked (so a recipe change is not
// missed) and checks it is the one the client packs by, writes
// reservationWrites (but the one at index skip, -1: none) in one
// statement, and takes the stock with takeStock last, so the balances are
// locked for that statement and the commit only. It is the work of POST
// …/reservations without its request pipeline, validation or unit of
// work: the limit of that work on this machine. (Taking the stock in the
// statement of the other writes saves a round trip, but holds the
// balances' locks while the statement's triggers and foreign-key checks
// run, and made fewer reservations a second.)
func reservationSameWork(db *gorm.DB, who writer, conf *packing.Configuration, skip int) gin.HandlerFunc {
	writes := reservationWrites(len(conf.Composition))
	sql := withWrites(writes, skip)
	_, _, start, err := readRecipe(db, who.orgID, conf.System.ID, "")
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(start)
	return func(c *gin.Context) {
		body, err := io.ReadAll(c.Request.Body)
		var in struct {
			Revision          int    `json:"revision"`
			ConfigurationHash string `json:"configuration_hash"`
			SetsCount         int    `json:"sets_count"`
			OrderReference    string `json:"order_reference"`
			Country           string `json:"country"`
			ExpiresInHours    int    `json:"expires_in_hours"`
		}
		if err == nil {
			err = json.Unmarshal(body, &in)
		}
		if err != nil {
			c.AbortWithStatus(http.StatusUnprocessableEntity)
			return
		}
		status, answer := http.StatusCreated, []byte(nil)
		id := domain.NewID()
		location := "/api/v1/organizations/" + who.orgID.String() + "/packing-reservations/" + id.String()
		err = db.WithContext(c.Request.Context()).Transaction(func(tx *gorm.DB) error {
			revision, lines, composition, err := readRecipe(tx, who.orgID, conf.System.ID, "FOR SHARE OF s")
			if err != nil {
				return err
			}
			if revision != in.Revision || sha256.Sum256(composition) != sum || in.ConfigurationHash != conf.Hash {
				status = http.StatusConflict
				return errors.New("stale recipe")
			}
			now := time.Now().UTC()
			expires := now.Add(time.Duration(in.ExpiresInHours) * time.Hour)
			answer, _ = json.Marshal(map[string]any{"id": id, "packaging_system": conf.System.ID, "system_revision": revision,
				"configuration_hash": in.ConfigurationHash, "composition": json.RawMessage(composition), "sets_count": in.SetsCount,
				"order_reference": in.OrderReference, "country": in.Country, "created_at": now, "status": packing.ReservationStatusHeld,
				"expires_at": expires, "revision": 1, "usage": nil, "updated_at": now, "ended_at": nil})
			o := outcome{operation: "createReservation", recordType: "packing_reservation", record: id,
				eventType: "reservation.created", eventData: `{"reservation_id":"` + id.String() + `","status":"held"}`,
				status: status, answer: answer,
				headers: map[string]string{"Content-Type": "application/json; charset=utf-8", "Location": location}}
			ids, quantities := make([]uuid.UUID, len(lines)), make([]decimal.Decimal, len(lines))
			var movements []any
			for i, l := range lines {
				ids[i], quantities[i] = l.Item, l.StockQuantity.Mul(decimal.NewFromInt(int64(in.SetsCount)))
				movements = append(movements, domain.NewID(), who.orgID, l.Item, l.DataVersion, stock.MovementReservationHold,
					decimal.Zero, quantities[i], "packing_reservation", id)
			}
			input, _ := json.Marshal(packing.ReservationInput{Org: domain.OrgOf(who.orgID), ReservationID: id, FireAt: expires})
			vars := flatten(append([][]any{
				{id, who.orgID, conf.System.ID, revision, in.ConfigurationHash, string(composition), in.SetsCount, in.OrderReference, in.Country,
					packing.ReservationStatusHeld, expires},
				movements,
				{who.orgID, in.OrderReference, packing.PathReservation, id},
				{domain.NewID(), "reservation/" + id.String(), packing.ReservationExpiryWorkflow.Type, who.orgID.String(), id.String(), input,
					fmt.Sprintf("Reservation of %d sets for order %s, held until %s: expire", in.SetsCount, in.OrderReference, expires.Format(time.RFC3339)), now},
			}, who.answerRows(c, body, o, now)...), skip)
			if err := tx.Exec(sql, vars...).Error; err != nil {
				return err
			}
			var taken []uuid.UUID
			if err := tx.Raw(takeStock, database.Array(ids), who.orgID, database.Array(ids), database.Array(quantities)).Scan(&taken).Error; err != nil {
				return err
			}
			if len(taken) < len(ids) {
				status = http.StatusUnprocessableEntity
				return errors.New("short")
			}
			return nil
		})
		if err != nil {
			if status == http.StatusCreated {
				status = http.StatusInternalServerError
			}
			c.AbortWithStatus(status)
			return
		}
		c.Header("Location", location)
		c.Data(status, "application/json; charset=utf-8", answer)
	}
}

// takeStock is the conditional UPDATE of the balances, which locks them in
// item order, so that no two requests deadlock, and answers the items
// whose available stock sufficed.
const takeStock = `WITH locked AS MATERIALIZED (SELECT catalog_item_id FROM stock_balances
		WHERE catalog_item_id = ANY (?::uuid[]) AND organization_id = ? ORDER BY catalog_item_id FOR UPDATE)
	UPDATE stock_balances AS b SET reserved = b.reserved + v.q, updated_at = now()
	FROM locked JOIN unnest(?::uuid[], ?::numeric[]) AS v (id, q) ON v.id = locked.catalog_item_id
	WHERE b.catalog_item_id = locked.catalog_item_id AND b.physical - b.reserved >= v.q RETURNING b.catalog_item_id`

// readRecipe reads the organization's set id with its lines' items in
// one query, taking lock, and answers its revision and its composition,
// also as a reservation stores it: what the same-work handler packs by and
// compares with the recipe at the start.
func readRecipe(db *gorm.DB, orgID, id uuid.UUID, lock string) (int, []packing.CompositionLine, []byte, error) {
	rows, err := db.Raw(`SELECT s.revision, l.id, l.catalog_item_id, i.revision, v.id, l.quantity, l.unit, i.stock_unit, i.mass_g, l.role,
			l.outer_packaging, i.stock_tracked
		FROM packaging_systems AS s
		JOIN packaging_system_lines AS l ON l.packaging_system_id = s.id
		JOIN catalog_items AS i ON i.id = l.catalog_item_id
		LEFT JOIN catalog_item_data_versions AS v ON v.catalog_item_id = i.id AND v.revision = i.revision
		WHERE s.organization_id = ? AND s.id = ? ORDER BY l.catalog_item_id `+lock, orgID, id).Rows()
	if err != nil {
		return 0, nil, nil, err
	}
	defer rows.Close()
	var revision int
	var lines []packing.CompositionLine
	for rows.Next() {
		var l packing.CompositionLine
		if err := rows.Scan(&revision, &l.Line, &l.Item, &l.ItemRevision, &l.DataVersion, &l.Quantity, &l.Unit, &l.StockUnit,
			&l.MassG, &l.Role, &l.OuterPackaging, &l.StockTracked); err != nil {
			return 0, nil, nil, err
		}
		// The bench's lines are in pieces, each item's stock unit.
		l.StockQuantity, l.MassG = l.Quantity, l.MassG.Mul(l.Quantity)
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, nil, err
	}
	composition, err := json.Marshal(lines)
	return revision, lines, composition, err
}

// seedPackingSet stores a packing set of two stock-tracked items, 2 of
// each per set, with stock for reservationStock sets.
func seedPackingSet(db *gorm.DB, orgID uuid.UUID) (uuid.UUID, []uuid.UUID, error) {
	sys := &packing.PackagingSystem{ID: domain.NewID(), OrganizationID: orgID, Name: "Bench parcel", Status: packing.SystemActive, Revision: 1}
	if err := db.Create(sys).Error; err != nil {
		return uuid.Nil, nil, err
	}
	w := work.New(context.Background(), db, work.Actor{Kind: work.ActorSystem, OrganizationID: orgID})
	var items []uuid.UUID
	var changes []stock.StockChange
	for i := range 2 {
		item := newItem(orgID, "SET-"+strconv.Itoa(i))
		item.StockTracked = true
		if err := db.Create(item).Error; err != nil {
			return uuid.Nil, nil, err
		}
		// Every item has the data version of its revision, which stock
		// movements cite.
		version, err := catalog.NewDataVersion(item, nil, nil)
		if err == nil {
			err = db.Create(version).Error
		}
		if err != nil {
			return uuid.Nil, nil, err
		}
		line := &packing.PackagingSystemLine{ID: domain.NewID(), OrganizationID: orgID, PackagingSystemID: sys.ID, CatalogItemID: item.ID,
			Quantity: decimal.NewFromInt(2), Unit: "piece", Role: "container", OuterPackaging: i == 0}
		if err := db.Create(line).Error; err != nil {
			return uuid.Nil, nil, err
		}
		items = append(items, item.ID)
		changes = append(changes, stock.StockChange{Item: item, DataVersion: version.ID, Kind: stock.MovementSupply, Physical: decimal.NewFromInt(2 * reservationStock),
			Source: work.Record{Type: "bench", ID: domain.NewID()}, Field: "quantity"})
	}
	if err := stock.ApplyStock(w, changes); err != nil {
		w.Rollback()
		return uuid.Nil, nil, err
	}
	return sys.ID, items, w.Commit()
}

// checkNoOversell fails the run unless every item's reserved stock is
// exactly what the held reservations hold, available stock is not
// negative, and the balances equal their movements.
func checkNoOversell(db *gorm.DB, orgID uuid.UUID, items []uuid.UUID) error {
	var held int64
	if err := db.Model(&packing.Reservation{}).Where("organization_id = ? AND status = ?", orgID, packing.ReservationStatusHeld).
		Count(&held).Error; err != nil {
		return err
	}
	var off int64
	if err := db.Raw(`SELECT count(*) FROM stock_balances b
		JOIN (SELECT catalog_item_id, sum(physical_delta) AS p, sum(reserved_delta) AS r FROM stock_movements GROUP BY 1) m USING (catalog_item_id)
		WHERE b.catalog_item_id IN ? AND (b.physical <> m.p OR b.reserved <> m.r OR b.reserved <> ? OR b.physical < b.reserved)`,
		items, 2*held).Scan(&off).Error; err != nil {
		return err
	}
	if off > 0 {
		return fmt.Errorf("reservations: OVERSOLD or unbalanced: %d items disagree with %d held reservations", off, held)
	}
	fmt.Printf("%-34s %d reservations held, reserved = 2 × held for each item, balances equal movements: zero oversell\n",
		"POST reservations", held)
	return nil
}
