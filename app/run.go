package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/jobqueue"
	"github.com/feria/feria/workers/tasks"
)

// Usage is printed for an unknown subcommand.
const Usage = `usage: feria <command>
  serve    the HTTP API (migrates first)
  worker   the job workers
  all      the API and the workers in one process (migrates first)
  migrate  apply database migrations and exit
  health   exit 0 when the API of this environment's HTTP_ADDR answers /health/live (a container's health check)
  coverage --base URL --key KEY [--min-operations N]: what a sandbox's public API was asked, and its gaps
  help     this text and every environment variable (also -h, --help)`

// EmbeddedMemoryLimit is the embedded mode's soft memory limit
// (runtime/debug.SetMemoryLimit) when GOMEMLIMIT sets none.
const EmbeddedMemoryLimit = 150 << 20

// Run is the whole program: main only calls it. It returns when ctx ends
// (SIGTERM/SIGINT) and everything has shut down. stdout gets what the
// command is asked for (help, the sandbox key the embedded mode made),
// stderr the log.
func Run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "coverage" {
		return coverage(ctx, args[1:], stdout)
	}
	cmd, err := command(args, stdout)
	if err != nil || cmd == "" {
		return err
	}
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return err
	}
	if cmd == "health" {
		return health(ctx, cfg.HTTPAddr)
	}
	log := newLogger(stderr, cfg.LogFormat, cfg.LogLevel)
	if err := startUp(&cfg, cmd, log, stdout); err != nil {
		return err
	}
	if cmd == "migrate" {
		// The schema needs the database alone: a migration step runs
		// before (or without) Redis and the file store.
		db, err := openDatabase(ctx, cfg, log)
		if err != nil {
			return err
		}
		defer db.Close()
		return migrate(ctx, db, log)
	}
	b, err := openBackends(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.close()
	if cmd != "worker" {
		if err := migrate(ctx, b.db, log); err != nil {
			return err
		}
	}
	d, err := wire(cfg, log, b)
	if err != nil {
		return err
	}
	defer d.Queue.Close()
	defer d.Inspect.Close()
	defer d.close()
	if err := d.Clock.Reload(ctx); err != nil {
		return err
	}
	// The fixtures file is loaded once the backends answer and before the
	// API listens, so that no client sees part of it.
	if cfg.FixturesFile != "" && cmd != "worker" {
		if err := loadFixtures(ctx, d, cfg.FixturesFile); err != nil {
			return err
		}
	}
	return runProcesses(ctx, cmd, cfg, log, d, b)
}

// command is the subcommand of args; "" once help is written.
func command(args []string, stdout io.Writer) (string, error) {
	if len(args) != 1 {
		return "", errors.New(Usage)
	}
	cmd := args[0]
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		_, err := io.WriteString(stdout, Help())
		return "", err
	}
	if cmd != "serve" && cmd != "worker" && cmd != "all" && cmd != "migrate" && cmd != "health" {
		return "", fmt.Errorf("unknown command %q\n%s", cmd, Usage)
	}
	return cmd, nil
}

// startUp sets what the process needs before any backend opens: the
// embedded mode's memory limit and sandbox key; it refuses a worker without
// a shared Redis and logs the configuration.
func startUp(cfg *Config, cmd string, log *slog.Logger, stdout io.Writer) error {
	if cfg.Embedded() && debug.SetMemoryLimit(-1) == math.MaxInt64 {
		// The embedded mode holds its data in this process (the in-process
		// Redis, SQLite's cache): a soft limit makes the collector run
		// before the heap doubles past it, unless the Go runtime's own
		// GOMEMLIMIT says otherwise.
		debug.SetMemoryLimit(EmbeddedMemoryLimit)
	}
	if cfg.RedisURL == "" && cmd == "worker" {
		return errors.New("REDIS_URL: a separate worker process needs a shared Redis; set REDIS_URL, or run 'feria all' for the embedded mode")
	}
	generatedKey := cfg.Embedded() && cfg.SandboxKey == "" && cmd != "migrate"
	if generatedKey {
		// The embedded mode is for trying feria out: the sandbox is on, with
		// a key made now and printed. A configured key is a secret and is
		// never logged.
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		cfg.SandboxKey = "sbx-" + hex.EncodeToString(b)
	}
	log.Info("starting", slog.String("command", cmd), slog.Any("config", *cfg))
	if generatedKey {
		fmt.Fprintf(stdout, "sandbox key: %s\n", cfg.SandboxKey)
	}
	return nil
}

// processes are the goroutines of a running feria and the first error one
// of them ends with.
type processes struct {
	wg   sync.WaitGroup
	errs chan error
}

// start runs fn in a goroutine of the group; a non-nil result ends Run.
func (p *processes) start(fn func() error) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		if err := fn(); err != nil {
			p.errs <- err
		}
	}()
}

// runProcesses runs the clock's reload and what cmd runs (the workers, the
// API or both) until ctx ends or one of them fails, then shuts them down.
func runProcesses(ctx context.Context, cmd string, cfg Config, log *slog.Logger, d *Deps, b *backends) error {
	p := &processes{errs: make(chan error, 2)}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	p.start(func() error { reloadClock(runCtx, d, log); return nil })
	if cmd == "worker" || cmd == "all" {
		if err := startWorkers(ctx, runCtx, cfg, log, d, b, p); err != nil {
			return err
		}
	}
	var api *fiber.App
	if cmd == "serve" || cmd == "all" {
		p.start(func() error { expireWorlds(runCtx, d.Worlds, cfg.WorldTTL, time.Minute, log); return nil })
		api = NewHTTP(d)
		p.start(func() error {
			log.Info("listening", slog.String("addr", cfg.HTTPAddr))
			if err := api.Listen(cfg.HTTPAddr); err != nil {
				return fmt.Errorf("HTTP_ADDR: %w", err)
			}
			return nil
		})
	}

	// Start-up (migrations, the routes, the contract document) leaves
	// garbage that the heap keeps mapped until the scavenger returns it,
	// minutes later: give it back now, so that an idle process holds only
	// what it uses.
	debug.FreeOSMemory()

	select {
	case <-ctx.Done():
		log.Info("shutting down", slog.Duration("timeout", cfg.ShutdownTimeout))
	case err := <-p.errs:
		stop()
		return err
	}
	// The API stops accepting and lets in-flight requests finish while the
	// workers let their in-flight jobs finish, both within the timeout.
	stop()
	shutDown(api, p, cfg.ShutdownTimeout, log)
	return nil
}

// reloadClock reads the sandbox clock every second until ctx ends: other
// processes may freeze it.
func reloadClock(ctx context.Context, d *Deps, log *slog.Logger) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := d.Clock.Reload(ctx); err != nil && ctx.Err() == nil {
				log.Warn("clock reload failed", slog.Any("err", err))
			}
		}
	}
}

// startWorkers starts the outbox relay and the job server until runCtx
// ends. With the embedded Redis it first releases the jobs a killed run
// was running.
func startWorkers(ctx, runCtx context.Context, cfg Config, log *slog.Logger, d *Deps, b *backends, p *processes) error {
	srv, err := newWorkers(d, b, cfg.WorkerConcurrency)
	if err != nil {
		return err
	}
	if cfg.RedisURL == "" {
		// This process is the only one that uses the embedded Redis:
		// a job still running there ran in a process that was killed.
		n, err := jobqueue.ReleaseLeases(ctx, b.redis, time.Now(), tasks.Names()...)
		if err != nil {
			return err
		}
		if n > 0 {
			log.Info("jobs of a stopped run released", slog.Int("jobs", n))
		}
	}
	p.start(func() error { d.Relay.Run(runCtx); return nil })
	p.start(func() error {
		if err := srv.Run(runCtx); err != nil {
			return fmt.Errorf("workers: %w", err)
		}
		return nil
	})
	log.Info("workers started", slog.Int("concurrency", cfg.WorkerConcurrency))
	return nil
}

// shutDown stops the API (if any) within timeout and waits, a little
// longer, for the other processes to end.
func shutDown(api *fiber.App, p *processes, timeout time.Duration, log *slog.Logger) {
	if api != nil {
		if err := api.ShutdownWithTimeout(timeout); err != nil {
			log.Warn("http shutdown", slog.Any("err", err))
		}
		log.Info("http stopped")
	}
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		log.Info("stopped")
	case <-time.After(timeout + 5*time.Second):
		log.Warn("shutdown timed out")
	}
}
