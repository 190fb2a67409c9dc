package e2e

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// concurrencyItems are the items of World the racing writers share.
var concurrencyItems = []string{"MLA1100", "MLA1101", "MLA1102", "MLA1103"}

// racingOrder is order id of seller 123: its first item rotates over the
// four shared items (so that two writers' orders lock them in different
// orders), every third has a claim, all select MLA15197910, which every
// item fits.
func racingOrder(id int) map[string]any {
	return map[string]any{"id": id, "site_id": "MLA", "seller_id": 123, "buyer_id": 456, "status": "paid",
		"items":     []map[string]any{{"item_id": concurrencyItems[(id*7)%4], "quantity": 1, "unit_price": 100}},
		"has_claim": id%3 == 0, "compatibility_selection": map[string]any{"product_id": "MLA15197910", "label_values": []any{}}}
}

// TestConcurrentWritersGetNoServerError races, on each backend, 8 fixtures
// loads of overlapping order sets, 8 writers of single orders (each taking
// a compatibility snapshot, a third with a claim) and 4 writers creating
// and deleting compatibilities of the same items: no answer is a 5xx (a
// lost race is run again by the transaction, deadlock_retries in /metrics),
// and afterwards every order is stored once with one snapshot that
// confirms its item's compatibility, and the claims counts are exact.
func TestConcurrentWritersGetNoServerError(t *testing.T) {
	t.Parallel() // mostly waits on locks
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.NewSample(t, be)
		// On SQLite the writers queue for its one connection: under -race,
		// beside the other tests of a loaded two-core machine, a request
		// waited over 30 s there. How long is not what this test checks.
		a.Timeout = 3 * time.Minute
		racers := []string{"MLA15197913", "MLA15197914", "MLA15197915", "MLA15197916"}
		var products []map[string]any
		for _, p := range append([]string{"MLA15197910"}, racers...) {
			products = append(products, map[string]any{"id": p, "site_id": "MLA", "domain_id": "MLA-CARS_AND_VANS", "name": "Ford Ka " + p, "parent_id": "MLA15197901", "attributes": []any{}})
		}
		// Shock absorbers fit cars.
		a.MustLoad(map[string]any{"products": products, "domains": []map[string]any{{"id": "MLA-CAR_SHOCK_ABSORBERS", "site_id": "MLA", "main": false,
			"compatibilities": []any{map[string]any{"compatible_domain_id": "MLA-CARS_AND_VANS", "type": "EXTENSION", "required": true,
				"restrictions": []any{}, "categories": []any{map[string]any{"id": "MLA1747", "required": true, "note_status": "ENABLED",
					"restrictions_status": "ENABLED", "universal_status": "ENABLED"}}, "restriction_values": []any{}}}}}})
		seller := apptest.Bearer("APP_USR-seller")
		for _, it := range concurrencyItems {
			a.Do("POST", "/items/"+it+"/compatibilities", map[string]any{"products": []any{map[string]any{"id": "MLA15197910"}}}, seller...).OK(t, 200)
		}
		var (
			wg      sync.WaitGroup
			calls   atomic.Int64
			mu      sync.Mutex
			refused []string
		)
		check := func(r apptest.Response, want int) {
			calls.Add(1)
			if r.Status != want {
				mu.Lock()
				refused = append(refused, fmt.Sprintf("%s: %d %.300s", r.Request, r.Status, r.Body))
				mu.Unlock()
			}
		}
		want := map[int]bool{}
		for k := range 8 { // loaders: orders 1-16, 9-24, ..., 57-72
			var orders []map[string]any
			for id := 1 + k*8; id <= 16+k*8; id++ {
				orders = append(orders, racingOrder(id))
				want[id] = true
			}
			wg.Add(1)
			go func() { defer wg.Done(); check(a.Sandbox("POST", "/fixtures", map[string]any{"orders": orders}), 200) }()
		}
		for w := range 8 { // writers: orders 1000-1039, one at a time
			for j := range 5 {
				want[1000+w*5+j] = true
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 5 {
					id := 1000 + w*5 + j
					check(a.Sandbox("PUT", fmt.Sprint("/orders/", id), racingOrder(id)), 200)
				}
			}()
		}
		stop := make(chan struct{})
		var racing sync.WaitGroup
		for i, p := range racers { // compatibility writes on the same items
			racing.Add(1)
			go func() {
				defer racing.Done()
				item := concurrencyItems[i]
				for {
					select {
					case <-stop:
						return
					default:
					}
					check(a.Do("POST", "/items/"+item+"/compatibilities", map[string]any{"products": []any{map[string]any{"id": p}}}, seller...), 200)
					var l struct {
						Products []struct {
							ID        string `json:"id"`
							ProductID string `json:"catalog_product_id"`
						} `json:"products"`
					}
					r := a.Do("GET", "/items/"+item+"/compatibilities", nil, seller...)
					check(r, 200)
					r.JSON(t, &l)
					for _, c := range l.Products {
						if c.ProductID == p {
							check(a.Do("DELETE", "/items/"+item+"/compatibilities/"+c.ID, nil, seller...), 200)
						}
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		racing.Wait()
		for _, r := range refused {
			t.Error(r)
		}
		checkRacedOrders(t, a, want)
		t.Logf("%s: %d answers, %s", be.Name, calls.Load(), retriesOf(t, a))
	})
}

// checkRacedOrders holds what the racing writers left: each order once, with
// one snapshot of its first item confirming that item's compatibility with
// MLA15197910, and the claims of each item counted exactly.
func checkRacedOrders(t *testing.T, a *apptest.App, want map[int]bool) {
	t.Helper()
	ctx := context.Background()
	var orders, snaps, confirmed int
	db := a.Deps.DB
	if err := db.NewRaw("SELECT count(*) FROM orders").Scan(ctx, &orders); err != nil {
		t.Fatal(err)
	}
	if err := db.NewRaw("SELECT count(*) FROM compat_snapshots").Scan(ctx, &snaps); err != nil {
		t.Fatal(err)
	}
	err := db.NewRaw(`SELECT count(*) FROM compat_snapshots s JOIN compatibilities c ON c.id = s.compatibility_id
		WHERE s.status = 'CONFIRMED' AND c.item_id = s.item_id AND c.product_id = 'MLA15197910' AND NOT s.compatibility_deleted`).Scan(ctx, &confirmed)
	if err != nil {
		t.Fatal(err)
	}
	if orders != len(want) || snaps != len(want) || confirmed != len(want) {
		t.Errorf("%d orders, %d snapshots, %d confirming their item's compatibility; want %d of each", orders, snaps, confirmed, len(want))
	}
	claims := map[string]int{}
	for id := range want {
		if o := racingOrder(id); o["has_claim"] == true {
			claims[o["items"].([]map[string]any)[0]["item_id"].(string)]++
		}
	}
	var sum []struct {
		ItemID string `json:"item_id"`
		N      int    `json:"compatibilities_count"`
		Claims int    `json:"compatibilities_claims_count"`
	}
	a.Do("POST", "/items/compatibilities_summary", map[string]any{"items": concurrencyItems}, apptest.Bearer("APP_USR-seller")...).JSON(t, &sum)
	if len(sum) != len(concurrencyItems) {
		t.Fatalf("summary of %d items: %+v", len(concurrencyItems), sum)
	}
	for _, s := range sum {
		if s.N != 1 || s.Claims != claims[s.ItemID] {
			t.Errorf("%s: %d compatibilities, %d claims; want 1 and %d", s.ItemID, s.N, s.Claims, claims[s.ItemID])
		}
	}
}

// retriesOf is the transactions /metrics says were run again, by reason.
func retriesOf(t *testing.T, a *apptest.App) string {
	r := a.Do("GET", "/metrics", nil)
	m := regexp.MustCompile(`feria_db_tx_retries_total\{reason="(\w+)"\} (\d+)`).FindAllStringSubmatch(string(r.Body), -1)
	out := "transactions run again (all tests of the process):"
	for _, x := range m {
		out += " " + x[1] + "=" + x[2]
	}
	return out
}
