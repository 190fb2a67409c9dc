// Command controls is the load run of the sandbox's test controls: what
// the journal and the guard (fault rules and rate limits) cost
// on a cheap public route. It wires feria four times on one PostgreSQL
// schema and one Redis (controls off, journal only, guard only, both),
// serves each on a real HTTP listener on 127.0.0.1, and drives the same
// route through each with concurrent keep-alive clients, in interleaved
// rounds so that a busy machine weighs on every configuration alike. It
// reports requests/s, p50 and p99 of each, the cost of the controls as the
// share of the route's rate they take, and a last scenario where a rate
// limit matches every request (one GCRA script each). Run it with
// deploy/scripts/bench-controls.sh.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"sort"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/app"
	"github.com/feria/feria/test/load/loadrun"
)

func main() {
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (a schema of its own is created and dropped)")
	redisURL := flag.String("redis", "redis://127.0.0.1:6379/0", "Redis URL (only the controls' keys, feria:control:*, are written and deleted)")
	duration := flag.Duration("duration", 10*time.Second, "length of each configuration's share of the run")
	rounds := flag.Int("rounds", 5, "rounds the configurations take turns in")
	conc := flag.Int("concurrency", 8, "concurrent clients")
	flag.Parse()
	if err := run(*dbURL, *redisURL, *duration, *rounds, *conc); err != nil {
		log.Fatal(err)
	}
}

// route is the cheap public route measured: the public read of one item
// (no token), one indexed read of the database.
const route = "/items/MLA1100"

type config struct {
	name      string
	noJournal bool
	noGuard   bool
	srv       *loadrun.Server
	results   []loadrun.Result
}

func run(dbURL, redisURL string, duration time.Duration, rounds, conc int) error {
	ctx := context.Background()
	db, drop, err := loadrun.Schema(ctx, dbURL, "load_controls")
	if err != nil {
		return err
	}
	defer drop()
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return err
	}
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	forget := func() error { // the controls' keys, and nothing else of this Redis
		rules := controlredis.NewRules(rdb, controlredis.DefaultPrefix)
		defer rules.Close()
		for _, r := range []interface{ Reset(context.Context) error }{rules,
			controlredis.NewLimiter(rdb, controlredis.DefaultPrefix)} {
			if err := r.Reset(ctx); err != nil {
				return err
			}
		}
		return controlredis.NewJournal(rdb, controlredis.DefaultPrefix).Reset(ctx, time.Now())
	}
	if err := forget(); err != nil {
		return err
	}
	defer forget() //nolint:errcheck // best effort

	configs := []*config{
		{name: "controls off", noJournal: true, noGuard: true},
		{name: "journal only", noGuard: true},
		{name: "guard only (faults, limits)", noJournal: true},
		{name: "journal + guard (all three)"},
	}
	for _, c := range configs {
		c.srv, err = loadrun.ServeConfigured(db, rdb, conc, func(cfg *app.Config) { cfg.NoJournal, cfg.NoGuard = c.noJournal, c.noGuard })
		if err != nil {
			return err
		}
		defer c.srv.Close()
	}
	all := configs[3].srv
	world, _ := json.Marshal(map[string]any{
		"users": []map[string]any{{"id": 123, "nickname": "SELLER", "site_id": "MLA"}},
		"categories": []map[string]any{{"id": "MLA1747", "site_id": "MLA", "name": "Amortiguadores", "domain_id": "MLA-CAR_SHOCK_ABSORBERS",
			"compatibilities": nil}},
		"items": []map[string]any{{"id": "MLA1100", "site_id": "MLA", "seller_id": 123, "title": "Amortiguador", "category_id": "MLA1747", "price": 15000}},
	})
	if _, err := all.Call("POST", "/sandbox/fixtures", string(world)); err != nil {
		return err
	}
	for _, c := range configs { // every configuration answers before the load
		if _, err := c.srv.Call("GET", route, ""); err != nil {
			return err
		}
	}

	fmt.Printf("controls load run: GET %s (no token, no rule matching), %d concurrent clients, %d rounds of %s per configuration, HTTP on 127.0.0.1\n",
		route, conc, rounds, duration/time.Duration(rounds))
	for range rounds {
		for _, c := range configs {
			r, err := c.srv.Load(c.name, route, duration/time.Duration(rounds), conc)
			if err != nil {
				return err
			}
			c.results = append(c.results, r)
		}
	}
	fmt.Println(loadrun.Header() + "   cost")
	off := merge(configs[0].name, configs[0].results)
	for _, c := range configs {
		r := merge(c.name, c.results)
		fmt.Printf("%s %6.1f%%\n", r, 100*(1-r.PerSec/off.PerSec))
	}
	cost := 1 - merge("", configs[3].results).PerSec/off.PerSec
	verdict := "ok: at most 25%"
	if cost > 0.25 {
		verdict = "ABOVE the 25% the journal and the limiter may take"
	}
	fmt.Printf("journal + limiter with no rule matching take %.1f%% of the route's rate (%s)\n", 100*cost, verdict)

	// A limit that matches every request and never refuses: one GCRA
	// script per request on top.
	if _, err := all.Call("PUT", "/sandbox/rate_limits", `{"rules": [{"method": "GET", "path": "/items/*", "per_minute": 1000000}]}`); err != nil {
		return err
	}
	var limited, base []loadrun.Result
	for range rounds {
		for _, s := range []struct {
			c   *config
			out *[]loadrun.Result
		}{{configs[0], &base}, {configs[3], &limited}} {
			r, err := s.c.srv.Load(s.c.name, route, duration/time.Duration(rounds), conc)
			if err != nil {
				return err
			}
			*s.out = append(*s.out, r)
		}
	}
	b, l := merge("controls off", base), merge("all three, a limit matching (GCRA)", limited)
	fmt.Println(b)
	fmt.Printf("%s %6.1f%%\n", l, 100*(1-l.PerSec/b.PerSec))
	return nil
}

// merge sums the rounds of one configuration: requests over their time;
// p50 and p99 are the medians of the rounds'.
func merge(name string, rs []loadrun.Result) loadrun.Result {
	out := loadrun.Result{Name: name}
	var secs float64
	var p50, p99 []time.Duration
	for _, r := range rs {
		out.Requests += r.Requests
		secs += float64(r.Requests) / r.PerSec
		p50, p99 = append(p50, r.P50), append(p99, r.P99)
	}
	out.PerSec = float64(out.Requests) / secs
	median := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	out.P50, out.P99 = median(p50), median(p99)
	out.Name = strings.TrimSpace(out.Name)
	return out
}
