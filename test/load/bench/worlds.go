package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
)

// benchWorld is the world whose paths are measured beside the default
// world's: it holds the same seed, with the run's sandbox key as its own.
const benchWorld = "bench"

// worldCallers create and delete the worlds at once: a team's CI starts
// a few jobs together, not a thousand.
const worldCallers = 2

// worldCost is what one world holds in each backend.
type worldCost struct {
	tables              int
	pgBytes             int64 // pg_total_relation_size over the world's schema
	redisKeys           int
	redisBytes          int64 // MEMORY USAGE over the world's prefixes
	objects             int
	objBytes            int64
	createdIn, seededIn time.Duration
}

// worldsResult is the worlds' lifecycle: n created on the run's backends,
// a sample deleted, what one costs empty and with the bench world's seed.
type worldsResult struct {
	n, listed           int
	packs               int             // the bench world's
	create, remove      []time.Duration // sorted
	createTotal         time.Duration
	removeTotal         time.Duration
	dbGrowth, rdbGrowth int64 // the database's and Redis's growth over the n creations
	removedGone         bool  // the deleted worlds' schemas are gone
	empty, seeded       worldCost
}

// worldBackends are the run's storage, where a world's cost is read.
type worldBackends struct {
	db     *bun.DB // the run's schema
	rdb    *redis.Client
	s3     *minio.Client
	bucket string
}

// worldsLifecycle creates o.worlds worlds through base's sandbox, reads
// what an empty one costs, deletes a sample, then creates the bench world
// and seeds it as w (its products in bulk into its own schema) and reads
// its cost.
func worldsLifecycle(ctx context.Context, o options, base string, b worldBackends, w world) (*worldsResult, error) {
	res := &worldsResult{n: o.worlds}
	dbBefore, rdbBefore := dbSize(ctx, b.db), redisMemory(ctx, b.rdb)
	names := make([]string, o.worlds)
	for i := range names {
		names[i] = fmt.Sprintf("w-%04d", i)
	}
	fmt.Printf("worlds: creating %d (%d callers)...\n", len(names), worldCallers)
	var err error
	if res.create, res.createTotal, err = timeEach(names, func(n string) error {
		return putWorld(base, n, `{}`)
	}); err != nil {
		return nil, fmt.Errorf("creating worlds: %w", err)
	}
	res.dbGrowth, res.rdbGrowth = dbSize(ctx, b.db)-dbBefore, redisMemory(ctx, b.rdb)-rdbBefore
	if res.listed, err = listedWorlds(base); err != nil {
		return nil, err
	}
	if res.empty, err = costOf(ctx, b, names[0]); err != nil {
		return nil, err
	}
	sample := names[len(names)-min(len(names), pick(o.quick, 10, 100)):]
	fmt.Printf("worlds: deleting %d...\n", len(sample))
	if res.remove, res.removeTotal, err = timeEach(sample, func(n string) error {
		_, err := doWith(seedClient, "DELETE", base+"/sandbox/worlds/"+n, nil, 204, "X-Sandbox-Key", sandboxKey)
		return err
	}); err != nil {
		return nil, fmt.Errorf("deleting worlds: %w", err)
	}
	res.removedGone = schemasGone(ctx, b.db, sample)
	// Quick: the world's packs are fewer (no path in a world uploads).
	w.packs = pick(o.quick, 200, w.packs)
	res.packs = w.packs
	if res.seeded, err = seedWorld(ctx, base, b, w); err != nil {
		return nil, err
	}
	return res, nil
}

// seedWorld creates the bench world with the run's sandbox key and loads
// the default world's seed into it.
func seedWorld(ctx context.Context, base string, b worldBackends, w world) (worldCost, error) {
	t0 := time.Now()
	if err := putWorld(base, benchWorld, `{"sandbox_key":"`+sandboxKey+`"}`); err != nil {
		return worldCost{}, fmt.Errorf("bench world: %w", err)
	}
	created := time.Since(t0)
	schema, err := sqlstore.Schema(ctx, b.db, benchWorld)
	if err != nil {
		return worldCost{}, err
	}
	if w.bulk != nil {
		if w.bulk, err = sqlstore.OpenSchema(ctx, b.db, schema, 2); err != nil {
			return worldCost{}, err
		}
		defer w.bulk.Close()
	}
	fmt.Printf("worlds: seeding world %s as the default world (%d packs)...\n", benchWorld, w.packs)
	t0 = time.Now()
	wbase := base + "/worlds/" + benchWorld
	if _, err := w.seed(wbase); err != nil {
		return worldCost{}, fmt.Errorf("world %s: %w", benchWorld, err)
	}
	// Its files: the download path's documents, as in the default world.
	if err := newPaths(wbase, w.packs, "w").prepareDownloads(); err != nil {
		return worldCost{}, fmt.Errorf("world %s: %w", benchWorld, err)
	}
	seeded := time.Since(t0)
	if _, err := b.db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		return worldCost{}, err
	}
	c, err := costOf(ctx, b, benchWorld)
	c.createdIn, c.seededIn = created, seeded
	return c, err
}

// putWorld creates world name (201).
func putWorld(base, name, body string) error {
	_, err := doWith(seedClient, "PUT", base+"/sandbox/worlds/"+name, []byte(body), 201, "Content-Type", "application/json", "X-Sandbox-Key", sandboxKey)
	return err
}

// timeEach calls f with each name from worldCallers goroutines and
// returns each call's time, sorted, and the time of all.
func timeEach(names []string, f func(string) error) ([]time.Duration, time.Duration, error) {
	lats := make([]time.Duration, len(names))
	errs := make([]error, worldCallers)
	var wg sync.WaitGroup
	t0 := time.Now()
	for g := range worldCallers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < len(names) && errs[g] == nil; i += worldCallers {
				s := time.Now()
				errs[g] = f(names[i])
				lats[i] = time.Since(s)
			}
		}()
	}
	wg.Wait()
	total := time.Since(t0)
	for _, err := range errs {
		if err != nil {
			return nil, 0, err
		}
	}
	slices.Sort(lats)
	return lats, total, nil
}

// listedWorlds is the total GET /sandbox/worlds answers.
func listedWorlds(base string) (int, error) {
	b, err := doWith(seedClient, "GET", base+"/sandbox/worlds?limit=1", nil, 200, "X-Sandbox-Key", sandboxKey)
	if err != nil {
		return 0, err
	}
	var v struct {
		Paging struct {
			Total int `json:"total"`
		} `json:"paging"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return 0, fmt.Errorf("GET /sandbox/worlds: %w", err)
	}
	return v.Paging.Total, nil
}

// costOf reads what world name holds: its schema's tables, its Redis
// keys, its objects.
func costOf(ctx context.Context, b worldBackends, name string) (worldCost, error) {
	var c worldCost
	schema, err := sqlstore.Schema(ctx, b.db, name)
	if err != nil {
		return c, err
	}
	if err := b.db.NewRaw(`SELECT count(*), coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'm', 'p')`, schema).
		Scan(ctx, &c.tables, &c.pgBytes); err != nil {
		return c, fmt.Errorf("world %s's tables: %w", name, err)
	}
	for _, prefix := range []string{"feria:world:" + name + ":", "rate:feria:world:" + name + ":"} {
		iter := b.rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			c.redisKeys++
			n, _ := b.rdb.MemoryUsage(ctx, iter.Val(), 0).Result()
			c.redisBytes += n
		}
		if err := iter.Err(); err != nil {
			return c, fmt.Errorf("world %s's keys: %w", name, err)
		}
	}
	for obj := range b.s3.ListObjects(ctx, b.bucket, minio.ListObjectsOptions{Prefix: "worlds/" + name + "/", Recursive: true}) {
		if obj.Err != nil {
			return c, fmt.Errorf("world %s's objects: %w", name, obj.Err)
		}
		c.objects++
		c.objBytes += obj.Size
	}
	return c, nil
}

// schemasGone: no schema of the names is left.
func schemasGone(ctx context.Context, db *bun.DB, names []string) bool {
	for _, n := range names {
		schema, err := sqlstore.Schema(ctx, db, n)
		if err != nil {
			return false
		}
		var k int
		if err := db.NewRaw("SELECT count(*) FROM pg_namespace WHERE nspname = ?", schema).Scan(ctx, &k); err != nil || k != 0 {
			return false
		}
	}
	return true
}

// dropWorldSchemas removes the schemas of the run's worlds (they are
// beside the run's schema, not in it).
func dropWorldSchemas(db *bun.DB) {
	ctx := context.Background()
	var schemas []string
	if err := db.NewRaw(`SELECT nspname FROM pg_namespace WHERE starts_with(nspname, current_schema() || '_world_')`).Scan(ctx, &schemas); err != nil {
		return
	}
	for _, s := range schemas {
		db.ExecContext(ctx, "DROP SCHEMA "+s+" CASCADE") //nolint:errcheck // best effort
	}
}

func dbSize(ctx context.Context, db *bun.DB) int64 {
	var n int64
	db.NewRaw("SELECT pg_database_size(current_database())").Scan(ctx, &n) //nolint:errcheck // 0: unknown
	return n
}

// redisMemory is the run's redis-server's used_memory.
func redisMemory(ctx context.Context, rdb *redis.Client) int64 {
	info, _ := rdb.Info(ctx, "memory").Result()
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// print writes the worlds' figures as plain text.
func (wr *worldsResult) print(w io.Writer) {
	fmt.Fprintf(w, "\nworlds: %d created (GET /sandbox/worlds lists %d) in %s, %d callers: p50 %s, p99 %s each\n", wr.n, wr.listed,
		wr.createTotal.Round(time.Millisecond), worldCallers, ms(pct(wr.create, 0.50)), ms(pct(wr.create, 0.99)))
	fmt.Fprintf(w, "worlds: %d deleted in %s: p50 %s, p99 %s each; their schemas gone: %s\n", len(wr.remove), wr.removeTotal.Round(time.Millisecond),
		ms(pct(wr.remove, 0.50)), ms(pct(wr.remove, 0.99)), strings.Trim(mark(wr.removedGone), "*"))
	fmt.Fprintf(w, "worlds: the %d creations grew the database by %s (%s a world, the catalog included) and Redis's used_memory by %s\n",
		wr.n, kb(wr.dbGrowth), kb(wr.dbGrowth/int64(max(wr.n, 1))), kb(wr.rdbGrowth))
	for _, c := range []struct {
		what string
		c    worldCost
	}{{"empty", wr.empty}, {"with the bench seed", wr.seeded}} {
		fmt.Fprintf(w, "world %-20s PostgreSQL %d tables %s; Redis %d keys %s; object store %d objects %s\n", c.what, c.c.tables, kb(c.c.pgBytes),
			c.c.redisKeys, kb(c.c.redisBytes), c.c.objects, kb(c.c.objBytes))
	}
	fmt.Fprintf(w, "world %s: created in %s, seeded in %s\n", benchWorld, ms(wr.seeded.createdIn), wr.seeded.seededIn.Round(time.Millisecond))
}

func kb(n int64) string {
	if n >= 10<<20 || n <= -10<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/1024)
}

// worldRatio is a row's rate in a world over the same path at the root of
// the same instance, and whether both were measured validly.
func (rw *row) worldRatio() (ratio float64, valid bool) {
	in, root := rw.sides[inWorld], rw.sides[sandboxed]
	if in == nil || root == nil || root.m.rate() == 0 {
		return 0, false
	}
	return in.m.rate() / root.m.rate(), in.valid() && root.valid()
}

// worldRows are the rows measured in a world.
func (r *report) worldRows() []*row {
	return slices.DeleteFunc(slices.Clone(r.rows), func(rw *row) bool { return rw.of != nil || rw.sides[inWorld] == nil })
}

// printWorlds writes the worlds' figures and the in-world ratios.
func (r *report) printWorlds(w io.Writer) {
	if r.worlds == nil {
		return
	}
	r.worlds.print(w)
	fmt.Fprintf(w, "\n%-44s %9s %9s %6s %5s %4s %9s %9s %5s\n", "path in world "+benchWorld+" beside the root", "root", "world", "ratio", "goal", "met", "p50", "p99", "valid")
	for _, rw := range r.worldRows() {
		ratio, valid := rw.worldRatio()
		p50, p99 := rw.sides[inWorld].m.quantiles()
		fmt.Fprintf(w, "%-44s %9s %9s %6.3f %5.2f %4s %9s %9s %5s\n", strings.ReplaceAll(rw.name, "`", ""), rate(rw.sides[sandboxed].m.rate()*rw.perOp),
			rate(rw.sides[inWorld].m.rate()*rw.perOp), ratio, worldGoal, strings.Trim(mark(ratio >= worldGoal), "*"), ms(p50), ms(p99), strings.Trim(mark(valid), "*"))
	}
}

// markdownWorlds writes the same for docs/performance.md, in two
// paragraphs (the page keeps to its length).
func (r *report) markdownWorlds(w io.Writer) {
	wr := r.worlds
	if wr == nil {
		return
	}
	cost := func(c worldCost) string {
		return fmt.Sprintf("PostgreSQL %s in %d tables, Redis %d keys of %s, %d objects of %s", kb(c.pgBytes), c.tables, c.redisKeys, kb(c.redisBytes), c.objects, kb(c.objBytes))
	}
	fmt.Fprintf(w, "**Worlds**: %d created through `PUT /sandbox/worlds/{name}` on the run's PostgreSQL, Redis and MinIO (%d callers): %s / %s each (p50 / p99; all in %s, %d listed); "+
		"%d deleted: %s / %s each (schemas gone: %s). The creations grew the database by %s (%s a world, its catalog rows included). One world empty: %s; with the seed above (%d packs): %s.\n\n",
		wr.n, worldCallers, ms(pct(wr.create, 0.50)), ms(pct(wr.create, 0.99)), wr.createTotal.Round(time.Millisecond), wr.listed,
		len(wr.remove), ms(pct(wr.remove, 0.50)), ms(pct(wr.remove, 0.99)), mark(wr.removedGone),
		kb(wr.dbGrowth), kb(wr.dbGrowth/int64(max(wr.n, 1))), cost(wr.empty), wr.packs, cost(wr.seeded))
	var parts []string
	for _, rw := range r.worldRows() {
		ratio, valid := rw.worldRatio()
		parts = append(parts, fmt.Sprintf("%s %s %s beside %s at the root, **%.3f** (%s; valid %s)", rw.name, rate(rw.sides[inWorld].m.rate()*rw.perOp), rw.unit,
			rate(rw.sides[sandboxed].m.rate()*rw.perOp), ratio, mark(ratio >= worldGoal), mark(valid)))
	}
	fmt.Fprintf(w, "**In world `%s`** (same instance, same rounds; goal ≥ %.2f of the root): %s.\n\n", benchWorld, worldGoal, strings.Join(parts, "; "))
}
