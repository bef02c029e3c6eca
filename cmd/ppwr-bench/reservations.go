package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"gorm.io/gorm"

	"ppwr/domain"
	"ppwr/domain/catalog"
	"ppwr/domain/packing"
	"ppwr/domain/stock"
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

// runReservations measures createReservation under contention, in turn with a
// bare handler that takes the same stock with one conditional UPDATE per
// item, then checks the ledger: reserved equals what the held
// reservations hold, nothing is negative, and balances equal movements.
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

	var seq atomic.Int64
	path := fmt.Sprintf("%s/api/v1/organizations/%s/packaging-systems/%s/reservations", fullURL, orgID, setID)
	reserve := func(int) (*http.Request, error) {
		body, _ := json.Marshal(map[string]any{"revision": conf.System.Revision, "configuration_hash": conf.Hash, "sets_count": 1,
			"order_reference": "B-" + strconv.FormatInt(seq.Add(1), 10), "country": "PL", "expires_in_hours": 1})
		r, err := http.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		if err == nil {
			r.Header.Set("Authorization", "Bearer "+ring.next())
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Idempotency-Key", uuid.NewString())
		}
		return r, err
	}

	// The bare holds move only reserved, so what they took is given back
	// before the ledger check.
	var bareHolds atomic.Int64
	bareEngine := gin.New()
	bareEngine.POST("/hold", func(c *gin.Context) {
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
	})
	bareURL, stopBare, err := listen(bareEngine)
	if err != nil {
		return err
	}
	defer stopBare()
	hold := func(int) (*http.Request, error) { return http.NewRequest(http.MethodPost, bareURL+"/hold", nil) }
	clients := o
	clients.conns = reservationClients
	all := measureInTurn(clients, db, reserve, hold)
	if err := db.Exec(`UPDATE stock_balances SET reserved = reserved - ? WHERE catalog_item_id IN ?`, 2*bareHolds.Load(), items).Error; err != nil {
		return err
	}

	fmt.Printf("\n%d clients reserving 1 set each of one packing set (2 items), %s measured after %s warm-up, in turns of %d\n",
		reservationClients, o.duration, o.warmup, measureRounds)
	fmt.Printf("%-34s %-16s %10s %10s %10s %10s %8s\n", "scenario", "target", "requests", "ok/s", "p50", "p99", "refused")
	name := "POST reservations"
	full, bare := all[0], all[1]
	full.print(name, "ppwr")
	bare.print(name, "bare gin+gorm")
	printCPU(name, "ppwr", full)
	printCPU(name, "bare gin+gorm", bare)
	handled := float64(len(full.latencies)+full.errors) / full.elapsed.Seconds()
	ratio := full.rps() / bare.rps()
	verdict := "met"
	if ratio < reservationsMinRatio {
		verdict = "NOT met"
	}
	fmt.Printf("%-34s %-16s %4s %9.0f requests/s handled, %.0f reservations/s, %.0f%% of bare gin+gorm  (target >= %.0f%%: %s)\n", name, "ppwr", "",
		handled, full.rps(), 100*ratio, 100*reservationsMinRatio, verdict)
	return checkNoOversell(db, orgID, items)
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
