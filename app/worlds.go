package app

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"
	"github.com/uptrace/bun"
	"github.com/valyala/fasthttp"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/blobstore/prefixblob"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/core/worlds/worldssvc"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/worldsport"
	"github.com/feria/feria/workers/tasks"
)

const (
	// liveWorlds bounds the worlds a process keeps wired at once; the
	// least recently used one is closed for another (and wired again on
	// its next request).
	liveWorlds = 64
	// worldConnBudget is the PostgreSQL connections a process's wired
	// worlds hold at most together: each world's pool is the default
	// world's size (a world's hot reads ran at 0.76 of the root's on 2
	// connections against the root's 4) while that fits, and shrinks
	// towards minWorldConns as more worlds are wired (64 at 2).
	worldConnBudget = 128
	// minWorldConns is a world's pool when the budget is shared by all
	// liveWorlds, and the pool that migrates a new world.
	minWorldConns = 2
	// worldRecheck is how long a process serves a world before it reads the
	// registry again: a world deleted, re-created or given another key
	// through another process is seen within it. The world's frozen clock
	// is read again then too.
	worldRecheck = time.Second
	// touchEvery is how often at most a world's last use is written:
	// WORLD_TTL is days, so a minute's precision costs nothing and spares
	// a write per request.
	touchEvery = time.Minute
	// idleWorld is how long a wired world may go unused (no request, no
	// job) before it is closed, its relay with it.
	idleWorld = 5 * time.Minute
	// listWorlds is how many worlds one read of the registry lists.
	listWorlds = 200
)

// worldHost serves /worlds/{name}/...: each world is a whole wired feria
// (wire, NewHTTP) on storage of its own, built on its first request and
// kept among the liveWorlds most recently used.
type worldHost struct {
	root *Deps
	b    *backends
	reg  worldsport.Registry
	max  int
	// recheck is worldRecheck, or shorter in tests
	// (Config.WorldRecheck).
	recheck time.Duration
	// connBudget is worldConnBudget, or smaller in tests.
	connBudget int

	mu    sync.Mutex
	live  map[string]*liveWorld
	order *list.List // of *liveWorld, the most recently used first
}

var _ worldsport.Storage = (*worldHost)(nil)

// liveWorld is a world wired in this process.
type liveWorld struct {
	w       worlds.World // as the registry held it when checked
	checked time.Time
	touched time.Time
	used    time.Time
	elem    *list.Element
	users   int  // requests being served
	gone    bool // out of live: closed once users is 0
	closed  bool
	ready   chan struct{} // closed once built (d, handler, jobs) or failed (err)
	d       *Deps
	db      *bun.DB
	handler fasthttp.RequestHandler
	jobs    *asynq.ServeMux // the world's job handlers
	// stopRelay ends the world's outbox relay, which runs while the world
	// is wired in this process.
	stopRelay func()
	err       error
}

// serve sends a request under /worlds/{name}/ to its world's app, the
// path after the world's base as that app's path.
func (h *worldHost) serve(c *fiber.Ctx) error {
	uri := c.Request().URI()
	raw := string(uri.PathOriginal())
	if !strings.HasPrefix(raw, worlds.Prefix) {
		return c.Next()
	}
	name, sub, _ := strings.Cut(raw[len(worlds.Prefix):], "/")
	lw, err := h.acquire(c.UserContext(), name, true)
	if err != nil {
		return err
	}
	defer h.release(lw)
	path := "/" + sub
	if q := uri.QueryString(); len(q) > 0 {
		path += "?" + string(q)
	}
	c.Request().SetRequestURI(path)
	lw.handler(c.Context())
	return nil
}

// acquire is the world of name, wired, for one request or job (release
// it); use records a use of the world (a request's, not a job's: WORLD_TTL
// counts from the last request).
func (h *worldHost) acquire(ctx context.Context, name string, use bool) (*liveWorld, error) {
	if worlds.CheckName(name) != nil {
		return nil, worlds.NotFound(name)
	}
	now := time.Now()
	h.mu.Lock()
	lw := h.live[name]
	if lw != nil && now.Sub(lw.checked) < h.recheck {
		lw.users++
		lw.used = now
		h.order.MoveToFront(lw.elem)
		h.mu.Unlock()
		return h.ready(lw)
	}
	h.mu.Unlock()

	w, err := h.reg.Get(ctx, name)
	if errors.Is(err, worldsport.ErrNotFound) {
		h.evict(name)
		return nil, worlds.NotFound(name)
	}
	if err != nil {
		return nil, err
	}
	var done []*liveWorld
	h.mu.Lock()
	lw = h.live[name]
	if lw != nil && (!lw.w.CreatedAt.Equal(w.CreatedAt) || lw.w.SandboxKey != w.SandboxKey) {
		done = append(done, h.removeLocked(lw)...)
		lw = nil
	}
	build := lw == nil
	if build {
		lw = &liveWorld{w: w, ready: make(chan struct{}), touched: w.LastUsedAt}
		h.live[name] = lw
		lw.elem = h.order.PushFront(lw)
		for h.order.Len() > h.max {
			done = append(done, h.removeLocked(h.order.Back().Value.(*liveWorld))...)
		}
	}
	lw.checked, lw.used = now, now
	lw.users++
	touch := use && now.Sub(lw.touched) >= touchEvery
	if touch {
		lw.touched = now
	}
	h.mu.Unlock()
	closeWorlds(done)

	if build {
		lw.err = h.build(context.WithoutCancel(ctx), lw)
		close(lw.ready)
		h.resize()
	} else if _, err := h.ready(lw); err == nil {
		// Another process may have frozen the world's clock.
		if err := lw.d.Clock.Reload(ctx); err != nil {
			h.release(lw)
			return nil, err
		}
	} else {
		return nil, err
	}
	if touch {
		if err := h.reg.Touch(ctx, name, now); err != nil {
			h.root.Log.Warn("a world's last use not recorded", slog.String("world", name), slog.Any("err", err))
		}
	}
	return h.ready(lw)
}

// ready waits for lw's wiring; a world that could not be wired is let go.
func (h *worldHost) ready(lw *liveWorld) (*liveWorld, error) {
	<-lw.ready
	if lw.err != nil {
		h.mu.Lock()
		done := h.removeLocked(lw)
		h.mu.Unlock()
		closeWorlds(done)
		h.release(lw)
		return nil, lw.err
	}
	return lw, nil
}

// release ends one request's use of lw.
func (h *worldHost) release(lw *liveWorld) {
	h.mu.Lock()
	lw.users--
	last := lw.gone && lw.users == 0 && !lw.closed
	if last {
		lw.closed = true
	}
	h.mu.Unlock()
	if last {
		lw.close()
	}
}

// removeLocked takes lw out of the live worlds; it answers lw when nobody
// uses it, for the caller to close once it has unlocked.
func (h *worldHost) removeLocked(lw *liveWorld) []*liveWorld {
	if lw.gone {
		return nil
	}
	lw.gone = true
	if h.live[lw.w.Name] == lw {
		delete(h.live, lw.w.Name)
	}
	h.order.Remove(lw.elem)
	if lw.users == 0 && !lw.closed {
		lw.closed = true
		return []*liveWorld{lw}
	}
	return nil
}

// worldConns is each world's pool when n worlds are wired: the default
// world's pool size while n of them fit in connBudget, less as more
// are wired, never under minWorldConns.
func (h *worldHost) worldConns(n int) int {
	c := h.b.db.DB.Stats().MaxOpenConnections
	if !sqlstore.IsPostgres(h.b.db) || c <= 0 {
		return minWorldConns
	}
	return max(minWorldConns, min(c, h.connBudget/max(n, 1)))
}

// resize gives every wired world's pool its share of connBudget, after
// a world was wired or closed; a pool made smaller closes what it holds
// beyond its new size as its connections are given back.
func (h *worldHost) resize() {
	h.mu.Lock()
	defer h.mu.Unlock()
	conns := h.worldConns(len(h.live))
	for _, lw := range h.live {
		select {
		case <-lw.ready:
		default:
			continue // its pool is opened with the size of now
		}
		if lw.db != nil && sqlstore.IsPostgres(lw.db) {
			lw.db.SetMaxOpenConns(conns)
			lw.db.SetMaxIdleConns(conns)
		}
	}
}

func closeWorlds(ws []*liveWorld) {
	for _, lw := range ws {
		lw.close()
	}
}

// close releases what the world's wiring opened, once its relay has
// queued what its outbox holds; the queue clients and the controls' client
// are the default world's.
func (lw *liveWorld) close() {
	<-lw.ready
	if lw.stopRelay != nil {
		lw.stopRelay()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if _, err := lw.d.Relay.Once(ctx); err != nil {
			lw.d.Log.Warn("a world's outbox not relayed as it closed; relayed when it is next wired", slog.Any("err", err))
		}
		cancel()
	}
	if lw.d != nil {
		lw.d.close()
	}
	if lw.db != nil {
		lw.db.Close()
	}
}

// evict closes the world of name in this process, if it is live.
func (h *worldHost) evict(name string) {
	h.mu.Lock()
	var done []*liveWorld
	if lw := h.live[name]; lw != nil {
		done = h.removeLocked(lw)
	}
	h.mu.Unlock()
	closeWorlds(done)
}

// watch, every interval until ctx ends, closes the live worlds that the
// registry no longer holds, or holds re-created, and those unused for
// idleWorld: a world deleted through another process stops being served
// and relayed here, requests or not.
func (h *worldHost) watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		h.mu.Lock()
		var idle, check []*liveWorld
		for _, lw := range h.live {
			switch {
			case lw.users == 0 && now.Sub(lw.used) >= idleWorld:
				idle = append(idle, lw)
			case now.Sub(lw.checked) >= h.recheck:
				check = append(check, lw)
			}
		}
		h.mu.Unlock()
		for _, lw := range check {
			w, err := h.reg.Get(ctx, lw.w.Name)
			if errors.Is(err, worldsport.ErrNotFound) || err == nil && !w.CreatedAt.Equal(lw.w.CreatedAt) {
				idle = append(idle, lw)
			}
		}
		h.mu.Lock()
		var done []*liveWorld
		for _, lw := range idle {
			done = append(done, h.removeLocked(lw)...)
		}
		h.mu.Unlock()
		closeWorlds(done)
		if len(idle) > 0 {
			h.resize() // the worlds still wired may grow again
		}
	}
}

// closeAll closes every live world: the process is stopping.
func (h *worldHost) closeAll() {
	h.mu.Lock()
	var done []*liveWorld
	for _, lw := range h.live {
		done = append(done, h.removeLocked(lw)...)
	}
	h.mu.Unlock()
	closeWorlds(done)
}

// build wires the world lw: its database, its files, the default world's
// Redis under the world's keys, and the default world's configuration with
// the world's sandbox key; then it starts the world's outbox relay.
func (h *worldHost) build(ctx context.Context, lw *liveWorld) error {
	w := lw.w
	h.mu.Lock()
	conns := h.worldConns(len(h.live))
	h.mu.Unlock()
	db, err := h.openDB(ctx, w.Name, conns)
	if err != nil {
		return err
	}
	blobs, err := h.blobs(w.Name)
	if err != nil {
		db.Close()
		return err
	}
	cfg := h.root.Config
	cfg.SandboxKey = w.SandboxKey
	cfg.FixturesFile = ""
	d, err := wire(cfg, h.root.Log.With(slog.String("world", w.Name)), &backends{db: db, redis: h.b.redis, blobs: blobs, root: h.root, world: w.Name})
	if err != nil {
		db.Close()
		return err
	}
	if err := d.Clock.Reload(ctx); err != nil {
		d.close()
		db.Close()
		return err
	}
	if q := cfg.WorldQuota; q.Rows > 0 || q.Bytes > 0 {
		every := cfg.WorldMeasure
		if every <= 0 {
			every = worldMeasure
		}
		quota := &worldQuota{name: w.Name, quota: q, db: db, blobs: blobs, every: every, log: d.Log}
		d.quota = quota.guard
	}
	lw.d, lw.db, lw.handler, lw.jobs = d, db, NewHTTP(d).Handler(), asynq.NewServeMux()
	for _, m := range d.Modules {
		if m.Jobs != nil {
			m.Jobs(lw.jobs.Handle)
		}
	}
	relayCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.Relay.Run(relayCtx) }()
	lw.stopRelay = func() { stop(); <-done }
	return nil
}

// jobs is the handler of the jobs of world name (workers.WorldJobs).
func (h *worldHost) jobs(ctx context.Context, name string) (asynq.Handler, func(), error) {
	lw, err := h.acquire(ctx, name, false)
	if errors.Is(err, worlds.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return lw.jobs, func() { h.release(lw) }, nil
}

// everyWorld runs a periodic job of the default world, then queues it for
// every world (its task id with each world's name: once per world and
// tick, however many processes run the tick).
func (h *worldHost) everyWorld(next asynq.Handler, queue string) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		if err := next.ProcessTask(ctx, t); err != nil {
			return err
		}
		id, _ := asynq.GetTaskID(ctx)
		if id == "" || tasks.WorldOf(id) != "" {
			return nil
		}
		for offset := 0; ; offset += listWorlds {
			ws, total, err := h.reg.List(ctx, paging.Request{Limit: listWorlds, Offset: offset})
			if err != nil {
				return err
			}
			for _, w := range ws {
				_, err := h.root.Queue.EnqueueContext(ctx, asynq.NewTask(t.Type(), t.Payload()),
					asynq.TaskID(tasks.WorldTaskID(w.Name, id)), asynq.Queue(tasks.WorldQueue(w.Name, queue)), asynq.MaxRetry(3), asynq.Retention(time.Hour))
				if err != nil && !errors.Is(err, asynq.ErrTaskIDConflict) {
					return err
				}
			}
			if offset+listWorlds >= total {
				return nil
			}
		}
	})
}

// openDB opens the world's database, migrated: a schema of the default
// world's PostgreSQL database, or a SQLite file beside its own.
func (h *worldHost) openDB(ctx context.Context, name string, conns int) (*bun.DB, error) {
	var db *bun.DB
	if sqlstore.IsPostgres(h.b.db) {
		schema, err := sqlstore.Schema(ctx, h.b.db, name)
		if err != nil {
			return nil, err
		}
		if err := sqlstore.CreateSchema(ctx, h.b.db, schema); err != nil {
			return nil, fmt.Errorf("world %s: %w", name, err)
		}
		if db, err = sqlstore.OpenSchema(ctx, h.b.db, schema, conns); err != nil {
			return nil, fmt.Errorf("world %s: %w", name, err)
		}
	} else {
		dir, err := h.dir(ctx, name)
		if err != nil {
			return nil, err
		}
		if db, err = sqlstore.OpenSQLite(ctx, filepath.Join(dir, "feria.db")); err != nil {
			return nil, fmt.Errorf("world %s: %w", name, err)
		}
	}
	if _, err := migrations.Up(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("world %s: %w", name, err)
	}
	return db, nil
}

// dir is the world's directory for what it keeps in files: beside the
// default world's SQLite file, else under DATA_DIR.
func (h *worldHost) dir(ctx context.Context, name string) (string, error) {
	root := h.root.Config.DataDir
	if !sqlstore.IsPostgres(h.b.db) {
		var err error
		if root, err = sqlstore.SQLiteDir(ctx, h.b.db); err != nil {
			return "", err
		}
	}
	return filepath.Join(root, "worlds", name), nil
}

// blobs is the world's file store: a directory of its own beside the
// default world's files, or its prefix of the default world's bucket.
func (h *worldHost) blobs(name string) (blobport.Store, error) {
	if h.b.blobs.Backend() == "s3" {
		return prefixblob.New(h.b.blobs, blobport.WorldsPrefix+name+"/"), nil
	}
	dir, err := h.dir(context.Background(), name)
	if err != nil {
		return nil, err
	}
	return fsblob.New(filepath.Join(dir, "blobs"))
}

// Make prepares a new world's database, so that its first request finds it
// migrated (the wiring migrates again, for a binary with new migrations).
func (h *worldHost) Make(ctx context.Context, name string) error {
	db, err := h.openDB(ctx, name, minWorldConns)
	if err != nil {
		return err
	}
	return db.Close()
}

// Drop removes everything the world holds: its wiring in this process,
// its schema or directory (its SQLite file and files with it), its files
// in the bucket and its Redis keys.
func (h *worldHost) Drop(ctx context.Context, name string) error {
	h.evict(name)
	if sqlstore.IsPostgres(h.b.db) {
		schema, err := sqlstore.Schema(ctx, h.b.db, name)
		if err != nil {
			return err
		}
		if err := sqlstore.DropSchema(ctx, h.b.db, schema); err != nil {
			return fmt.Errorf("world %s: %w", name, err)
		}
	}
	dir, err := h.dir(ctx, name)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("world %s: %w", name, err)
	}
	if h.b.blobs.Backend() == "s3" {
		if err := prefixblob.New(h.b.blobs, blobport.WorldsPrefix+name+"/").Reset(ctx); err != nil {
			return err
		}
	}
	if err := jobqueue.NewQueued(h.root.Inspect).Of(name).Reset(ctx); err != nil {
		return err
	}
	// The limiter's keys are led by redis_rate's own "rate:".
	for _, prefix := range []string{worldKeys(name), "rate:" + worldKeys(name)} {
		if err := redisstore.UnlinkMatching(ctx, h.b.redis, prefix); err != nil {
			return err
		}
	}
	return nil
}

// expireWorlds removes the worlds unused for ttl every interval until ctx
// ends. Every serving process runs it: two removing one world at once is
// one removal and a not-found, which Expire skips.
func expireWorlds(ctx context.Context, svc *worldssvc.Service, ttl, interval time.Duration, log *slog.Logger) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := svc.Expire(ctx, ttl)
			if err != nil && ctx.Err() == nil {
				log.Warn("expiring idle worlds failed", slog.Any("err", err))
			}
			if n > 0 {
				log.Info("idle worlds removed", slog.Int("worlds", n), slog.Duration("world_ttl", ttl))
			}
		}
	}
}
