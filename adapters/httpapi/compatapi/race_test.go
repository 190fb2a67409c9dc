package compatapi_test

import (
	"sync"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// concurrently sends the requests at once and returns their answers.
func concurrently(a *apptest.App, reqs ...func() apptest.Response) []apptest.Response {
	out := make([]apptest.Response, len(reqs))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = r()
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// Concurrent creates of one vehicle both read "absent": the second must not
// answer 500 on the unique index. Every request succeeds and the vehicle is
// counted once.
func TestConcurrentCreatesOfOneVehicle(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		for round := 0; round < 3; round++ {
			var reqs []func() apptest.Response
			for i := 0; i < 6; i++ {
				reqs = append(reqs, func() apptest.Response {
					return a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}, obj{"id": "MLA103"}}}, apptest.Bearer(seller)...)
				})
			}
			created := 0
			for _, r := range concurrently(a, reqs...) {
				r.HasStatus(t, 200)
				var v struct {
					N int `json:"created_compatibilities_count"`
				}
				r.JSON(t, &v)
				created += v.N
			}
			if created != 2 {
				t.Fatalf("round %d: the answers count %d created compatibilities; want 2", round, created)
			}
			consistent(t, a, "MLA1100", 2, false)
			a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
		}
	})
}

// "universal" and "create" at once must not both pass the check of the
// other's absence and leave a universal item with vehicles. The item's
// state is locked for the check and the write: one of the two wins, the
// other is refused, in every round.
func TestUniversalAndCreateAtOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		t.Parallel()
		a := newApp(t, be)
		for round := 0; round < 8; round++ {
			rs := concurrently(a,
				func() apptest.Response {
					return a.Do("POST", items, obj{"universal": true}, apptest.Bearer(seller)...)
				},
				func() apptest.Response {
					return a.Do("POST", items, obj{"products": []any{obj{"id": "MLA101"}}}, apptest.Bearer(seller)...)
				})
			ok := 0
			for _, r := range rs {
				switch {
				case r.Status < 300:
					ok++
				case r.Status >= 500:
					t.Fatalf("round %d: %s: %d %s", round, r.Request, r.Status, r.Body)
				}
			}
			if ok != 1 {
				t.Fatalf("round %d: %d of universal and create succeeded at once; want exactly 1: %s / %s",
					round, ok, rs[0].Body, rs[1].Body)
			}
			l := a.Do("GET", items, nil, apptest.Bearer(seller)...).OK(t, 200)
			_, universal := l.(map[string]any)["universal"]
			n := len(get(l, "products").([]any))
			if universal && n > 0 {
				t.Fatalf("round %d: universal with %d vehicles", round, n)
			}
			a.Do("DELETE", items, nil, apptest.Bearer(seller)...).OK(t, 200)
			a.Do("PUT", items, obj{"universal": false}, apptest.Bearer(seller)...)
		}
	})
}
