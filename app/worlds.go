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
	"github.com/uptrace/bun"
	"github.com/valyala/fasthttp"

	"github.com/feria/feria/adapters/blobstore/fsblob"
	"github.com/feria/feria/adapters/blobstore/prefixblob"
	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/migrations"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/core/worlds/worldssvc"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/ports/worldsport"
)

const (
	// liveWorlds bounds the worlds a process keeps wired at once; the
	// least recently used one is closed for another (and wired again on
	// its next request).
	liveWorlds = 64
	// worldConns is each world's PostgreSQL pool: a world is one team's or
	// one CI job's, and 64 of them at 2 stay within a server's usual 200.
	worldConns = 2
	// recheck is how long a process serves a world before it reads the
	// registry again: a world deleted, re-created or given another key
	// through another process is seen within it. The world's frozen clock
	// is read again then too.
	recheck = time.Second
	// touchEvery is how often at most a world's last use is written:
	// WORLD_TTL is days, so a minute's precision costs nothing and spares
	// a write per request.
	touchEvery = time.Minute
)

// worldHost serves /worlds/{name}/...: each world is a whole wired feria
// (wire, NewHTTP) on storage of its own, built on its first request and
// kept among the liveWorlds most recently used.
type worldHost struct {
	root *Deps
	b    *backends
	reg  worldsport.Registry
	max  int

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
	elem    *list.Element
	users   int  // requests being served
	gone    bool // out of live: closed once users is 0
	closed  bool
	ready   chan struct{} // closed once built (d, handler) or failed (err)
	d       *Deps
	db      *bun.DB
	handler fasthttp.RequestHandler
	err     error
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
	lw, err := h.acquire(c.UserContext(), name)
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

// acquire is the world of name, wired, for one request (release it).
func (h *worldHost) acquire(ctx context.Context, name string) (*liveWorld, error) {
	if worlds.CheckName(name) != nil {
		return nil, worlds.NotFound(name)
	}
	now := time.Now()
	h.mu.Lock()
	lw := h.live[name]
	if lw != nil && now.Sub(lw.checked) < recheck {
		lw.users++
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
	lw.checked = now
	lw.users++
	touch := now.Sub(lw.touched) >= touchEvery
	if touch {
		lw.touched = now
	}
	h.mu.Unlock()
	closeWorlds(done)

	if build {
		lw.d, lw.db, lw.handler, lw.err = h.build(context.WithoutCancel(ctx), w)
		close(lw.ready)
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

func closeWorlds(ws []*liveWorld) {
	for _, lw := range ws {
		lw.close()
	}
}

// close releases what the world's wiring opened; the queue clients and the
// controls' client are the default world's.
func (lw *liveWorld) close() {
	<-lw.ready
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

// build wires the world w: its database, its files, the default world's
// Redis under the world's keys, and the default world's configuration with
// the world's sandbox key.
func (h *worldHost) build(ctx context.Context, w worlds.World) (*Deps, *bun.DB, fasthttp.RequestHandler, error) {
	db, err := h.openDB(ctx, w.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	blobs, err := h.blobs(w.Name)
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	cfg := h.root.Config
	cfg.SandboxKey = w.SandboxKey
	cfg.FixturesFile = ""
	d, err := wire(cfg, h.root.Log.With(slog.String("world", w.Name)), &backends{db: db, redis: h.b.redis, blobs: blobs, root: h.root, world: w.Name})
	if err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	if err := d.Clock.Reload(ctx); err != nil {
		d.close()
		db.Close()
		return nil, nil, nil, err
	}
	return d, db, NewHTTP(d).Handler(), nil
}

// openDB opens the world's database, migrated: a schema of the default
// world's PostgreSQL database, or a SQLite file beside its own.
func (h *worldHost) openDB(ctx context.Context, name string) (*bun.DB, error) {
	var db *bun.DB
	if sqlstore.IsPostgres(h.b.db) {
		schema, err := sqlstore.Schema(ctx, h.b.db, name)
		if err != nil {
			return nil, err
		}
		if err := sqlstore.CreateSchema(ctx, h.b.db, schema); err != nil {
			return nil, fmt.Errorf("world %s: %w", name, err)
		}
		if db, err = sqlstore.OpenSchema(ctx, h.b.db, schema, worldConns); err != nil {
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
	db, err := h.openDB(ctx, name)
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
