package httpapi_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/kernel"
)

// tokens accepts "good" as user 7 of MLA.
type tokens struct{}

func (tokens) Authenticate(_ context.Context, token string) (kernel.Caller, error) {
	if token == "good" {
		return kernel.Caller{UserID: 7, SiteID: "MLA"}, nil
	}
	return kernel.Caller{}, kernel.E(kernel.Unauthenticated, "unauthorized", "invalid access token")
}

func newApp() *fiber.App {
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	onError := httpapi.ErrorHandler(log)
	app := fiber.New(fiber.Config{ErrorHandler: onError, BodyLimit: 1024})
	app.Use(httpapi.RequestIDs(), httpapi.AccessLog(log, httpapi.NewMetrics(prometheus.NewRegistry()), onError), httpapi.Recover(log))
	notFound := kernel.E(kernel.NotExist, "U00002", "user not found")
	app.Get("/a", func(*fiber.Ctx) error { return notFound })
	app.Get("/b", httpapi.UseShape(httpapi.ShapeBrands), func(*fiber.Ctx) error { return notFound })
	app.Get("/c", httpapi.UseShape(httpapi.ShapeContacts), func(*fiber.Ctx) error {
		return kernel.E(kernel.Invalid, "bad_request", "date_from is required")
	})
	app.Get("/cause", func(*fiber.Ctx) error {
		return kernel.E(kernel.Invalid, "validation_error", "bad item").WithCause("item.official_store_id.invalid", "allowed: 1, 2")
	})
	app.Get("/secret", func(*fiber.Ctx) error { return io.ErrUnexpectedEOF })
	app.Get("/panic", func(*fiber.Ctx) error { panic("boom") })
	app.Post("/body", func(c *fiber.Ctx) error {
		var v struct {
			N int `json:"n"`
		}
		if err := httpapi.BindJSON(c, &v); err != nil {
			return err
		}
		return c.JSON(v)
	})
	app.Get("/page", func(c *fiber.Ctx) error {
		p, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		return c.JSON(p.Of(99))
	})
	auth := httpapi.Auth{Tokens: tokens{}}
	me := func(c *fiber.Ctx) error {
		caller, err := httpapi.Caller(c)
		if err != nil {
			return err
		}
		return c.JSON(fiber.Map{"user_id": caller.UserID})
	}
	app.Get("/documented500", func(*fiber.Ctx) error {
		return kernel.E(kernel.Internal, "internal_server_error", "The body of the request cannot be empty").Wrap(errors.New("empty body"))
	})
	app.Get("/busy", func(*fiber.Ctx) error {
		return kernel.E(kernel.Unavailable, "service_unavailable", "the database is busy, retry later").Wrap(errors.New("deadlock"))
	})
	app.Get("/me", auth.Required(), me)
	app.Get("/users/:user_id", me)
	app.Get("/fiscal", auth.Required(httpapi.AuthErrors{Missing: kernel.E(kernel.Permission, "access_token_not_granted", "access token not granted")}), me)
	app.Get("/compat", auth.Required(httpapi.AuthErrors{
		Missing: kernel.E(kernel.Permission, "forbidden", "invalid token"), Invalid: kernel.E(kernel.Permission, "forbidden", "invalid token")}), me)
	app.Use(httpapi.NotFound)
	return app
}

func call(t *testing.T, app *fiber.App, method, target, body string, headers ...string) (int, string, *fiber.App) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := app.Test(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), app
}

func TestErrorShapesAndStatuses(t *testing.T) {
	app := newApp()
	cases := []struct {
		name, method, target, body string
		headers                    []string
		status                     int
		want                       string
	}{
		{"shape a", "GET", "/a", "", nil, 404, `{"message":"user not found","error":"U00002","status":404,"cause":[]}`},
		{"shape b", "GET", "/b", "", nil, 404, `{"error":"U00002","message":"user not found","status":404}`},
		{"shape c", "GET", "/c", "", nil, 400, `{"code":"bad_request","message":"date_from is required"}`},
		{"causes", "GET", "/cause", "", nil, 400, `{"message":"bad item","error":"validation_error","status":400,"cause":[{"code":"item.official_store_id.invalid","message":"allowed: 1, 2"}]}`},
		{"unknown route", "GET", "/nowhere", "", nil, 404, `{"message":"resource GET /nowhere not found","error":"not_found","status":404,"cause":[]}`},
		{"a typo names the route", "GET", "/pagee", "", nil, 404, `{"message":"no route GET /pagee; did you mean GET /page?","error":"not_found","status":404,"cause":[]}`},
		{"a parameter's route", "GET", "/user/5", "", nil, 404, `{"message":"no route GET /user/5; did you mean GET /users/{user_id}?","error":"not_found","status":404,"cause":[]}`},
		{"of the same method only", "DELETE", "/pagee", "", nil, 404, `{"message":"resource DELETE /pagee not found","error":"not_found","status":404,"cause":[]}`},
		{"too far to guess", "GET", "/users/5/x/y", "", nil, 404, `{"message":"resource GET /users/5/x/y not found","error":"not_found","status":404,"cause":[]}`},
		{"body wrong type", "POST", "/body", `{"n":"x"}`, nil, 400, `{"message":"field n must be an integer, got string","error":"bad_request","status":400,"cause":[{"code":"n","message":"n must be an integer"}]}`},
		{"body empty", "POST", "/body", ``, nil, 400, `{"message":"request body is empty","error":"bad_request","status":400,"cause":[{"code":"body","message":"a JSON body is required"}]}`},
		{"paging default", "GET", "/page", "", nil, 200, `{"total":99,"offset":0,"limit":50}`},
		{"paging given", "GET", "/page?limit=3&offset=50", "", nil, 200, `{"total":99,"offset":50,"limit":3}`},
		{"paging bad", "GET", "/page?limit=abc", "", nil, 400, `{"message":"limit must be an integer, got \"abc\"","error":"bad_request","status":400,"cause":[]}`},
		{"paging negative", "GET", "/page?offset=-1", "", nil, 400, `{"message":"offset must not be negative, got -1","error":"bad_request","status":400,"cause":[]}`},
		{"bearer", "GET", "/me", "", []string{"Authorization", "Bearer good"}, 200, `{"user_id":7}`},
		{"query token", "GET", "/me?access_token=good", "", nil, 200, `{"user_id":7}`},
		{"no token", "GET", "/me", "", nil, 401, `{"message":"access token required","error":"unauthorized","status":401,"cause":[]}`},
		{"bad token", "GET", "/me", "", []string{"Authorization", "Bearer bad"}, 401, `{"message":"invalid access token","error":"unauthorized","status":401,"cause":[]}`},
		{"fiscal no token", "GET", "/fiscal", "", nil, 403, `{"message":"access token not granted","error":"access_token_not_granted","status":403,"cause":[]}`},
		{"fiscal bad token", "GET", "/fiscal?access_token=bad", "", nil, 401, `{"message":"invalid access token","error":"unauthorized","status":401,"cause":[]}`},
		{"compat no token", "GET", "/compat", "", nil, 403, `{"message":"invalid token","error":"forbidden","status":403,"cause":[]}`},
		{"compat bad token", "GET", "/compat", "", []string{"Authorization", "Bearer bad"}, 403, `{"message":"invalid token","error":"forbidden","status":403,"cause":[]}`},
		// A 500 the code built with a message for clients (a documented
		// 500) shows it; its wrapped error is not shown.
		{"documented 500", "GET", "/documented500", "", nil, 500, `{"message":"The body of the request cannot be empty","error":"internal_server_error","status":500,"cause":[]}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, body, _ := call(t, app, tc.method, tc.target, tc.body, tc.headers...)
			if status != tc.status || body != tc.want {
				t.Errorf("got %d %s\nwant %d %s", status, body, tc.status, tc.want)
			}
		})
	}
}

// A 503 says when to try again; no other error does.
func TestUnavailableSaysWhenToRetry(t *testing.T) {
	app := newApp()
	for path, want := range map[string]string{"/busy": "1", "/a": "", "/secret": ""} {
		res, err := app.Test(httptest.NewRequest("GET", path, nil))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if got := res.Header.Get("Retry-After"); got != want {
			t.Errorf("%s: %d %s, Retry-After %q, want %q", path, res.StatusCode, b, got, want)
		}
		if path == "/busy" && (res.StatusCode != 503 || string(b) != `{"message":"the database is busy, retry later","error":"service_unavailable","status":503,"cause":[]}`) {
			t.Errorf("%s: %d %s", path, res.StatusCode, b)
		}
	}
}

// Internal errors and panics answer 500 with the request id, never their text.
func TestInternalErrorsHideDetails(t *testing.T) {
	app := newApp()
	for _, path := range []string{"/secret", "/panic"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("X-Request-Id", "req-123")
		res, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		want := `{"message":"internal server error (request id req-123)","error":"internal_server_error","status":500,"cause":[]}`
		if res.StatusCode != 500 || string(b) != want {
			t.Errorf("%s: got %d %s", path, res.StatusCode, b)
		}
		if res.Header.Get("X-Request-Id") != "req-123" {
			t.Errorf("%s: request id not echoed", path)
		}
	}
}

func TestRequestIDGenerated(t *testing.T) {
	res, err := newApp().Test(httptest.NewRequest("GET", "/a", nil))
	if err != nil {
		t.Fatal(err)
	}
	if id := res.Header.Get("X-Request-Id"); len(id) != 36 {
		t.Errorf("generated request id %q", id)
	}
}

// A body over the limit is refused by the server before a handler reads it,
// and still renders shape (a).
func TestBodyTooLarge(t *testing.T) {
	app := newApp()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln) //nolint:errcheck // ends with Shutdown
	defer app.Shutdown()
	res, err := http.Post("http://"+ln.Addr().String()+"/body", "application/json",
		strings.NewReader(`{"n":1,"pad":"`+strings.Repeat("x", 4000)+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	want := `{"message":"request body too large","error":"bad_request","status":400,"cause":[]}`
	if res.StatusCode != 400 || string(b) != want {
		t.Errorf("got %d %s", res.StatusCode, b)
	}
}
