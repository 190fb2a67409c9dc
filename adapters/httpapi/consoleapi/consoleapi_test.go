package consoleapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// client is a browser of the console: it keeps the cookies it is given.
type client struct {
	t       *testing.T
	a       *apptest.App
	cookies map[string]string
}

func (b *client) do(method, path string, form url.Values) (int, http.Header, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range b.cookies {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	res, err := b.a.HTTP.Test(req, 30_000)
	if err != nil {
		b.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	for _, ck := range res.Cookies() {
		b.cookies[ck.Name] = ck.Value
	}
	return res.StatusCode, res.Header, string(raw)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// login opens a session with key and returns the page's CSRF token.
func (b *client) login(key string) (int, string) {
	b.t.Helper()
	_, _, page := b.do("GET", "/console/login", nil)
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no CSRF field in the login page: %s", page)
	}
	status, _, _ := b.do("POST", "/console/login", url.Values{"csrf": {m[1]}, "key": {key}})
	_, _, page = b.do("GET", "/console/requests", nil)
	if m = csrfField.FindStringSubmatch(page); m == nil {
		return status, ""
	}
	return status, m[1]
}

// The console opens with the sandbox key only; its session cookie is
// HttpOnly and SameSite=Strict; without a session every page redirects to
// the login; a POST without the session's CSRF token is refused; every
// page answers, never 500, whatever its query.
func TestConsole(t *testing.T) {
	a := apptest.NewSample(t, apptest.Embedded)
	b := &client{t: t, a: a, cookies: map[string]string{}}
	for _, p := range []string{"/console/requests", "/console/world", "/console/requests/x", "/console/coverage"} {
		if status, h, _ := b.do("GET", p, nil); status != 303 || h.Get("Location") != "/console/login" {
			t.Errorf("GET %s without a session: %d to %q", p, status, h.Get("Location"))
		}
	}
	if status, _ := b.login("wrong-key"); status != 401 {
		t.Errorf("a wrong key: %d", status)
	}
	status, csrf := b.login(apptest.SandboxKey)
	if status != 303 || csrf == "" {
		t.Fatalf("login: %d, csrf %q", status, csrf)
	}
	form := url.Values{"csrf": {"x"}, "key": {apptest.SandboxKey}}
	req := httptest.NewRequest("POST", "/console/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "feria_console_login", Value: "x"})
	res, err := a.HTTP.Test(req, 30_000)
	if err != nil {
		t.Fatal(err)
	}
	if ck := res.Header.Get("Set-Cookie"); res.StatusCode != 303 || !strings.Contains(ck, "HttpOnly") || !strings.Contains(ck, "SameSite=Strict") ||
		!strings.Contains(ck, "path=/console") || strings.Contains(ck, "Secure") {
		t.Errorf("the session cookie: %d %q", res.StatusCode, ck)
	}
	a.Do("GET", "/items/MLA1100", nil, "X-Request-Id", "seen-in-console").OK(t, 200)
	if _, _, page := b.do("GET", "/console/requests/rows", nil); !strings.Contains(page, "/items/MLA1100") {
		t.Errorf("the journal's rows: %s", page)
	}
	if _, _, page := b.do("GET", "/console/requests/seen-in-console", nil); !strings.Contains(page, "Copy as curl") || !strings.Contains(page, "MLA1100") {
		t.Errorf("a request's page: %s", page)
	}
	if status, _, _ := b.do("POST", "/console/controls/faults", url.Values{"path": {"/items/*"}, "status": {"503"}}); status != 403 {
		t.Errorf("a POST without its CSRF token: %d", status)
	}
	if status, h, _ := b.do("POST", "/console/controls/faults", url.Values{"csrf": {csrf}, "path": {"/items/MLA1101"}, "status": {"503"}}); status != 303 {
		t.Errorf("a fault rule from the form: %d %v", status, h)
	}
	a.Do("GET", "/items/MLA1101", nil).OK(t, 503)
	if status, _, page := b.do("POST", "/console/world/reset", url.Values{"csrf": {csrf}, "confirm": {"yes"}}); status != 400 || !strings.Contains(page, "to confirm the reset") {
		t.Errorf("a reset not confirmed: %d", status)
	}
	a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
	fuzz := []string{"", "?method=GET", "?status=abc", "?status=999", "?user_id=-1", "?user_id=x", "?path=%00", "?app_id=abc",
		"?app_id=999999", "?collection=nope", "?collection=items&q=%25_'", "?collection=items&id=MLA1100", "?collection=users&id=abc",
		"?collection=shipping_rates&id=MLA", "?notice=%3Cscript%3E"}
	for _, page := range []string{"requests", "requests/rows", "requests/nope", "notifications", "world", "controls", "coverage"} {
		for _, q := range fuzz {
			status, _, body := b.do("GET", "/console/"+page+q, nil)
			if status >= 500 || status == 0 {
				t.Errorf("GET /console/%s%s: %d %.300s", page, q, status, body)
			}
			if strings.Contains(body, "<script>") {
				t.Errorf("GET /console/%s%s: an unescaped script", page, q)
			}
		}
	}
	if dir := os.Getenv("CONSOLE_DUMP"); dir != "" {
		_, _, page := b.do("GET", "/console/coverage", nil)
		_ = os.WriteFile(dir+"/coverage.html", []byte(page), 0o644)
	}
}

// The embedded htmx is the version assets/package.json pins.
func TestAssetsArePinned(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	raw, err := os.ReadFile("assets/package.json")
	if err != nil || json.Unmarshal(raw, &pkg) != nil {
		t.Fatalf("assets/package.json: %v", err)
	}
	js, err := os.ReadFile("assets/htmx.min.js")
	if err != nil {
		t.Fatal(err)
	}
	if v := pkg.Dependencies["htmx.org"]; v == "" || !strings.Contains(string(js), `version:"`+v+`"`) {
		t.Errorf("assets/htmx.min.js is not htmx.org %q: run assets/build.sh", v)
	}
}
