// Command shipping is the load run of the free-shipping cost reads: it wires
// feria on a PostgreSQL schema of its own, serves it on a real HTTP listener
// on 127.0.0.1, loads a seller world of 50 items through the sandbox (half
// with their own dimensions, half falling back to their category's; sellers
// of every reputation), then drives two reads with concurrent keep-alive
// clients and reports requests/s, p50 and p99 of each:
//   - the 50-item cost (/items/shipping_options/free?ids=<50 ids>)
//   - the one-item cost (/items/{item_id}/shipping_options/free)
//
// and the ratio of their rates: the multi-item read reads items,
// categories, sellers and rate tables once each, so it must keep at least a
// quarter of the one-item rate. Run it with
// deploy/scripts/bench-shipping.sh.
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
	"github.com/feria/feria/test/load/loadrun"
)

func main() {
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (a schema of its own is created and dropped)")
	duration := flag.Duration("duration", 10*time.Second, "length of each read scenario")
	conc := flag.Int("concurrency", 8, "concurrent clients")
	flag.Parse()
	if err := run(*dbURL, *duration, *conc); err != nil {
		log.Fatal(err)
	}
}

// items is the number of items of the world, the multi-item call's maximum.
const items = 50

func run(dbURL string, duration time.Duration, conc int) error {
	ctx := context.Background()
	db, drop, err := loadrun.Schema(ctx, dbURL, "load_shipping")
	if err != nil {
		return err
	}
	defer drop()
	// Cost reads never touch Redis; an in-process one keeps the shared
	// Redis out of the measurement.
	rdb, _, stop, err := redisstore.Embedded("", nil)
	if err != nil {
		return err
	}
	defer stop()
	defer rdb.Close()
	srv, err := loadrun.Serve(db, rdb, conc)
	if err != nil {
		return err
	}
	defer srv.Close()

	reputations := []any{"green", "yellow", "orange", "red", nil}
	var users []map[string]any
	for i, rep := range reputations {
		users = append(users, map[string]any{"id": i + 1, "nickname": fmt.Sprint("SELLER", i+1), "site_id": "MLA", "reputation": rep})
	}
	category := func(id string, h, w, l, g int) map[string]any {
		return map[string]any{"id": id, "site_id": "MLA", "name": "Category " + id, "domain_id": "MLA-OTHERS", "compatibilities": nil,
			"shipping_preferences": map[string]any{"dimensions": map[string]int{"height": h, "width": w, "length": l, "weight": g},
				"logistics": []map[string]any{{"mode": "me2", "types": []string{"drop_off"}}}},
			"accepted_shipping_methods": []int{73328}}
	}
	ids := make([]string, items)
	var itemRows []map[string]any
	for i := range ids {
		ids[i] = fmt.Sprint("MLA", 2000+i)
		shipping := map[string]any{"mode": "me2", "logistic_type": "drop_off"}
		if i%2 == 1 {
			shipping["dimensions"] = fmt.Sprintf("%dx%dx%d,%d", 5+i%7, 10+i%5, 15+i%3, 200+40*i)
		}
		itemRows = append(itemRows, map[string]any{"id": ids[i], "site_id": "MLA", "seller_id": 1 + i%len(reputations),
			"title": "Item " + ids[i], "category_id": []string{"MLA1747", "MLA1000"}[i/2%2], "price": 15000,
			"currency_id": "ARS", "available_quantity": 1, "shipping": shipping})
	}
	world, _ := json.Marshal(map[string]any{
		"users":      users,
		"categories": []map[string]any{category("MLA1747", 10, 20, 30, 500), category("MLA1000", 8, 15, 20, 300)},
		"items":      itemRows,
	})
	if _, err := srv.Call("POST", "/sandbox/fixtures", string(world)); err != nil {
		return err
	}

	multi := "/items/shipping_options/free?ids=" + strings.Join(ids, ",")
	one := "/items/" + ids[0] + "/shipping_options/free"
	// Both answer before the load: a failing read would measure errors.
	for _, path := range []string{multi, one} {
		if _, err := srv.Call("GET", path, ""); err != nil {
			return err
		}
	}
	fmt.Printf("shipping load run: %d items of %d sellers, %d concurrent clients, %s per scenario, HTTP on %s\n",
		items, len(reputations), conc, duration, strings.TrimPrefix(srv.Base, "http://"))
	fmt.Println(loadrun.Header())
	var results []loadrun.Result
	for _, s := range []struct{ name, path string }{
		{"free-shipping cost, 50 items (ids)", multi},
		{"free-shipping cost, one item", one},
	} {
		r, err := srv.Load(s.name, s.path, duration, conc)
		if err != nil {
			return err
		}
		fmt.Println(r)
		results = append(results, r)
	}
	ratio := results[0].PerSec / results[1].PerSec
	verdict := "ok: at least 25%"
	if ratio < 0.25 {
		verdict = "BELOW the 25% the multi-item read must keep"
	}
	fmt.Printf("50-item rate / one-item rate: %.1f%% (%s)\n", 100*ratio, verdict)
	return nil
}
