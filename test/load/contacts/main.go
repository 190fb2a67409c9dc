// Command contacts is the load run of contact statistics: it wires feria on
// real PostgreSQL and Redis, serves it on a real HTTP listener on
// 127.0.0.1, ingests a year of events through POST /sandbox/contact_events,
// then drives two reads with concurrent keep-alive clients and reports
// p50/p99 latency and requests/s:
//   - a 30-day daily window of 50 items (/items/contacts/phone_views/time_window)
//   - a one-year date-range total (/items/{id}/contacts/phone_views)
//
// Run it with deploy/scripts/bench-contacts.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"strings"
	"time"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/test/load/loadrun"
)

func main() {
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (a schema of its own is created and dropped)")
	redisURL := flag.String("redis", "redis://127.0.0.1:6379/0", "Redis URL (only the contacts key prefix is written and deleted)")
	duration := flag.Duration("duration", 5*time.Second, "length of each read scenario")
	conc := flag.Int("concurrency", 8, "concurrent clients")
	items := flag.Int("items", 50, "items of the seller (the window reads all of them)")
	flag.Parse()
	if err := run(*dbURL, *redisURL, *duration, *conc, *items); err != nil {
		log.Fatal(err)
	}
}

func run(dbURL, redisURL string, duration time.Duration, conc, items int) error {
	ctx := context.Background()
	db, drop, err := loadrun.Schema(ctx, dbURL, "load_contacts")
	if err != nil {
		return err
	}
	defer drop()
	rdb, err := redisstore.Open(redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	counters := contactsredis.New(rdb, contactsredis.DefaultPrefix)
	if err := counters.Reset(ctx); err != nil {
		return err
	}
	defer counters.Reset(ctx) //nolint:errcheck // best effort
	srv, err := loadrun.Serve(db, rdb, conc)
	if err != nil {
		return err
	}
	defer srv.Close()

	// The world, through the sandbox fixtures: seller 1 with its items,
	// then a year of events.
	ids := make([]string, items)
	var itemRows []map[string]any
	for i := range ids {
		ids[i] = fmt.Sprint("MLA", 1000+i)
		itemRows = append(itemRows, map[string]any{"id": ids[i], "site_id": "MLA", "seller_id": 1, "title": "Item " + ids[i],
			"category_id": "MLA1000", "status": "active", "price": 100, "currency_id": "ARS", "available_quantity": 1})
	}
	world, _ := json.Marshal(map[string]any{
		"users":      []map[string]any{{"id": 1, "nickname": "LOAD", "site_id": "MLA"}},
		"categories": []map[string]any{{"id": "MLA1000", "site_id": "MLA", "name": "Otros", "domain_id": "MLA-OTHERS", "compatibilities": nil}},
		"items":      itemRows,
	})
	if _, err := srv.Call("POST", "/sandbox/fixtures", string(world)); err != nil {
		return err
	}
	start := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	type event struct {
		ID     string `json:"id"`
		ItemID string `json:"item_id"`
		Type   string `json:"type"`
		Date   string `json:"date"`
	}
	var batch []event
	n, batches := 0, 0
	t0 := time.Now()
	flush := func() error {
		body, _ := json.Marshal(map[string]any{"events": batch})
		batch = batch[:0]
		batches++
		_, err := srv.Call("POST", "/sandbox/contact_events", string(body))
		return err
	}
	for d := 0; d < 366; d++ {
		for _, id := range ids {
			batch = append(batch, event{ID: fmt.Sprint("load-", n), ItemID: id, Type: "phone_view",
				Date: start.AddDate(0, 0, d).Add(time.Duration(n%24) * time.Hour).Format(time.RFC3339)})
			n++
			if len(batch) == 1000 {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	ingest := time.Since(t0)

	fmt.Printf("contacts load run: %d items, %d concurrent clients, %s per scenario, HTTP on %s\n", items, conc, duration, strings.TrimPrefix(srv.Base, "http://"))
	fmt.Printf("ingest over HTTP: %d events in %d batches of <=1000 in %s = %.0f events/s\n", n, batches, ingest.Round(time.Millisecond), float64(n)/ingest.Seconds())
	window := "/items/contacts/phone_views/time_window?unit=day&last=30&ending=2026-03-15T12:00:00Z&ids=" + strings.Join(ids, ",")
	year := "/items/" + ids[0] + "/contacts/phone_views?date_from=2025-07-01T12:00:00Z&date_to=2026-07-01T12:00:00Z"
	userYear := "/users/1/contacts/phone_views?date_from=2025-07-01T12:00:00Z&date_to=2026-07-01T12:00:00Z"
	fmt.Println(loadrun.Header())
	for _, s := range []struct{ name, path string }{
		{"30-day daily window, 50 ids", window},
		{"1-year date-range total (item)", year},
		{"1-year date-range total (seller)", userYear},
	} {
		r, err := srv.Load(s.name, s.path, duration, conc)
		if err != nil {
			return err
		}
		fmt.Println(r)
	}
	return nil
}
