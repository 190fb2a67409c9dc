package sandboxapi

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/sandboxport"
)

// Clock is the sandbox clock.
type Clock interface {
	Now() time.Time
	Frozen() (time.Time, bool)
	Freeze(ctx context.Context, at *time.Time) error
}

// Config is what the sandbox routes need.
type Config struct {
	Key string
	// Collections are every module's collections in the order docs/sandbox.md
	// applies fixtures in (users first, contact events last).
	Collections []Collection
	// Resets empty every store of the sandbox's data on DELETE /sandbox, in order:
	// the database first, then what lives beside it.
	Resets []sandboxport.Resetter
	Tx     kernel.Tx
	Clock  Clock
	// Extra mounts routes that need the key but are not collections (tokens).
	Extra func(r fiber.Router)
}

var (
	errKey      = kernel.E(kernel.Unauthenticated, "unauthorized", "missing or wrong X-Sandbox-Key header")
	errFixtures = kernel.E(kernel.Invalid, "bad_request", "invalid fixtures")
)

// Mount serves the sandbox under /sandbox.
func Mount(app *fiber.App, cfg Config) {
	s := &server{cfg: cfg}
	r := app.Group("/sandbox", httpapi.UseShape(httpapi.ShapeDefault), s.checkKey)
	r.Delete("/", s.reset)
	r.Post("/fixtures", s.fixtures)
	r.Get("/clock", s.getClock)
	r.Put("/clock", s.putClock)
	if cfg.Extra != nil {
		cfg.Extra(r)
	}
	for _, c := range cfg.Collections {
		c := c
		if c.Put != nil {
			r.Put("/"+c.Path+"/:id", func(ctx *fiber.Ctx) error { return s.put(ctx, c) })
		}
		if c.Get != nil {
			r.Get("/"+c.Path+"/:id", func(ctx *fiber.Ctx) error {
				v, err := c.Get(ctx.UserContext(), httpapi.Param(ctx, "id"))
				if err != nil {
					return err
				}
				return ctx.JSON(v)
			})
		}
		if c.Batch != nil {
			// A batch runs outside a transaction: the contact events' only
			// read the database (the items' sellers) and then count in Redis,
			// idempotently; a transaction would hold a database connection
			// open across that network call and protect nothing.
			r.Post("/"+c.Path, func(ctx *fiber.Ctx) error {
				v, err := c.Batch(ctx.UserContext(), ctx.Body())
				if err != nil {
					return err
				}
				return ctx.JSON(v)
			})
		}
	}
}

type server struct {
	cfg Config
}

func (s *server) checkKey(c *fiber.Ctx) error {
	got := c.Get("X-Sandbox-Key")
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Key)) != 1 {
		return errKey
	}
	return c.Next()
}

func (s *server) put(c *fiber.Ctx, col Collection) error {
	id := httpapi.Param(c, "id")
	body := append([]byte(nil), c.Body()...)
	var out any
	err := s.cfg.Tx.RunInTx(c.UserContext(), func(ctx context.Context) error {
		v, err := col.Put(ctx, id, body)
		if err != nil {
			return err
		}
		if d, ok := v.(Deferred); ok {
			v, err = d.Apply(ctx)
		}
		out = v
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(out)
}

// fixtures applies a whole fixtures body in one transaction (Load).
func (s *server) fixtures(c *fiber.Ctx) error {
	if len(strings.TrimSpace(string(c.Body()))) == 0 {
		return httpapi.ErrBadBody.With("request body is empty").WithCause("body", "a JSON body is required")
	}
	loaded, err := Load(c.UserContext(), s.cfg.Tx, s.cfg.Collections, c.Body())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"loaded": loaded})
}

// Load applies a fixtures body (POST /sandbox/fixtures, or the fixtures
// file read at start-up) in one transaction: every entry is written, in the
// order of collections, then what lives outside the database is applied;
// any failure rolls the database back and leaves the rest untouched. The
// error of a bad entry names its collection and index.
func Load(ctx context.Context, tx kernel.Tx, collections []Collection, raw []byte) (map[string]int, error) {
	byName := map[string]Collection{}
	for _, c := range collections {
		byName[c.Name] = c
	}
	var body map[string][]json.RawMessage
	if err := httpapi.DecodeJSON(raw, &body); err != nil {
		return nil, err
	}
	for name := range body {
		if _, ok := byName[name]; !ok || byName[name].Put == nil {
			return nil, errFixtures.Withf("unknown collection %q", name).WithCause(name, "unknown collection")
		}
	}
	loaded := map[string]int{}
	err := tx.RunInTx(ctx, func(ctx context.Context) error {
		var deferred []Deferred
		for _, col := range collections {
			name := col.Name
			for _, i := range lockOrder(col, body[name]) {
				v, err := putEntry(ctx, col, body[name][i])
				if err != nil {
					return entryError(name, i, err)
				}
				if d, ok := v.(Deferred); ok {
					deferred = append(deferred, d)
				}
				loaded[name]++
			}
		}
		for _, d := range deferred {
			if _, err := d.Apply(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return loaded, nil
}

// lockOrder is the order entries are written in: by the collection's
// LockKey when it has one, else as sent.
func lockOrder(col Collection, entries []json.RawMessage) []int {
	order := make([]int, len(entries))
	for i := range order {
		order[i] = i
	}
	if col.LockKey == nil {
		return order
	}
	keys := make([]string, len(entries))
	for i, raw := range entries {
		keys[i] = col.LockKey(raw)
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	return order
}

// putEntry takes the id out of a fixtures entry and puts the rest.
func putEntry(ctx context.Context, col Collection, raw json.RawMessage) (any, error) {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, kernel.E(kernel.Invalid, "bad_request", "entry must be a JSON object").WithCause("id", err.Error())
	}
	var id string
	if err := json.Unmarshal(head.ID, &id); err != nil {
		var n json.Number
		if err := json.Unmarshal(head.ID, &n); err != nil || n == "" {
			return nil, kernel.E(kernel.Invalid, "bad_request", "entry needs an id (string or integer)").WithCause("id", "id is required")
		}
		id = n.String()
	}
	return col.Put(ctx, id, raw)
}

// entryError names the collection and index of a bad entry in the message
// and the causes, whatever the entry's own error was.
func entryError(name string, i int, err error) error {
	where := fmt.Sprintf("%s[%d]", name, i)
	e, ok := err.(*kernel.Error)
	if !ok || e.Kind == kernel.Internal || e.Kind == kernel.Unavailable {
		return err
	}
	out := errFixtures.Withf("%s: %s", where, e.Message).WithCause(where, e.Message)
	for _, c := range e.Causes {
		out = out.WithCause(where+"."+c.Code, c.Message)
	}
	return out
}

// reset removes every resource, counter, file, message and queued job.
func (s *server) reset(c *fiber.Ctx) error {
	ctx := c.UserContext()
	for _, r := range s.cfg.Resets {
		if err := r.Reset(ctx); err != nil {
			return err
		}
	}
	if err := s.cfg.Clock.Freeze(ctx, nil); err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

type clockBody struct {
	Now    *string `json:"now"`
	Frozen bool    `json:"frozen"`
}

func (s *server) getClock(c *fiber.Ctx) error {
	at, frozen := s.cfg.Clock.Frozen()
	if !frozen {
		at = s.cfg.Clock.Now()
	}
	now := at.UTC().Format(time.RFC3339Nano)
	return c.JSON(clockBody{Now: &now, Frozen: frozen})
}

func (s *server) putClock(c *fiber.Ctx) error {
	var body struct {
		Now *string `json:"now"`
	}
	if err := httpapi.BindJSON(c, &body); err != nil {
		return err
	}
	var at *time.Time
	if body.Now != nil {
		t, err := time.Parse(time.RFC3339Nano, *body.Now)
		if err != nil {
			return kernel.E(kernel.Invalid, "bad_request", "now must be an ISO 8601 date-time such as 2026-11-20T12:00:00Z, or null").
				WithCause("now", "not an ISO 8601 date-time: "+strconv.Quote(*body.Now))
		}
		at = &t
	}
	if err := s.cfg.Clock.Freeze(c.UserContext(), at); err != nil {
		return err
	}
	return s.getClock(c)
}
