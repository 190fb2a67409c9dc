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
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/redisstore/contactsredis"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/app"
)

const key = "load-sandbox-key"

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
	schema := fmt.Sprintf("load_contacts_%d", time.Now().UnixNano()%1_000_000_000)
	admin, err := sqlstore.OpenPostgres(ctx, dbURL)
	if err != nil {
		return err
	}
	defer admin.Close()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		return err
	}
	defer admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE") //nolint:errcheck // best effort
	u, _ := url.Parse(dbURL)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	db, err := sqlstore.OpenPostgres(ctx, u.String())
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := migrations.Up(ctx, db); err != nil {
		return err
	}
	rdb, _, err := redisstore.Open(redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	counters := contactsredis.New(rdb, contactsredis.DefaultPrefix)
	if err := counters.Reset(ctx); err != nil {
		return err
	}
	defer counters.Reset(ctx) //nolint:errcheck // best effort

	cfg, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		return err
	}
	cfg.SandboxKey = key
	dir, err := os.MkdirTemp("", "feria-load")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	blobs, err := fsblob.New(dir)
	if err != nil {
		return err
	}
	in, err := app.NewInstance(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), db, rdb, blobs)
	if err != nil {
		return err
	}
	defer in.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go in.HTTP.Listener(ln) //nolint:errcheck // ends with the process
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc * 2}, Timeout: 30 * time.Second}

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
	if err := call(client, "POST", base+"/sandbox/fixtures", string(world), nil); err != nil {
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
		return call(client, "POST", base+"/sandbox/contact_events", string(body), nil)
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

	fmt.Printf("contacts load run: %d items, %d concurrent clients, %s per scenario, HTTP on %s\n", items, conc, duration, ln.Addr())
	fmt.Printf("ingest over HTTP: %d events in %d batches of <=1000 in %s = %.0f events/s\n", n, batches, ingest.Round(time.Millisecond), float64(n)/ingest.Seconds())
	window := base + "/items/contacts/phone_views/time_window?unit=day&last=30&ending=2026-03-15T12:00:00Z&ids=" + strings.Join(ids, ",")
	year := base + "/items/" + ids[0] + "/contacts/phone_views?date_from=2025-07-01T12:00:00Z&date_to=2026-07-01T12:00:00Z"
	userYear := base + "/users/1/contacts/phone_views?date_from=2025-07-01T12:00:00Z&date_to=2026-07-01T12:00:00Z"
	fmt.Printf("%-44s %10s %10s %10s %10s\n", "scenario", "requests", "req/s", "p50", "p99")
	for _, s := range []struct{ name, url string }{
		{"30-day daily window, 50 ids", window},
		{"1-year date-range total (item)", year},
		{"1-year date-range total (seller)", userYear},
	} {
		if err := load(client, s.name, s.url, duration, conc); err != nil {
			return err
		}
	}
	return nil
}

func call(c *http.Client, method, url, body string, out any) error {
	req, _ := http.NewRequest(method, url, bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Sandbox-Key", key)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, url, res.StatusCode, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// load runs conc clients against url for d and prints the latency spread.
func load(c *http.Client, name, url string, d time.Duration, conc int) error {
	var mu sync.Mutex
	var all []time.Duration
	var firstErr error
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	t0 := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) {
				s := time.Now()
				res, err := c.Get(url)
				if err == nil {
					_, _ = io.Copy(io.Discard, res.Body)
					res.Body.Close()
					if res.StatusCode != 200 {
						err = fmt.Errorf("%s: status %d", name, res.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				mine = append(mine, time.Since(s))
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := time.Since(t0)
	if firstErr != nil {
		return firstErr
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[int(float64(len(all)-1)*p)] }
	fmt.Printf("%-44s %10d %10.0f %10s %10s\n", name, len(all), float64(len(all))/elapsed.Seconds(),
		pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond))
	return nil
}
