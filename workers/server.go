// Package workers runs feria's job handlers on asynq: one server (a shared
// one and one per lane) that each module registers its handlers with, in
// the worker process (or in "all").
package workers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feria/feria/workers/tasks"
)

// Metrics counts the jobs a process handled. It is registered once per
// process, however many servers the process starts and stops.
type Metrics struct{ jobs *prometheus.CounterVec }

// NewMetrics registers the job metrics in reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "feria_jobs_processed_total", Help: "Jobs processed by this process, by type and result.",
	}, []string{"type", "result"})}
	reg.MustRegister(m.jobs)
	return m
}

// Server is feria's job servers: asynq's server of the shared queues
// (tasks.Queues), one of the worlds' lanes of them (tasks.WorldQueue) and
// one per lane (tasks.Lanes, with its worlds' lanes), all with feria's logging,
// metrics and retry rules, and one set of handlers.
type Server struct {
	srvs  []*asynq.Server
	mux   *asynq.ServeMux
	sched *asynq.Scheduler
	log   *slog.Logger
	jobs  *prometheus.CounterVec
	world WorldJobs
}

// WorldJobs is how a job of a world (its task id says which,
// tasks.WorldOf) reaches that world's handlers: h runs it, release ends
// its use of the world. A world that no longer exists is a nil h and no
// error: its jobs are let go.
type WorldJobs func(ctx context.Context, world string) (h asynq.Handler, release func(), err error)

// Config shapes the job server.
type Config struct {
	Concurrency int
	// ShutdownTimeout bounds how long in-flight jobs may run after a stop
	// signal before they are handed back to the queue.
	ShutdownTimeout time.Duration
	// RetryDelay, when positive, is the wait before every retry of a failed
	// job, or of a job whose worker died; zero keeps asynq's growing backoff
	// (15-45 s before the first retry). Tests shorten it.
	RetryDelay time.Duration
	// DelayedCheck is how often due retries and scheduled jobs move back to
	// their queue; zero is asynq's 5 s. Lanes poll at their own pace.
	DelayedCheck time.Duration
	// Worlds runs the jobs of worlds other than the default one; nil runs
	// every job with the handlers registered here.
	Worlds WorldJobs
}

// later is an error that asks for the job to run again after a while
// (webhooksport.Later): not a failure, so asynq counts no retry for it.
type later interface{ RetryIn() time.Duration }

func retryIn(err error) (time.Duration, bool) {
	var l later
	if errors.As(err, &l) {
		return l.RetryIn(), true
	}
	return 0, false
}

// NewServer returns a server on redis.
func NewServer(redis asynq.RedisConnOpt, cfg Config, log *slog.Logger, m *Metrics) *Server {
	s := &Server{mux: asynq.NewServeMux(), log: log, jobs: m.jobs, world: cfg.Worlds}
	retryDelay := func(n int, err error, t *asynq.Task) time.Duration {
		if d, ok := retryIn(err); ok {
			return d
		}
		if cfg.RetryDelay > 0 {
			return cfg.RetryDelay
		}
		return asynq.DefaultRetryDelayFunc(n, err, t)
	}
	base := asynq.Config{
		ShutdownTimeout: cfg.ShutdownTimeout,
		RetryDelayFunc:  retryDelay,
		IsFailure:       func(err error) bool { _, ok := retryIn(err); return !ok },
		Logger:          newAsynqLogger(log),
		ErrorHandler: asynq.ErrorHandlerFunc(func(ctx context.Context, t *asynq.Task, err error) {
			if _, ok := retryIn(err); ok {
				log.Debug("job again later", slog.String("type", t.Type()), slog.Any("why", err))
				return
			}
			retried, _ := asynq.GetRetryCount(ctx)
			maxRetry, _ := asynq.GetMaxRetry(ctx)
			log.Warn("job failed", slog.String("type", t.Type()), slog.Int("retried", retried),
				slog.Int("max_retry", maxRetry), slog.Any("err", err))
		}),
	}
	shared := base
	shared.Concurrency, shared.Queues, shared.DelayedTaskCheckInterval = cfg.Concurrency, tasks.Queues, cfg.DelayedCheck
	s.srvs = append(s.srvs, asynq.NewServer(redis, shared))
	if cfg.Worlds != nil {
		// The worlds' lanes of the shared queues have workers of their own:
		// the default world's jobs never wait behind a world's, nor take
		// the turns of the lanes' polling, one round trip per empty lane.
		worlds := shared
		worlds.Queues = tasks.WorldWeights(tasks.Queues)
		s.srvs = append(s.srvs, asynq.NewServer(redis, worlds))
	}
	for _, l := range tasks.Lanes {
		lane := base
		lane.Concurrency, lane.Queues = l.Concurrency, map[string]int{l.Queue: 1}
		if cfg.Worlds != nil {
			maps.Copy(lane.Queues, tasks.WorldWeights(lane.Queues))
		}
		lane.TaskCheckInterval, lane.DelayedTaskCheckInterval = l.Poll, l.Poll
		s.srvs = append(s.srvs, asynq.NewServer(redis, lane))
	}
	s.mux.Use(s.observe, s.route)
	s.sched = asynq.NewScheduler(redis, &asynq.SchedulerOpts{Location: time.UTC, Logger: newAsynqLogger(log)})
	return s
}

// Every enqueues a task of taskType on queue at every tick of spec (a cron
// spec or "@every 1h"). Each worker process schedules it; the uniqueness
// lock keeps several processes from queueing one tick's task twice.
func (s *Server) Every(spec, taskType, queue string) error {
	_, err := s.sched.Register(spec, asynq.NewTask(taskType, nil), asynq.Queue(queue), asynq.Unique(time.Minute))
	return err
}

// Handle registers the handler of a task type.
func (s *Server) Handle(taskType string, h asynq.Handler) { s.mux.Handle(taskType, h) }

// Run processes jobs until ctx ends, then lets in-flight jobs finish, on
// every server at once.
func (s *Server) Run(ctx context.Context) error {
	for i, srv := range s.srvs {
		if err := srv.Start(s.mux); err != nil {
			for _, started := range s.srvs[:i] {
				started.Shutdown()
			}
			return err
		}
	}
	if err := s.sched.Start(); err != nil {
		for _, srv := range s.srvs {
			srv.Shutdown()
		}
		return err
	}
	<-ctx.Done()
	s.sched.Shutdown()
	var wg sync.WaitGroup
	for _, srv := range s.srvs {
		wg.Add(1)
		go func() { defer wg.Done(); srv.Shutdown() }()
	}
	wg.Wait()
	return nil
}

// Ping checks that the queue's Redis answers.
func (s *Server) Ping() error { return s.srvs[0].Ping() }

// route runs a world's job with that world's handlers.
func (s *Server) route(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		id, _ := asynq.GetTaskID(ctx)
		world := tasks.WorldOf(id)
		if world == "" || s.world == nil {
			return next.ProcessTask(ctx, t)
		}
		h, release, err := s.world(ctx, world)
		if err != nil {
			return err
		}
		if h == nil {
			s.log.Info("job of a removed world let go", slog.String("world", world), slog.String("type", t.Type()), slog.String("id", id))
			return nil
		}
		defer release()
		return h.ProcessTask(ctx, t)
	})
}

func (s *Server) observe(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) error {
		start := time.Now()
		err := next.ProcessTask(ctx, t)
		result := "ok"
		if _, ok := retryIn(err); ok {
			result = "later"
		} else if err != nil {
			result = "error"
		}
		s.jobs.WithLabelValues(t.Type(), result).Inc()
		id, _ := asynq.GetTaskID(ctx)
		s.log.Info("job", slog.String("type", t.Type()), slog.String("id", id), slog.String("world", tasks.WorldOf(id)), slog.String("result", result),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000))
		return err
	})
}

// QueueCollector exports the size of every queue by state, read from Redis
// at scrape time so that the API process can show it too.
type QueueCollector struct {
	insp *asynq.Inspector
	desc *prometheus.Desc
}

// NewQueueCollector returns a collector reading through insp.
func NewQueueCollector(insp *asynq.Inspector) *QueueCollector {
	return &QueueCollector{insp: insp, desc: prometheus.NewDesc("feria_jobs_queued",
		"Jobs in each queue by state.", []string{"queue", "state"}, nil)}
}

func (q *QueueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- q.desc }

func (q *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	// feria's own queues are always reported, at zero before first use.
	names := map[string]bool{}
	for _, name := range tasks.Names() {
		names[name] = true
	}
	if more, err := q.insp.Queues(); err == nil {
		for _, name := range more {
			names[name] = true
		}
	}
	for name := range names {
		var info asynq.QueueInfo
		if got, err := q.insp.GetQueueInfo(name); err == nil {
			info = *got
		}
		for state, n := range map[string]int{"pending": info.Pending, "active": info.Active, "scheduled": info.Scheduled,
			"retry": info.Retry, "archived": info.Archived, "completed": info.Completed} {
			ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), name, state)
		}
	}
}

// asynqLogger routes asynq's own log lines through slog: what asynq says
// is the line's message (asynq passes it as fmt.Sprint's arguments), and
// "component" says who said it.
type asynqLogger struct{ log *slog.Logger }

func newAsynqLogger(log *slog.Logger) asynqLogger {
	return asynqLogger{log.With(slog.String("component", "asynq"))}
}

func (l asynqLogger) Debug(args ...any) { l.log.Debug(fmt.Sprint(args...)) }
func (l asynqLogger) Info(args ...any)  { l.log.Info(fmt.Sprint(args...)) }
func (l asynqLogger) Warn(args ...any)  { l.log.Warn(fmt.Sprint(args...)) }
func (l asynqLogger) Error(args ...any) { l.log.Error(fmt.Sprint(args...)) }

// Fatal is logged as an error: asynq exits the process after it.
func (l asynqLogger) Fatal(args ...any) { l.log.Error(fmt.Sprint(args...), slog.Bool("fatal", true)) }
