// Package consoleapi serves the sandbox's console (GET /console): pages
// rendered on the server with html/template, made live by htmx (embedded
// from assets/, no network needed), opened with the sandbox key. A login
// sets an HMAC-signed session cookie (HttpOnly, SameSite=Strict, Secure
// over TLS), valid for 12 hours or until the key changes; every form
// carries a CSRF token derived from the session and checked on every POST.
// Without a valid session every page but the login redirects to it.
// The console reads the journal and the coverage from the controls and
// changes the world through the sandbox API itself (Config.Sandbox), so
// that it does exactly what a client of that API could.
package consoleapi

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"html/template"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/ports/controlport"
)

//go:embed console.html
var pages embed.FS

//go:embed assets/htmx.min.js assets/console.css
var assets embed.FS

var tmpl = template.Must(template.ParseFS(pages, "console.html"))

// Config is what the console needs.
type Config struct {
	// Key is the world's sandbox key: the login's password and the
	// sessions' signing secret.
	Key      string
	Controls controlport.Service
	// Sandbox calls the sandbox API in process (the key is added):
	// method, path under /sandbox, body and its content type; it returns
	// the status and the body answered.
	Sandbox func(ctx context.Context, method, path, contentType string, body []byte) (int, []byte, error)
	// World counts and lists the world's resources.
	World World
	// Name is the world's name ("" for the default world).
	Name string
}

// World is what the World page reads of the storage: counts per
// collection and the ids of one.
type World interface {
	Counts(ctx context.Context) ([]Count, error)
	// IDs lists at most limit ids of a collection containing q, in order.
	IDs(ctx context.Context, collection, q string, limit int) ([]string, error)
}

// Count is one collection's number of resources.
type Count struct {
	Name  string
	Count int64
}

const (
	cookieName  = "feria_console"
	loginCookie = "feria_console_login"
	sessionLife = 12 * time.Hour
)

type console struct {
	cfg    Config
	secret []byte
}

// Routes serves the console under /console: one catch-all route, as the
// contract documents it (like the jobs dashboard), leading to the
// console's own app, New. onError renders what a page returns.
func Routes(app fiber.Router, cfg Config, onError fiber.ErrorHandler) {
	h := New(cfg, onError).Handler()
	serve := func(c *fiber.Ctx) error {
		h(c.Context())
		return nil
	}
	app.All("/console", serve)
	app.All("/console/*", serve)
}

// New is the console's app: its pages and forms.
func New(cfg Config, onError fiber.ErrorHandler) *fiber.App {
	sum := sha256.Sum256([]byte("feria console\x00" + cfg.Key))
	x := &console{cfg: cfg, secret: sum[:]}
	app := fiber.New(fiber.Config{Immutable: true, DisableStartupMessage: true, ErrorHandler: onError,
		DisablePreParseMultipartForm: true, BodyLimit: 4 << 20})
	r := app.Group("/console")
	r.Get("/assets/:name", x.asset)
	r.Get("/login", x.loginPage)
	r.Post("/login", x.login)
	r.Use(x.session)
	r.Get("/", func(c *fiber.Ctx) error { return c.Redirect(x.base(c)+"/requests", fiber.StatusSeeOther) })
	r.Post("/logout", x.logout)
	r.Get("/requests", x.requests)
	r.Get("/requests/rows", x.rows)
	r.Get("/requests/:id", x.request)
	r.Get("/notifications", x.notifications)
	r.Post("/notifications/resend", x.resend)
	r.Get("/world", x.world)
	r.Post("/world/fixtures", x.fixtures)
	r.Post("/world/reset", x.reset)
	r.Get("/controls", x.controls)
	r.Post("/controls/faults", x.addFault)
	r.Post("/controls/faults/:id/delete", x.deleteFault)
	r.Post("/controls/rate_limits", x.rateLimits)
	r.Post("/controls/clock", x.clock)
	r.Get("/coverage", x.coverage)
	r.Use(func(c *fiber.Ctx) error {
		return c.Status(fiber.StatusNotFound).SendString("no such page of the console")
	})
	return app
}

// base is the console's own path: the world's base, then /console.
func (x *console) base(c *fiber.Ctx) string { return httpapi.Base(c) + "/console" }

func (x *console) asset(c *fiber.Ctx) error {
	name := c.Params("name")
	raw, err := assets.ReadFile("assets/" + name)
	if err != nil || strings.Contains(name, "/") {
		return c.Status(fiber.StatusNotFound).SendString("not found")
	}
	if strings.HasSuffix(name, ".css") {
		c.Set(fiber.HeaderContentType, "text/css; charset=utf-8")
	} else {
		c.Set(fiber.HeaderContentType, "text/javascript; charset=utf-8")
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(raw)
}

func (x *console) sign(parts ...string) string {
	m := hmac.New(sha256.New, x.secret)
	m.Write([]byte(strings.Join(parts, "|")))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// token is a session's cookie value: its expiry, a nonce and their
// signature.
func (x *console) token(now time.Time) string {
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	exp := strconv.FormatInt(now.Add(sessionLife).Unix(), 10)
	n := hex.EncodeToString(nonce)
	return exp + "." + n + "." + x.sign("session", exp, n)
}

// valid reports whether a cookie value is a live session of this key.
func (x *console) valid(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	exp, err := strconv.ParseInt(parts[0], 10, 64)
	if err != nil || time.Now().Unix() > exp {
		return false
	}
	return hmac.Equal([]byte(parts[2]), []byte(x.sign("session", parts[0], parts[1])))
}

// csrf is the token every form of a session carries.
func (x *console) csrf(session string) string { return x.sign("csrf", session) }

func (x *console) setCookie(c *fiber.Ctx, name, value string, expires time.Time) {
	c.Cookie(&fiber.Cookie{Name: name, Value: value, Path: x.base(c), Expires: expires, HTTPOnly: true,
		SameSite: fiber.CookieSameSiteStrictMode, Secure: c.Protocol() == "https"})
}

// session lets a request with a live session through, checking the CSRF
// token of a POST (a form field csrf, or htmx's X-CSRF-Token header);
// without one it redirects to the login.
func (x *console) session(c *fiber.Ctx) error {
	v := c.Cookies(cookieName)
	if !x.valid(v) {
		return c.Redirect(x.base(c)+"/login", fiber.StatusSeeOther)
	}
	if c.Method() == fiber.MethodPost {
		got := c.Get("X-CSRF-Token")
		if got == "" {
			got = c.FormValue("csrf")
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(x.csrf(v))) != 1 {
			return x.render(c.Status(fiber.StatusForbidden), "login", "Forbidden", view{Error: "The form's CSRF token is missing or wrong: reload the page and send it again."})
		}
	}
	c.Locals("console.csrf", x.csrf(v))
	return c.Next()
}

func (x *console) loginPage(c *fiber.Ctx) error {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	n := hex.EncodeToString(nonce)
	x.setCookie(c, loginCookie, n, time.Time{})
	return x.render(c, "login", "Log in", view{Data: n})
}

func (x *console) login(c *fiber.Ctx) error {
	n := c.Cookies(loginCookie)
	if n == "" || subtle.ConstantTimeCompare([]byte(c.FormValue("csrf")), []byte(n)) != 1 {
		return x.render(c.Status(fiber.StatusForbidden), "login", "Log in", view{Error: "The login form expired: open it again.", Data: ""})
	}
	key := c.FormValue("key")
	if key == "" || subtle.ConstantTimeCompare([]byte(key), []byte(x.cfg.Key)) != 1 {
		return x.render(c.Status(fiber.StatusUnauthorized), "login", "Log in", view{Error: "That is not this world's sandbox key.", Data: n})
	}
	x.setCookie(c, loginCookie, "", time.Unix(1, 0))
	x.setCookie(c, cookieName, x.token(time.Now()), time.Now().Add(sessionLife))
	return c.Redirect(x.base(c)+"/requests", fiber.StatusSeeOther)
}

func (x *console) logout(c *fiber.Ctx) error {
	x.setCookie(c, cookieName, "", time.Unix(1, 0))
	return c.Redirect(x.base(c)+"/login", fiber.StatusSeeOther)
}

// view is what a page template reads.
type view struct {
	Base, CSRF, Title, Page, World, Error, Notice string
	Nav                                           []navItem
	Data                                          any
}

type navItem struct{ Path, Name string }

var nav = []navItem{{"requests", "Requests"}, {"notifications", "Notifications"}, {"world", "World"}, {"controls", "Controls"}, {"coverage", "Coverage"}}

// render writes a whole page.
func (x *console) render(c *fiber.Ctx, page, title string, v view) error {
	v.Base, v.Page, v.Title, v.World, v.Nav = x.base(c), page, title, x.cfg.Name, nav
	v.CSRF, _ = c.Locals("console.csrf").(string)
	return x.execute(c, "layout", v)
}

func (x *console) execute(c *fiber.Ctx, name string, v any) error {
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, name, v); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set("X-Frame-Options", "DENY")
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.SendString(b.String())
}
