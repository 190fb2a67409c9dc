// Package controlapi serves the sandbox's test controls (docs/sandbox.md
// "Faults, rate limits and the request journal"): two middlewares on every
// public request (the journal around everything, counting the request in
// the coverage, then the guard that applies fault rules and rate limits
// before the route) and the /sandbox/faults, /sandbox/rate_limits,
// /sandbox/requests and /sandbox/coverage routes.
//
// Cost on a public request when no rule matches: nothing before the route
// (the rules are held by each process and dropped when a change is
// announced: controlredis) and a share of one pipelined LPUSH+LTRIM (and
// the coverage's HINCRBY) after it, sent once for every request waiting
// at that moment (controlredis's group commit: alone, a request waits for
// a round trip of its own; under load one round trip serves many); a
// matching rate limit adds its GCRA script, a matching fault rule its use.
// Without the sandbox (production) the rules cannot change, so none of
// that is read or written: the limits are RATE_LIMITS, and a request no
// limit matches costs no round trip at all.
// While Redis cannot be reached the controls step aside: the request is
// answered as if no rule existed, without a journal entry, and the failure
// is logged and counted (feria_sandbox_controls_unavailable_total).
package controlapi

import (
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/ports/controlport"
)

// Config is what the controls need.
type Config struct {
	Service controlport.Service
	Auth    httpapi.Auth
	Log     *slog.Logger
	// Registry receives the controls' metrics.
	Registry prometheus.Registerer
	// Operations name the operation a request reached, for its coverage.
	Operations *control.Operations
	// OnError renders a route's error, so that the journal knows the
	// final status.
	OnError fiber.ErrorHandler
	// Sandbox: the sandbox is served, so fault rules apply and the journal
	// is written (without it nobody can set the one or read the other);
	// rate limits apply either way.
	Sandbox bool
	// OverQuota is the answer to a request while its world is over its
	// requests a minute (Snapshot.OverQuota); nil in the default world,
	// which has no such quota.
	OverQuota error
}

// Controls are the middlewares of the test controls.
type Controls struct {
	cfg    Config
	m      metrics
	shapes *httpapi.Shapes
}

type metrics struct {
	faults      *prometheus.CounterVec
	limited     *prometheus.CounterVec
	unavailable *prometheus.CounterVec
}

// New registers the controls' metrics.
func New(cfg Config) *Controls {
	m := metrics{
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feria_sandbox_faults_total",
			Help: "Public requests answered by a sandbox fault rule, by rule id, method and path pattern, and the status answered (0: delayed only).",
		}, []string{"fault_id", "method", "path", "status"}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feria_rate_limited_total",
			Help: "Public requests refused by a rate limit, by the limit's method and path pattern.",
		}, []string{"method", "path"}),
		unavailable: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "feria_sandbox_controls_unavailable_total",
			Help: "Public requests on which a control (rules, faults, limits, journal) was skipped because its store failed.",
		}, []string{"control"}),
	}
	cfg.Registry.MustRegister(m.faults, m.limited, m.unavailable)
	return &Controls{cfg: cfg, m: m}
}

const (
	faultKey   = "controlapi.fault"
	limitedKey = "controlapi.limited"
	limitKey   = "controlapi.limit"
)

// rawPath is the path as the client sent it, without its query: what
// rules match and the journal shows.
func rawPath(c *fiber.Ctx) string {
	return string(c.Request().URI().PathOriginal())
}

// Journal writes every public request to the journal before its answer
// leaves: it runs around everything else (faults, limits, panics turned
// into 500s, unknown paths), rendering the error of the request itself so
// that it knows the final status.
func (x *Controls) Journal() fiber.Handler {
	if !x.cfg.Sandbox {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	return func(c *fiber.Ctx) error {
		path := rawPath(c)
		if !control.Public(path) {
			return c.Next()
		}
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := x.cfg.OnError(c, err); herr != nil {
				return herr
			}
		}
		e := control.Entry{
			ID:         httpapi.RequestID(c),
			At:         start.UTC(),
			Method:     strings.Clone(c.Method()),
			Path:       path,
			Query:      control.MaskQuery(string(c.Request().URI().QueryString())),
			Status:     c.Response().StatusCode(),
			DurationMS: float64(time.Since(start).Microseconds()) / 1000,
		}
		if caller := x.cfg.Auth.CallerOf(c); caller != nil {
			id := caller.UserID
			e.UserID = &id
		}
		if id, ok := c.Locals(faultKey).(int64); ok {
			e.FaultID = &id
		}
		if op, ok := x.cfg.Operations.Match(e.Method, path); ok {
			e.Operation = op.Key()
		}
		e.RateLimited, _ = c.Locals(limitedKey).(bool)
		e.Detail = detailOf(c)
		if err := x.cfg.Service.Record(c.UserContext(), e); err != nil {
			x.unavailable(c, "journal", err)
		}
		return nil
	}
}

// Guard applies a world's requests a minute, the fault rules, then the
// rate limits (docs/sandbox.md: a fault rule is applied before rate
// limits), on public requests, before the route runs. app is the app whose routes a fault's error shape is
// taken from.
func (x *Controls) Guard(app *fiber.App) fiber.Handler {
	x.shapes = httpapi.NewShapes(app)
	return func(c *fiber.Ctx) error {
		path := rawPath(c)
		if !control.Public(path) {
			return c.Next()
		}
		ctx := c.UserContext()
		// Without the sandbox nobody can change the rules: the limits are
		// RATE_LIMITS (the snapshot's defaults) and nothing is read.
		var rules controlport.Snapshot
		if x.cfg.Sandbox {
			var err error
			if rules, err = x.cfg.Service.Rules(ctx); err != nil {
				x.unavailable(c, "rules", err)
				return c.Next()
			}
		}
		if rules.OverQuota > 0 && x.cfg.OverQuota != nil {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int((rules.OverQuota+time.Second-1)/time.Second)))
			return x.cfg.OverQuota
		}
		method := c.Method()
		if x.cfg.Sandbox && len(rules.Faults) > 0 {
			f, err := x.cfg.Service.Fault(ctx, rules, method, path)
			if err != nil {
				x.unavailable(c, "faults", err)
			} else if f != nil {
				if done, err := x.fault(c, f, method, path); done {
					return err
				}
			}
		}
		lim, err := x.cfg.Service.Allow(ctx, rules, method, path, func() string {
			return control.CallerKey(x.cfg.Auth.CallerOf(c), c.IP())
		})
		if err != nil {
			x.unavailable(c, "limits", err)
			return c.Next()
		}
		if !lim.Allowed {
			x.m.limited.WithLabelValues(methodLabel(lim.Rule.Method), lim.Rule.Path).Inc()
			c.Locals(limitedKey, true)
			c.Locals(limitKey, lim.Rule)
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(lim.RetryAfterSeconds()))
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
			return c.Status(fiber.StatusTooManyRequests).SendString(control.TooManyRequests)
		}
		return c.Next()
	}
}

// fault waits the rule's delay, then answers its error in the shape of the
// route the request would have reached; done is false for a delay-only
// rule, whose request goes on.
func (x *Controls) fault(c *fiber.Ctx, f *control.Fault, method, path string) (done bool, err error) {
	c.Locals(faultKey, f.ID)
	x.m.faults.WithLabelValues(strconv.FormatInt(f.ID, 10), methodLabel(f.Method), f.Path, strconv.Itoa(f.Status)).Inc()
	if f.LatencyMS > 0 {
		time.Sleep(f.Latency())
	}
	if f.Status == 0 {
		return false, nil
	}
	if f.Status == fiber.StatusTooManyRequests {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(f.RetryAfter))
	}
	return true, httpapi.WriteError(c, x.shapes.Of(method, path), f.Status, f.Error, f.Message, nil)
}

func methodLabel(m *string) string {
	if m == nil {
		return "any"
	}
	return *m
}

// unavailable records a control skipped because its store failed: the
// request goes on as if no rule existed (fail open), so that an outage of
// the controls' Redis never turns into a refused or hanging request.
func (x *Controls) unavailable(c *fiber.Ctx, control string, err error) {
	x.m.unavailable.WithLabelValues(control).Inc()
	x.cfg.Log.WarnContext(c.UserContext(), "sandbox control skipped: its store is unavailable",
		slog.String("control", control), slog.String("request_id", httpapi.RequestID(c)), slog.Any("err", err))
}

// detailOf is what the journal keeps of the exchange: both sides' headers
// and bodies, masked and bounded (control.MaskHeader, control.MaskBody),
// and the rate limit that refused it.
func detailOf(c *fiber.Ctx) *control.Detail {
	req, res := c.Request(), c.Response()
	d := &control.Detail{}
	d.RateLimit, _ = c.Locals(limitKey).(*control.RateLimit)
	req.Header.VisitAll(func(k, v []byte) {
		d.Request.Headers = append(d.Request.Headers, control.Header{Name: string(k), Value: control.MaskHeader(string(k), string(v))})
	})
	res.Header.VisitAll(func(k, v []byte) {
		d.Response.Headers = append(d.Response.Headers, control.Header{Name: string(k), Value: control.MaskHeader(string(k), string(v))})
	})
	body := req.Body()
	d.Request.Size = len(body)
	d.Request.Body, d.Request.Truncated = control.MaskBody(string(req.Header.ContentType()), body)
	if res.IsBodyStream() {
		d.Response.Body = "(streamed body not kept)"
		return d
	}
	body = res.Body()
	d.Response.Size = len(body)
	d.Response.Body, d.Response.Truncated = control.MaskBody(string(res.Header.ContentType()), body)
	return d
}
