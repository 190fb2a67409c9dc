package app

import (
	"container/list"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/adapters/httpapi/controlapi"
	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/adapters/sqlstore/accountdb"
	"github.com/feria/feria/adapters/sqlstore/clockdb"
	"github.com/feria/feria/adapters/sqlstore/outboxdb"
	"github.com/feria/feria/adapters/sqlstore/worldsdb"
	"github.com/feria/feria/core/account/accountsvc"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/control/controlsvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/worlds/worldssvc"
	"github.com/feria/feria/docs"
	"github.com/feria/feria/ports/accountport"
	"github.com/feria/feria/ports/blobport"
	"github.com/feria/feria/workers"
	"github.com/feria/feria/workers/tasks"
)

// Deps is what every module's wiring may use, built once per process by
// wire; Modules is the module map (modules.go) built on it.
type Deps struct {
	// World is the name of the world this is the wiring of; empty for the
	// default world.
	World  string
	Config Config
	Log    *slog.Logger
	DB     *bun.DB
	Tx     sqlstore.Tx
	Redis  redis.UniversalClient // a server's client or a cluster's
	// AsynqRedis is how asynq (queues, workers, the dashboard) reaches Redis.
	AsynqRedis asynq.RedisConnOpt
	Blobs      blobport.Store
	Clock      *clockdb.Clock
	Accounts   accountport.Service
	Auth       httpapi.Auth
	Registry   *prometheus.Registry
	Jobs       *workers.Metrics // counts of jobs this process handled
	Queue      *asynq.Client    // enqueue side of asynq (the relay and direct enqueues)
	Inspect    *asynq.Inspector // the sandbox reset and metrics read queues through it
	Relay      *jobqueue.Relay
	// Controls are the sandbox's fault rules, rate limits and request
	// journal, on a Redis client of their own (controlRedis).
	Controls *controlsvc.Service
	// ControlsRedis is the controls' client (tests count its round trips).
	ControlsRedis redis.UniversalClient
	// Worlds is the worlds' lifecycle (the default world's sandbox serves
	// it); nil in a world.
	Worlds *worldssvc.Service
	// Operations are the public API's operations, read once from the
	// contract document: the coverage counts by them.
	Operations *control.Operations
	// worlds serves /worlds/{name}/...: the default world's only.
	worlds *worldHost
	// quota refuses a world's writes once it holds its rows or bytes
	// (worldQuota); nil in the default world.
	quota   fiber.Handler
	Modules []Module

	// applications are the account module's way to the apps module, which
	// the module map builds after it (applications check users) and puts
	// here.
	applications *applications
	// heldTokens are the tokens this process resolved (the sandbox's reset
	// drops them everywhere).
	heldTokens *accountdb.Held
	closers    []func()
}

// close releases what wire opened beside the queue clients.
func (d *Deps) close() {
	for _, c := range d.closers {
		c()
	}
}

// controlRedis is the controls' client: on every public request's path,
// so it fails fast (one dial, no retry, a quarter second at most) and the request
// goes on without the controls rather than waiting on an unreachable
// Redis. On a cluster it follows one redirect (a slot that moved), no more.
func controlRedis(rdb redis.UniversalClient) redis.UniversalClient {
	const quick = 250 * time.Millisecond
	if c, ok := rdb.(*redis.ClusterClient); ok {
		o := c.Options()
		return redis.NewClusterClient(&redis.ClusterOptions{Addrs: o.Addrs, Username: o.Username, Password: o.Password,
			TLSConfig: o.TLSConfig, Protocol: o.Protocol, MaxRedirects: 1, MaxRetries: -1, DialerRetries: 1,
			DialTimeout: quick, ReadTimeout: quick, WriteTimeout: quick, PoolTimeout: quick})
	}
	o := rdb.(*redis.Client).Options()
	return redis.NewClient(&redis.Options{Network: o.Network, Addr: o.Addr, Username: o.Username, Password: o.Password,
		DB: o.DB, TLSConfig: o.TLSConfig, Protocol: o.Protocol, MaxRetries: -1, DialerRetries: 1,
		DialTimeout: quick, ReadTimeout: quick, WriteTimeout: quick, PoolTimeout: quick})
}

// wire builds the dependencies every module shares, then the module map.
func wire(cfg Config, log *slog.Logger, b *backends) (*Deps, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}), sqlstore.Conflicts)
	clock := clockdb.New(b.db)
	apps := &applications{}
	queue, inspect, aq, err := queueClients(b)
	if err != nil {
		return nil, err
	}
	reg.MustRegister(workers.NewQueueCollector(inspect))
	d := &Deps{World: b.world,
		Jobs:   workers.NewMetrics(reg),
		Config: cfg, Log: log, DB: b.db, Tx: sqlstore.Tx{DB: b.db, Log: log}, Redis: b.redis, Blobs: b.blobs,
		Clock: clock, Registry: reg,
		Queue: queue, Inspect: inspect, AsynqRedis: aq, applications: apps,
	}
	d.Relay = jobqueue.NewRelay(outboxdb.New(b.db), queue, clock, log, d.queueOf).Of(b.world)
	var ctl redis.UniversalClient
	if b.root != nil {
		ctl = b.root.ControlsRedis
		d.Operations = b.root.Operations
	} else {
		ops, err := controlapi.Operations(docs.OpenAPI)
		if err != nil {
			return nil, err
		}
		d.Operations = control.NewOperations(ops)
		ctl = controlRedis(b.redis)
		d.closers = append(d.closers, func() { ctl.Close() })
	}
	d.ControlsRedis = ctl
	// Every authenticated request resolves its token: each process holds
	// the tokens it resolved, told of every change of tokens or users by
	// the notices on the controls' Redis.
	d.heldTokens = accountdb.NewHeld()
	tokenNotices := redisstore.Subscribe(ctl, d.keys(heldTokensName), d.heldTokens)
	d.heldTokens.Tell(tokenNotices)
	d.closers = append([]func(){tokenNotices.Close}, d.closers...) // before its client closes
	accounts := accountsvc.New(accountsvc.Deps{Store: accountdb.New(b.db).Holding(d.heldTokens), Tx: d.Tx, Clock: clock, Applications: apps})
	d.Accounts, d.Auth = accounts, httpapi.Auth{Tokens: accounts}
	prefix := d.keys(controlredis.DefaultPrefix)
	rules, journal := controlredis.NewRules(ctl, prefix), controlredis.NewJournal(ctl, prefix)
	if b.world != "" {
		// A world's quota: its journal counts its requests a minute, which
		// its rules refuse once over, and keeps its own number of entries.
		quota := controlredis.NewQuota(cfg.WorldQuota.PerMinute)
		rules.WithQuota(quota)
		journal = controlredis.NewWorldJournal(ctl, prefix, cfg.WorldQuota.Journal, quota)
	}
	d.closers = append([]func(){rules.Close}, d.closers...) // before its client closes
	journal.Confirms(rules)
	d.Controls = controlsvc.New(controlsvc.Deps{Rules: rules,
		Limiter: controlredis.NewLimiter(ctl, prefix), Journal: journal,
		Defaults: cfg.RateLimits, Operations: d.Operations, Clock: clock})
	if b.root == nil {
		reg := worldsdb.New(b.db)
		recheck := cfg.WorldRecheck
		if recheck <= 0 {
			recheck = worldRecheck
		}
		d.worlds = &worldHost{root: d, b: b, reg: reg, live: map[string]*liveWorld{}, order: list.New(), max: liveWorlds, recheck: recheck, connBudget: worldConnBudget}
		d.Worlds = worldssvc.New(worldssvc.Deps{Registry: reg, Storage: d.worlds, Clock: kernel.SystemClock, Max: cfg.MaxWorlds})
		watchCtx, stopWatch := context.WithCancel(context.Background())
		go d.worlds.watch(watchCtx, 5*recheck)
		d.closers = append(d.closers, stopWatch, d.worlds.closeAll)
	}
	if d.Modules, err = modules(d); err != nil {
		if b.root == nil {
			queue.Close()
			inspect.Close()
		}
		d.close()
		return nil, err
	}
	return d, nil
}

// heldTokensName names the notices of changes of tokens and users (a hash
// tag: one slot of a cluster carries them).
const heldTokensName = "feria:accounts:{tokens}"

// queueClients are asynq's clients: a world uses the default world's.
func queueClients(b *backends) (*asynq.Client, *asynq.Inspector, asynq.RedisConnOpt, error) {
	if b.root != nil {
		return b.root.Queue, b.root.Inspect, b.root.AsynqRedis, nil
	}
	aq, err := asynqRedis(b.redis)
	if err != nil {
		return nil, nil, nil, err
	}
	return asynq.NewClient(aq), asynq.NewInspector(aq), aq, nil
}

// keys is the Redis key prefix p of a module, in this world: the default
// world's keys are as they always were; a world's lead with its name
// ("feria:world:ci-42:contacts:"), before any hash tag, so that no key of
// one world is a key of another or matches another's prefix.
func (d *Deps) keys(p string) string {
	if d.World == "" {
		return p
	}
	return worldKeys(d.World) + strings.TrimPrefix(p, "feria:")
}

// worldKeys leads every Redis key of world name.
func worldKeys(name string) string { return "feria:world:" + name + ":" }

// applications is the apps module as the account module sees it: set by
// the module map before any request or job runs.
type applications struct{ accountport.Applications }

// queueOf is the queue of a task type: the one its module's row names, else
// the default queue.
func (d *Deps) queueOf(taskType string) string {
	for _, m := range d.Modules {
		if q, ok := m.Queues[taskType]; ok {
			return q
		}
	}
	return tasks.QueueDefault
}

// newWorkers builds the job server with every module's handlers; a
// world's jobs run with that world's (worldHost.jobs).
func newWorkers(d *Deps, b *backends, concurrency int) (*workers.Server, error) {
	cfg := workers.Config{Concurrency: concurrency,
		ShutdownTimeout: d.Config.ShutdownTimeout, RetryDelay: d.Config.WorkerRetryDelay,
		DelayedCheck: d.Config.WorkerDelayedCheck}
	if d.worlds != nil {
		cfg.Worlds = d.worlds.jobs
	}
	srv := workers.NewServer(d.AsynqRedis, cfg, d.Log, d.Jobs)
	periodic := map[string]bool{}
	for _, m := range d.Modules {
		for taskType := range m.Periodic {
			periodic[taskType] = true
		}
	}
	handle := func(taskType string, h asynq.Handler) {
		if periodic[taskType] && d.worlds != nil {
			h = d.worlds.everyWorld(h, d.queueOf(taskType))
		}
		srv.Handle(taskType, h)
	}
	for _, m := range d.Modules {
		if m.Jobs != nil {
			m.Jobs(handle)
		}
		for taskType, spec := range m.Periodic {
			if err := srv.Every(spec, taskType, d.queueOf(taskType)); err != nil {
				return nil, fmt.Errorf("module %s: periodic %s: %w", m.Name, taskType, err)
			}
		}
	}
	return srv, nil
}
