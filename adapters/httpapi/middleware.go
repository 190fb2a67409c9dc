package httpapi

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feria/feria/core/kernel"
)

const requestIDKey = "httpapi.request_id"

// RequestIDs echoes a caller's X-Request-Id (when it is sane) or makes one,
// and returns it on the answer.
func RequestIDs() fiber.Handler {
	return func(c *fiber.Ctx) error {
		id := c.Get(fiber.HeaderXRequestID)
		if id == "" || len(id) > 128 {
			id = uuid.NewString()
		} else {
			id = string([]byte(id)) // fiber reuses header buffers
		}
		c.Locals(requestIDKey, id)
		c.Set(fiber.HeaderXRequestID, id)
		return c.Next()
	}
}

// RequestID returns the id of the request.
func RequestID(c *fiber.Ctx) string {
	id, _ := c.Locals(requestIDKey).(string)
	return id
}

// Recover turns a panic into a 500 of the route's shape and logs the stack.
func Recover(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("panic", slog.String("request_id", RequestID(c)),
					slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
				err = &kernel.Error{Kind: kernel.Internal, Err: fmt.Errorf("panic: %v", r)}
			}
		}()
		return c.Next()
	}
}

// Metrics are the HTTP metrics of the service.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

// NewMetrics registers the HTTP metrics in reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feria_http_requests_total", Help: "HTTP requests by method, route template and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "feria_http_request_duration_seconds", Help: "HTTP request latency by method and route template.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"method", "route"}),
	}
	reg.MustRegister(m.requests, m.latency)
	return m
}

// maskedPath is the request's path with every credential replaced, so that
// the access log never holds one: the value of a path parameter named like
// a token or key (DELETE /sandbox/tokens/:token), and the segment after a
// "tokens" segment, which a request refused before routing (a wrong sandbox
// key) carries without any parameter known.
func maskedPath(c *fiber.Ctx) string {
	path := c.Path()
	for _, name := range c.Route().Params {
		lower := strings.ToLower(name)
		if !strings.Contains(lower, "token") && !strings.Contains(lower, "key") {
			continue
		}
		if v := c.Params(name); v != "" {
			path = strings.ReplaceAll(path, v, "xxxxx")
		}
	}
	segs := strings.Split(path, "/")
	for i := 0; i+1 < len(segs); i++ {
		if segs[i] == "tokens" && segs[i+1] != "" {
			segs[i+1] = "xxxxx"
		}
	}
	return strings.Join(segs, "/")
}

// AccessLog logs one JSON line per request and records its metrics. It runs
// outside the error handler's reach, so it renders errors itself first to
// know the final status.
func AccessLog(log *slog.Logger, m *Metrics, onError fiber.ErrorHandler) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := onError(c, err); herr != nil {
				return herr
			}
		}
		elapsed := time.Since(start)
		status := c.Response().StatusCode()
		route := c.Route().Path
		// Label values live as long as the registry: cloned, so that they
		// hold even on an app without fiber's Immutable setting.
		method := strings.Clone(c.Method())
		if m != nil {
			m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
			m.latency.WithLabelValues(method, route).Observe(elapsed.Seconds())
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		// The line's attributes (the masked path above all) are built only
		// when it is written: LOG_LEVEL=warn drops every answered request.
		if ctx := c.UserContext(); log.Enabled(ctx, level) {
			log.LogAttrs(ctx, level, "request",
				slog.String("request_id", RequestID(c)),
				slog.String("method", method),
				slog.String("path", maskedPath(c)),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
				slog.Int("bytes", len(c.Response().Body())),
			)
		}
		return nil
	}
}

const baseKey = "httpapi.base"

// WithBase makes Base answer base for every request of the app: a world's
// base path, which every URL the service writes for it carries.
func WithBase(base string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(baseKey, base)
		return c.Next()
	}
}

// Base is what leads the paths of the URLs an answer writes: empty in the
// default world.
func Base(c *fiber.Ctx) string {
	b, _ := c.Locals(baseKey).(string)
	return b
}
