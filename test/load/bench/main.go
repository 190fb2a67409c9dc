// Command bench is `make bench`: feria's hot paths measured beside the
// minimal program that does the same work on the same backends (the
// "anchor"), in one run, so that the ratio of the two says how much of the
// machine feria leaves on the table whatever the machine's mood.
//
// It builds cmd/feria and runs it as two child `feria serve` processes on
// a PostgreSQL schema of its own, a redis-server of its own (a free port of
// 127.0.0.1) and a bucket of its own on the MinIO given: the API as
// deployed (no sandbox) and the API with its sandbox and controls on, as
// integrators run it. It loads a world through the sandbox (products and
// family heads, 200 compatibilities of an item, a year of contact events
// for 50 items, orders with packs); then in interleaved rounds runs each
// path on both instances and its anchor right after, the load driven by
// wrk (one thread, pinned to one core with taskset) to saturation:
//
//	GET /health/live                         fiber answering ok
//	GET /items/{id}                          fiber + one bun primary-key select
//	contacts 1-year total of one item        fiber + one HMGET of 30 fields
//	contacts 30-day window of 50 ids         fiber + 50 HMGETs of 30 fields pipelined
//	contact event ingest, batches of 100     pipelined INCR ÷ 9 ops per event
//	GET /items/{id}/compatibilities (200)    fiber + one bun primary-key select
//	family count                             fiber + one bun primary-key select
//	fiscal upload / download, 100 KiB        raw minio-go PUT / GET
//
// (the anchors with no HTTP are called from this process), and, for the
// paths whose work is more than their raw anchor's, the same rounds beside
// a second anchor, their floor: the ingest beside the Redis commands its
// script runs, pipelined without the script; the upload and the download
// beside the least HTTP service in front of MinIO (fiber taking the
// multipart file and PUTting it; a GET copied to the answer), and beside
// that service doing also the path's database work through feria's own
// stores (the token's and the pack's reads; for the upload, its row and
// its notice written in one transaction): what is left between the path
// and that floor is feria's app itself.
//
// Before and after every measure it samples the CPU of every process
// (/proc/<pid>/stat: both feria instances, the anchor service, the run's
// PostgreSQL backends and PostgreSQL's own processes, redis-server, MinIO,
// and the client: wrk's own rusage, or this process's), so that each row
// shows the CPU per request of each, and is marked invalid when its client
// spent more per request than the server it measured (the client, not the
// server, was then the limit). Then each path at half its saturated rate
// from vegeta (an open loop: p99), the RSS of the feria process (idle, and
// its peak under load), jobs/s of one `feria worker` process draining the
// jobs the uploads made, and the embedded mode (`feria all`: SQLite,
// in-process Redis, files) under the same load. Before the rounds it
// creates -worlds worlds through the sandbox (their creation and deletion
// times, what one costs in each backend) and seeds one as the default
// world: the paths marked inWorld also run there, beside the same path at
// the root. It prints one table, and with -md writes it as markdown.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/feria/feria/test/load/loadrun"
)

type options struct {
	quick                bool
	db                   string
	s3, s3Key, s3Secret  string
	rounds               int
	duration, half, warm time.Duration
	conc                 int
	products, days       int
	md, bin, doc         string
	embedded             bool
	only                 string
	worlds               int
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == anchorsCommand {
		if err := serveAnchors(); err != nil {
			log.Fatal(err)
		}
		return
	}
	var o options
	flag.BoolVar(&o.quick, "quick", false, "make bench-quick: 2 short rounds and a smaller world (under 3 minutes)")
	flag.StringVar(&o.db, "db", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL URL (a schema of the run's own is created and dropped)")
	flag.StringVar(&o.s3, "s3", "127.0.0.1:9000", "MinIO host:port (a bucket of the run's own is created and removed)")
	flag.StringVar(&o.s3Key, "s3-access-key", "feria-test", "MinIO access key")
	flag.StringVar(&o.s3Secret, "s3-secret-key", "feria-test-secret", "MinIO secret key")
	flag.IntVar(&o.rounds, "rounds", 0, "interleaved rounds (default 3, quick 2)")
	flag.DurationVar(&o.duration, "duration", 0, "each path's and each anchor's share of a round (default 4s, quick 1s)")
	flag.IntVar(&o.conc, "concurrency", 32, "wrk's connections (closed loop), or this process's callers for the anchors with no HTTP")
	flag.IntVar(&o.products, "products", 0, "vehicle products of the family count (default 100000, quick 5000)")
	flag.StringVar(&o.md, "md", "", "also write the results as markdown to this file")
	flag.StringVar(&o.doc, "doc", "", "also put the markdown between the bench markers of this file (docs/performance.md)")
	flag.StringVar(&o.bin, "bin", "", "the feria binary (built into a temporary directory when empty)")
	flag.BoolVar(&o.embedded, "embedded", true, "also measure the embedded mode's memory under the same load")
	flag.StringVar(&o.only, "only", "", "measure only the paths whose name contains this text (e.g. compatibilities), to profile one")
	flag.IntVar(&o.worlds, "worlds", -1, "worlds created on the run's backends before the measure (default 1000, quick 20; 0: no worlds, no rows in a world)")
	flag.Parse()
	if o.worlds < 0 {
		o.worlds = pick(o.quick, 20, 1000)
	}
	if o.rounds == 0 {
		o.rounds = pick(o.quick, 2, 3)
	}
	if o.duration == 0 {
		o.duration = pick(o.quick, time.Second, 4*time.Second)
	}
	// A full run's p99 at half load is over 10 s of each path: at the
	// upload's half rate (about 120/s) 4 s gave 480 samples, a p99 that was
	// the fifth-slowest request, which one stall of the machine decided.
	o.half = max(o.duration, pick(o.quick, 0, 10*time.Second))
	// Quick: each load is checked once, not warmed (wrk runs a second at
	// least).
	o.warm = pick(o.quick, 0, time.Second)
	if o.products == 0 {
		o.products = pick(o.quick, 5_000, 100_000)
	}
	o.days = pick(o.quick, 60, 366)
	go func() { // Ctrl-C: what the run started is stopped and removed
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fmt.Fprintln(os.Stderr, "interrupted: stopping the run's processes, dropping its schema and bucket")
		interrupted()
		os.Exit(1)
	}()
	if err := run(o); err != nil {
		log.Fatal(err)
	}
}

var (
	cleanMu  sync.Mutex
	cleanups []*func()
)

// cleanup registers f to run on an interrupt and returns what runs it
// now, once (for a defer).
func cleanup(f func()) func() {
	cleanMu.Lock()
	defer cleanMu.Unlock()
	var once sync.Once
	g := func() { once.Do(f) }
	cleanups = append(cleanups, &g)
	return g
}

// interrupted runs every registered cleanup, the latest first.
func interrupted() {
	cleanMu.Lock()
	fs := append([]*func(){}, cleanups...)
	cleanMu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		(*fs[i])()
	}
}

// packsOf is the packs of the world: each upload takes a fresh one, so
// there are enough for the saturated rounds and the run at half load of a
// machine several times faster than the one of docs/performance.md.
func packsOf(o options) int { return pick(o.quick, 4000, 25000) }

func pick[T any](quick bool, q, full T) T {
	if quick {
		return q
	}
	return full
}

// The two configurations every path is measured in: the API as
// docs/deploy.md runs it (no SANDBOX_KEY: no journal, no rules), and with
// its sandbox and its controls on, as integrators run it.
// A row marked inWorld is measured a third time, on the instance with the
// sandbox in a world of its own (/worlds/bench/...) holding the same seed:
// its rate beside the default world's is what serving a world costs.
const (
	deployed = iota
	sandboxed
	inWorld
	configs
)

var configNames = [configs]string{"as deployed", "with the sandbox", "in a world"}

// worldGoal is the rate a path keeps in a world, over the same path at
// the root of the same instance.
const worldGoal = 0.9

// row is one line of the table: a path of feria in both configurations
// and its anchor.
type row struct {
	name, anchorName string
	unit             string  // what the rate counts
	perOp            float64 // units per operation (events per ingest batch)
	goal             float64 // 0: no goal
	sandboxGoal      float64 // the goal with the sandbox on, when it differs
	// path is the row's requests to an instance (its base URL).
	path func(p *paths, base string) *request
	// sandboxOnly: a route of the sandbox's own (the ingest), measured on
	// the instance that serves it only.
	sandboxOnly bool
	inWorld     bool // also measured in a world
	conc        int  // connections, when not the run's
	// of is the row whose path a floor row shows beside another anchor:
	// the path is not run again, its samples of each round are reused.
	of        *row
	anchor    func(*anchors) load
	anchorKey string // rows sharing an anchor measure it once a round

	sides    [configs]*side // nil: not measured in that configuration
	anc      side
	embedded float64
}

// side is one series of a row: the path in one configuration, or the
// anchor.
type side struct {
	m       merged
	last    sample             // the latest round's (a floor row reuses it)
	lastCPU map[string]float64 // what each process spent in that round
	cpu     map[string]float64 // summed over the rounds
	ops     int                // operations over the rounds
	server  string             // the process that answers (cpuNames)
	half    sample             // at half load
	halfCPU map[string]float64 // what each process spent at half load (HTTP only)
	// halfStolen is the CPU time the host took from the machine during
	// the half load (stolen): a stall no process on it could cause.
	halfStolen time.Duration
	dropped    int
}

func (s *side) add(smp sample, cpu map[string]float64) {
	s.m.add(smp)
	s.last, s.lastCPU = smp, cpu
	s.ops += smp.ops
	if s.cpu == nil {
		s.cpu = map[string]float64{}
	}
	for k, v := range cpu {
		s.cpu[k] += v
	}
}

// perOp is a process's CPU per operation (µs).
func (s *side) perOp(name string) float64 {
	if s.ops == 0 {
		return 0
	}
	return s.cpu[name] / float64(s.ops) * 1e6
}

// valid: the client spent less CPU per request than the server it
// measured, so it was not what limited the rate.
func (s *side) valid() bool { return s.ops > 0 && s.perOp(cpuClient) <= s.perOp(s.server) }

// halfPerOp is a process's CPU per request at half load (µs).
func (s *side) halfPerOp(name string) float64 {
	if len(s.half.lats) == 0 {
		return 0
	}
	return s.halfCPU[name] / float64(len(s.half.lats)) * 1e6
}

// halfValid: at half load, the open-loop client spent less CPU per
// request than the server it measured. A client held to one core that
// spends more falls behind its own schedule, and its lag counts in the
// latencies (each from its request's due instant): the tail is then the
// client's. A load with no HTTP client has nothing to compare.
func (s *side) halfValid() bool {
	return s.halfCPU == nil || s.halfPerOp(cpuClient) <= s.halfPerOp(s.server)
}

// halfStolenNote says how much CPU time the host took meanwhile, if any.
func (s *side) halfStolenNote() string {
	if s.halfStolen <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s of CPU stolen by the host)", ms(s.halfStolen))
}

// halfClientNote is what the progress line adds on a client-bound tail.
func (s *side) halfClientNote() string {
	if s.halfValid() {
		return ""
	}
	return fmt.Sprintf(" (client-bound: vegeta %.0f µs a request, the server %.0f)", s.halfPerOp(cpuClient), s.halfPerOp(s.server))
}

func rows() []*row {
	pk := func(a *anchors) load { return a.pk() }
	rs := []*row{
		{name: "`GET /health/live`", anchorName: "fiber answering ok", unit: "req/s", perOp: 1, goal: 0.8,
			path: (*paths).health, anchor: func(a *anchors) load { return a.hello() }, anchorKey: "hello"},
		{name: "`GET /items/{id}`", anchorName: "fiber + one bun primary-key select", unit: "req/s", perOp: 1, goal: 0.5, sandboxGoal: 0.45, inWorld: true,
			path: (*paths).item, anchor: pk, anchorKey: "pk"},
		{name: "contacts 1-year total of one item", anchorName: "fiber + one HMGET of 30 fields", unit: "req/s", perOp: 1, goal: 0.5, inWorld: true,
			path: (*paths).yearTotal, anchor: func(a *anchors) load { return a.hmget() }, anchorKey: "hmget"},
		{name: "contacts 30-day window of 50 ids", anchorName: "fiber + 1,500 fields in one pipeline (50 HMGETs of 30)", unit: "req/s", perOp: 1, goal: 0.6, inWorld: true,
			path: (*paths).window, anchor: func(a *anchors) load { return a.fields1500() }, anchorKey: "fields1500"},
		{name: "contact event ingest, batches of 100", anchorName: fmt.Sprintf("pipelined INCR ÷ %d ops per event", opsPerEvent), unit: "events/s", perOp: 100, goal: 0.4,
			path: (*paths).ingest, sandboxOnly: true, anchor: func(a *anchors) load { return a.incr100() }, anchorKey: "incr"},
		{name: "`GET /items/{id}/compatibilities` (200 rows)", anchorName: "fiber + one bun primary-key select", unit: "req/s", perOp: 1, goal: 0.5, inWorld: true,
			path: (*paths).compatList, anchor: pk, anchorKey: "pk"},
		{name: "family count over the products", anchorName: "fiber + one bun primary-key select", unit: "req/s", perOp: 1, goal: 0.4, inWorld: true,
			path: (*paths).familyCount, anchor: pk, anchorKey: "pk"},
		{name: "fiscal upload, 100 KiB", anchorName: "raw minio-go PUT", unit: "obj/s", perOp: 1, goal: 0.7, conc: fiscalConc,
			path: (*paths).upload, anchor: func(a *anchors) load { return a.put() }, anchorKey: "put"},
		{name: "fiscal download, 100 KiB", anchorName: "raw minio-go GET", unit: "obj/s", perOp: 1, goal: 0.7, conc: fiscalConc,
			path: (*paths).download, anchor: func(a *anchors) load { return a.get() }, anchorKey: "get"},
	}
	// The floors: a path beside the least program that does its backend
	// work the way the path must, on the path's own rounds (no goal: they
	// show how much of the gap to the raw anchor any such program has on
	// this machine, and so how much is left in feria).
	of := func(name string) *row {
		for _, rw := range rs {
			if strings.HasPrefix(rw.name, name) {
				return rw
			}
		}
		panic("bench: no row " + name)
	}
	rs = append(rs,
		&row{name: "contact event ingest, beside its Redis commands", anchorName: fmt.Sprintf("the script's commands pipelined, no script (%d per event)", opsPerEvent), unit: "events/s", perOp: 100,
			of: of("contact event ingest"), anchor: func(a *anchors) load { return a.ingestCmds() }, anchorKey: "ingestcmds"},
		&row{name: "contact event ingest, beside its script", anchorName: "feria's Redis store counting the batch (its script, one call), no HTTP, no database", unit: "events/s", perOp: 100,
			of: of("contact event ingest"), anchor: func(a *anchors) load { return a.ingestScript() }, anchorKey: "ingestscript"},
		&row{name: "contact event ingest, beside its reads and script", anchorName: "the same behind fiber: the batch decoded and checked, its items' sellers read through feria's store", unit: "events/s", perOp: 100,
			of: of("contact event ingest"), anchor: func(a *anchors) load { return a.ingestHTTP() }, anchorKey: "ingesthttp"},
		&row{name: "fiscal upload, beside the least HTTP service", anchorName: "fiber taking the multipart file + raw minio-go PUT", unit: "obj/s", perOp: 1,
			of: of("fiscal upload"), anchor: func(a *anchors) load { return a.hopPut() }, anchorKey: "hopput"},
		&row{name: "fiscal upload, beside its reads and writes", anchorName: "the same, reading the token and the pack and writing the row and its notice through feria's stores", unit: "obj/s", perOp: 1,
			of: of("fiscal upload"), anchor: func(a *anchors) load { return a.writesPut() }, anchorKey: "writesput"},
		&row{name: "fiscal download, beside the least HTTP service", anchorName: "fiber + raw minio-go GET copied to the answer", unit: "obj/s", perOp: 1,
			of: of("fiscal download"), anchor: func(a *anchors) load { return a.hopGet() }, anchorKey: "hopget"},
		&row{name: "fiscal download, beside its reads", anchorName: "the same, reading the token and the pack through feria's stores first", unit: "obj/s", perOp: 1,
			of: of("fiscal download"), anchor: func(a *anchors) load { return a.readsGet() }, anchorKey: "readsget"},
	)
	for _, rw := range rs {
		if rw.of != nil {
			rw.sides, rw.conc, rw.sandboxOnly = rw.of.sides, rw.of.conc, rw.of.sandboxOnly
			continue
		}
		for c := range rw.sides {
			if c == sandboxed || c == deployed && !rw.sandboxOnly || c == inWorld && rw.inWorld {
				rw.sides[c] = &side{server: [configs]string{cpuFeria, cpuSandboxed, cpuSandboxed}[c]}
			}
		}
	}
	return rs
}

// fiscalConc is the connections of the fiscal paths and their anchors:
// MinIO takes each upload and download whole, and more at once only
// queue on its disk.
const fiscalConc = 8

// goalOf is the row's goal in configuration c (in a world: the sandbox's,
// beside the same anchor).
func (rw *row) goalOf(c int) float64 {
	if c >= sandboxed && rw.sandboxGoal > 0 {
		return rw.sandboxGoal
	}
	return rw.goal
}

// connsOf is the connections (or this process's callers) a row's loads
// run with.
func (rw *row) connsOf(o options) int {
	if rw.conc > 0 {
		return rw.conc
	}
	return o.conc
}

// firstSide is the configuration whose half rate a floor row sends at.
func (rw *row) firstSide() int {
	if rw.sides[deployed] != nil {
		return deployed
	}
	return sandboxed
}

// report is everything a run measured.
type report struct {
	o                   options
	start               time.Time
	commit, machine     string
	loadBefore, loadEnd string
	seed                map[string]time.Duration
	rows                []*row
	idle, idleSeeded    float64
	peak, sandboxPeak   float64
	worker              workerResult
	embIdle, embPeak    float64
	embErr              error
	embWorld            world
	relSizes            []relSize
	worlds              *worldsResult // nil: no worlds (-worlds 0)
}

func run(o options) error {
	ctx := context.Background()
	r := &report{o: o, start: time.Now().UTC(), rows: rows(), commit: gitCommit(), machine: machine(), loadBefore: loadavg()}
	if o.only != "" {
		// A floor row is kept with its path's row, which it follows.
		keep := map[*row]bool{}
		for _, rw := range r.rows {
			if strings.Contains(rw.name, o.only) || rw.of != nil && strings.Contains(rw.of.name, o.only) {
				keep[rw] = true
				if rw.of != nil {
					keep[rw.of] = true
				}
			}
		}
		r.rows = slices.DeleteFunc(r.rows, func(rw *row) bool { return !keep[rw] })
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		return fmt.Errorf("wrk drives the load (apt-get install wrk; deploy/scripts/bench.sh installs it): %w", err)
	}
	if o.bin == "" {
		dir, err := os.MkdirTemp("", "feria-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if o.bin, err = buildFeria(dir); err != nil {
			return err
		}
	}
	redisURL, stopRedis, err := loadrun.StartRedis()
	if err != nil {
		return err
	}
	defer cleanup(stopRedis)()
	rdb, err := openRedis(redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	db, schemaURL, drop, err := loadrun.SchemaURL(ctx, o.db, "bench")
	if err != nil {
		return fmt.Errorf("PostgreSQL at %s: %w", o.db, err)
	}
	defer cleanup(drop)()
	defer cleanup(func() { dropWorldSchemas(db) })()
	s3, err := minio.New(o.s3, &minio.Options{Creds: credentials.NewStaticV4(o.s3Key, o.s3Secret, "")})
	if err != nil {
		return err
	}
	bucket := fmt.Sprintf("feria-bench-%d", time.Now().UnixNano()%1_000_000_000)
	if err := s3.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		return fmt.Errorf("MinIO at %s (deploy/scripts/services.sh starts one): %w", o.s3, err)
	}
	defer cleanup(func() { removeBucket(s3, bucket) })()

	w := world{products: o.products, days: o.days, packs: packsOf(o), copies: pick(o.quick, 20, 100), listings: pick(o.quick, 300, 3000), bulk: db}
	dataDir, err := os.MkdirTemp("", "feria-bench-data")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dataDir)
	port, err := loadrun.FreePort()
	if err != nil {
		return err
	}
	addr := fmt.Sprint("127.0.0.1:", port)
	// The API as docs/deploy.md runs it (no SANDBOX_KEY: no journal, no
	// rules to read), and beside it on the same backends an instance
	// serving the sandbox, through which the world is loaded and events
	// are ingested.
	env := []string{"CALLBACK_ALLOW_PRIVATE=true", "HTTP_ADDR=" + addr, "DATA_DIR=" + dataDir, "DATABASE_URL=" + schemaURL + "&application_name=" + appName, "REDIS_URL=" + redisURL,
		"S3_ENDPOINT=" + o.s3, "S3_ACCESS_KEY=" + o.s3Key, "S3_SECRET_KEY=" + o.s3Secret, "S3_BUCKET=" + bucket,
		"LOG_LEVEL=warn", `RATE_LIMITS={"rules": []}`}
	sport, err := loadrun.FreePort()
	if err != nil {
		return err
	}
	saddr := fmt.Sprint("127.0.0.1:", sport)
	// MAX_WORLDS=0: no bound on the run's worlds. The bench world's load
	// is far beyond one team's: its requests a minute are counted (their
	// cost is measured) but never refused.
	senv := append(atAddr(env, saddr), "SANDBOX_KEY="+sandboxKey, "MAX_WORLDS=0", "WORLD_MAX_REQUESTS_PER_MINUTE=1000000000")
	sandboxed, err := startProc(o.bin, "serve", senv, saddr)
	if err != nil {
		return err
	}
	defer cleanup(sandboxed.stop)()
	serve, err := startProc(o.bin, "serve", env, addr)
	if err != nil {
		return err
	}
	defer cleanup(serve.stop)()
	time.Sleep(2 * time.Second)
	r.idle = serve.settledRSS(3 * time.Second)
	fmt.Printf("feria serve (pid %d) on %s: RSS idle %.1f MB; with the sandbox (pid %d) on %s\n", serve.cmd.Process.Pid, addr, r.idle,
		sandboxed.cmd.Process.Pid, saddr)

	fmt.Printf("seeding: %d products (+%d family heads), %d packs, %d days of contact events for %d items, 200 compatibilities...\n",
		w.products, w.products/perParent, w.packs, w.days, contactItems)
	if r.seed, err = w.seed(sandboxed.base); err != nil {
		return err
	}
	fmt.Printf("seeded in %v\n", r.seed)
	bases := [configs]string{serve.base, sandboxed.base, sandboxed.base + "/worlds/" + benchWorld}
	if o.worlds > 0 {
		if r.worlds, err = worldsLifecycle(ctx, o, sandboxed.base, worldBackends{db, rdb, s3, bucket}, w); err != nil {
			return err
		}
	} else {
		for _, rw := range r.rows {
			rw.sides[inWorld] = nil
		}
	}
	p := newPaths(serve.base, w.packs, "s")
	if err := p.prepareDownloads(); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "VACUUM ANALYZE"); err != nil {
		return err
	}
	a, err := startAnchors(ctx, env, rdb, s3, bucket, p.pdf)
	if err != nil {
		return err
	}
	a.packs = p.packs
	defer cleanup(a.close)()
	time.Sleep(time.Second)
	r.idleSeeded = serve.status("VmRSS")

	cpu, err := newCPUWatch(ctx, rdb, db)
	if err != nil {
		return err
	}
	cpu.feria, cpu.sandboxed, cpu.anchors = serve.cmd.Process.Pid, sandboxed.cmd.Process.Pid, a.srv.cmd.Process.Pid
	watch, swatch := watchRSS(serve.cmd.Process.Pid), watchRSS(sandboxed.cmd.Process.Pid)
	// Before each path's run at half load the backends settle: what the
	// saturated runs left to flush (PostgreSQL's dirty buffers, the
	// uploads' files in the page cache) is written now, not during the
	// next path's measure of its tail.
	settle := func() {
		if _, err := db.ExecContext(ctx, "CHECKPOINT"); err != nil {
			fmt.Println("settle: CHECKPOINT:", err)
		}
		syscall.Sync()
		runtime.GC() // the load clients' garbage, not the next path's
		time.Sleep(pick(o.quick, 200*time.Millisecond, time.Second))
	}
	err = measure(ctx, r, p, a, cpu, bases, settle)
	r.peak, r.sandboxPeak = watch.end(), swatch.end()
	if err != nil {
		return err
	}
	if r.worker, err = measureWorker(ctx, o.bin, env, db, redisURL, p, w.copies); err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	r.relSizes = relationSizes(ctx, db)
	serve.stop()
	sandboxed.stop()
	if o.embedded {
		// SQLite through the sandbox alone: a smaller catalog, the same
		// request mix.
		r.embWorld = w
		r.embWorld.bulk = nil
		r.embWorld.products = min(w.products, pick(o.quick, 2000, 10_000))
		r.embWorld.packs = min(w.packs, 3000)
		r.embIdle, r.embPeak, r.embErr = measureEmbedded(o, r, r.embWorld)
	}
	r.loadEnd = loadavg()
	r.print(os.Stdout)
	if o.md != "" {
		f, err := os.Create(o.md)
		if err != nil {
			return err
		}
		defer f.Close()
		r.markdown(f)
		fmt.Println("markdown written to", o.md)
	}
	if o.doc != "" {
		if err := r.intoDoc(o.doc); err != nil {
			return err
		}
		fmt.Println("table put into", o.doc)
	}
	return nil
}

// measure warms every path and anchor up, runs the interleaved rounds,
// then each path at half its saturated rate.
func measure(ctx context.Context, r *report, p *paths, a *anchors, w *cpuWatch, bases [configs]string, settle func()) error {
	o := r.o
	feria := func(rw *row, c int) load {
		return load{req: rw.path(p, bases[c]), server: rw.sides[c].server}
	}
	for _, rw := range r.rows {
		if rw.of != nil {
			continue // its path's row warms both up
		}
		for c, sd := range rw.sides {
			if sd == nil {
				continue
			}
			if err := feria(rw, c).warm(ctx, w, rw.connsOf(o), o.warm); err != nil {
				return fmt.Errorf("warm-up of %s %s: %w", rw.name, configNames[c], err)
			}
		}
		if err := rw.anchor(a).warm(ctx, w, rw.connsOf(o), o.warm); err != nil {
			return fmt.Errorf("warm-up of %s: %w", rw.anchorName, err)
		}
	}
	type done struct {
		s   sample
		cpu map[string]float64
	}
	for round := 1; round <= o.rounds; round++ {
		fmt.Printf("round %d of %d (load average %s)\n", round, o.rounds, loadavg())
		// Each round turns the order around (every other one runs the
		// anchor first and the configurations backwards): what a row's
		// writes leave the backends to do (hint bits, dirty pages, a
		// checkpoint) lands on whatever runs next, and so on each side in
		// turn rather than always on the first.
		backwards := round%2 == 0
		anchorsDone := map[string]done{}
		for _, rw := range r.rows {
			runAnchor := func() error {
				if _, ok := anchorsDone[rw.anchorKey]; ok {
					return nil
				}
				s, cpu, err := rw.anchor(a).run(ctx, w, rw.connsOf(o), o.duration)
				if err != nil {
					return fmt.Errorf("%s: %w", rw.anchorName, err)
				}
				anchorsDone[rw.anchorKey] = done{s, cpu}
				return nil
			}
			if backwards {
				if err := runAnchor(); err != nil {
					return err
				}
			}
			for i := range rw.sides {
				c := i
				if backwards {
					c = len(rw.sides) - 1 - i
				}
				if sd := rw.sides[c]; sd != nil && rw.of == nil {
					s, cpu, err := feria(rw, c).run(ctx, w, rw.connsOf(o), o.duration)
					if err != nil {
						return fmt.Errorf("%s %s: %w", rw.name, configNames[c], err)
					}
					sd.add(s, cpu)
				}
			}
			if err := runAnchor(); err != nil {
				return err
			}
			d := anchorsDone[rw.anchorKey]
			rw.anc.server = rw.anchor(a).server
			rw.anc.add(d.s, d.cpu)
			line := fmt.Sprintf("  %-46s", strings.ReplaceAll(rw.name, "`", ""))
			for c, sd := range rw.sides {
				if sd == nil {
					line += fmt.Sprintf(" %9s %-17s", "", "")
					continue
				}
				line += fmt.Sprintf(" %9.0f %-17s", sd.last.perSec()*rw.perOp, configNames[c])
			}
			fmt.Printf("%s anchor %9.0f %s\n", line, d.s.perSec()*rw.perOp, rw.unit)
		}
	}
	fmt.Println("half load (open loop at half the saturated rate):")
	for _, rw := range r.rows {
		for c, sd := range rw.sides {
			if sd == nil {
				continue
			}
			// A floor row sends its floor at its path's half rate: the tail
			// the backends alone give at that load, beside the path's.
			var l load
			into := sd
			switch {
			case rw.of == nil:
				l = feria(rw, c)
			case c != rw.firstSide():
				continue
			default:
				l, into = rw.anchor(a), &rw.anc
			}
			rate := sd.m.rate() / 2
			settle()
			// The open loop warms up at its rate first (its connections, the
			// client's own heap), as every closed-loop run does.
			tr := halfTransport()
			if _, _, _, err := l.half(tr, rate, max(o.warm, 200*time.Millisecond)); err != nil {
				return fmt.Errorf("warm-up of %s %s at half load: %w", rw.name, configNames[c], err)
			}
			before, st := w.snap(ctx), stolen()
			s, dropped, client, err := l.half(tr, rate, o.half)
			after := w.snap(ctx)
			into.halfStolen = stolen() - st
			tr.CloseIdleConnections()
			if err != nil {
				return fmt.Errorf("%s %s at half load: %w", rw.name, configNames[c], err)
			}
			into.half, into.dropped = s, dropped
			if l.req != nil {
				into.halfCPU = cpuUse(before, after, client)
			}
			fmt.Printf("  %-46s %-17s %7.0f op/s asked, p99 %s%s\n", strings.ReplaceAll(rw.name, "`", ""), configNames[c], rate,
				s.p99.Round(10*time.Microsecond), into.halfClientNote()+into.halfStolenNote())
		}
	}
	return nil
}

func gitCommit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, _ := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); len(st) > 0 {
		c += " (with uncommitted changes)"
	}
	return c
}

func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	out, _ := exec.Command("nproc").Output()
	return fmt.Sprintf("%s cores, %s", strings.TrimSpace(string(out)), model)
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func removeBucket(s3 *minio.Client, bucket string) {
	ctx := context.Background()
	objs := s3.ListObjects(ctx, bucket, minio.ListObjectsOptions{Recursive: true})
	for e := range s3.RemoveObjects(ctx, bucket, objs, minio.RemoveObjectsOptions{}) {
		_ = e // best effort
	}
	s3.RemoveBucket(ctx, bucket) //nolint:errcheck // best effort
}
