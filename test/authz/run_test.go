package authz

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/feria/feria/adapters/httpapi/consoleapi"
	"github.com/feria/feria/test/apptest"
)

// repoFile is a file of the repository (go test runs a package's tests in
// its directory; the source's own path is not used, which a -trimpath
// build does not keep).
func repoFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var pdf = []byte("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\ntrailer<<>>\n%%EOF\n")

// request builds a call of r with tok carried as carrier ("header",
// "query" or "" for none).
func request(r row, path string, tok, carrier string) *http.Request {
	method, _, _ := strings.Cut(r.route, " ")
	if carrier == "query" {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		path += sep + "access_token=" + url.QueryEscape(tok)
	}
	var body bytes.Buffer
	ctype := ""
	switch b := r.body.(type) {
	case nil:
	case upload:
		w := multipart.NewWriter(&body)
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="fiscal_document"; filename="factura.pdf"`)
		h.Set("Content-Type", "application/pdf")
		pw, _ := w.CreatePart(h)
		pw.Write(pdf) //nolint:errcheck // in memory
		w.Close()
		ctype = w.FormDataContentType()
	case attach:
		w := multipart.NewWriter(&body)
		pw, _ := w.CreateFormFile("file", "foto.png")
		pw.Write([]byte("\x89PNG\r\n\x1a\n")) //nolint:errcheck // in memory
		w.Close()
		ctype = w.FormDataContentType()
	default:
		raw, _ := json.Marshal(b)
		body.Write(raw)
		ctype = "application/json"
	}
	if r.route == "POST /oauth/token" {
		body.Reset()
		body.WriteString("grant_type=refresh_token&client_id=1&client_secret=x&refresh_token=TG-unknown")
		ctype = "application/x-www-form-urlencoded"
	}
	req := httptest.NewRequest(method, path, &body)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if carrier == "header" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return req
}

// TestAuthorizationMatrix: every route of the router has a row (a new
// route without one fails here); every route is called by the seller who
// owns the resources named, another seller, the buyer, a user who is
// neither, with no token, and with an unknown, an expired and a revoked
// token, each token through both carriers (the Authorization header and
// access_token). Who may passes authentication and authorization (no 401 or
// 403); anybody else gets a 4xx, never the resource; a bad token is 401 or
// 403 wherever a token is read. Sandbox routes need the sandbox key and the
// dashboard its password, whatever token is sent.
func TestAuthorizationMatrix(t *testing.T) {
	a := apptest.New(t, apptest.Embedded)
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
	var world map[string][]any
	if err := json.Unmarshal(repoFile(t, "deploy/demo/fixtures.json"), &world); err != nil {
		t.Fatal(err)
	}
	world["users"] = append(world["users"],
		map[string]any{"id": 124, "nickname": "OTHER", "site_id": "MLA", "access_token": tokens[other]},
		map[string]any{"id": 457, "nickname": "NOBODY", "site_id": "MLA", "access_token": tokens[nobody]})
	a.MustLoad(world)
	a.Do("POST", "/items/MLA1100/compatibilities", repoFile(t, "deploy/demo/compatibilities.json"), apptest.Bearer(tokens[seller])...).OK(t, 200)
	list := a.Do("GET", "/items/MLA1100/compatibilities", nil, apptest.Bearer(tokens[seller])...).OK(t, 200)
	compat := list.(map[string]any)["products"].([]any)[0].(map[string]any)["id"].(string)
	up := a.Send(request(row{route: "POST /packs/2000001234/fiscal_documents", body: upload{}}, "/packs/2000001234/fiscal_documents", tokens[seller], "header"))
	var ids struct{ IDs []string }
	up.HasStatus(t, 201)
	if json.Unmarshal(up.Body, &ids) != nil || len(ids.IDs) != 1 {
		t.Fatalf("upload: %d %s", up.Status, up.Body)
	}
	doc := ids.IDs[0]
	// A question the buyer asked, a billing message the seller sent, an
	// application of the seller's.
	var q struct {
		ID int64 `json:"id"`
	}
	a.Do("POST", "/questions", map[string]string{"item_id": "MLA1100", "text": "¿Tiene garantía?"}, apptest.Bearer(tokens[buyer])...).JSON(t, &q)
	var billing struct {
		Message string `json:"message"`
	}
	a.Do("POST", "/packs/2000001234/fiscal_documents/billing_info", map[string]string{"text": "Necesito tus datos"}, apptest.Bearer(tokens[seller])...).JSON(t, &billing)
	words := strings.Fields(billing.Message)
	if q.ID == 0 || len(words) < 2 {
		t.Fatalf("question %d, billing message %q", q.ID, billing.Message)
	}
	question, message := fmt.Sprint(q.ID), words[1]
	// A file the seller sent the buyer.
	var file struct{ ID string }
	a.Send(request(row{route: "POST /messages/attachments", body: attach{}}, "/messages/attachments", tokens[seller], "header")).JSON(t, &file)
	a.Do("POST", "/messages/packs/2000001234/sellers/123", map[string]any{"from": map[string]any{"user_id": 123}, "to": map[string]any{"user_id": 456},
		"text": "La foto del paquete", "attachments": []string{file.ID}}, apptest.Bearer(tokens[seller])...).HasStatus(t, 201)
	a.Sandbox("PUT", "/applications/7001", map[string]any{"name": "authz", "owner_id": 123, "client_secret": "s",
		"callback_url": "http://127.0.0.1:9/cb", "topics": []string{"items"}}).OK(t, 200)
	// Bad tokens: an expired one (the clock moves past it), a revoked one.
	var g struct {
		AccessToken string `json:"access_token"`
	}
	a.Sandbox("POST", "/users/123/tokens", map[string]any{"expires_in": 1}).JSON(t, &g)
	expired := g.AccessToken
	a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:05Z"}).OK(t, 200)
	a.Sandbox("POST", "/users/123/tokens", nil).JSON(t, &g)
	revoked := g.AccessToken
	a.Sandbox("DELETE", "/tokens/"+revoked, nil).HasStatus(t, 204)
	bad := map[string]string{"unknown token": "APP_USR-authz-unknown-0123456789", "expired token": expired, "revoked token": revoked}

	// Every route has a row; every row is a route.
	byRoute := map[string]row{}
	for _, r := range rows {
		if _, dup := byRoute[r.route]; dup {
			t.Errorf("two rows for %s", r.route)
		}
		byRoute[r.route] = r
	}
	routes := map[string]bool{}
	for _, rt := range a.HTTP.GetRoutes(true) {
		if rt.Method == "HEAD" {
			continue
		}
		key := rt.Method + " " + rt.Path
		routes[key] = true
		switch {
		case strings.HasPrefix(rt.Path, "/sandbox"), strings.HasPrefix(rt.Path, "/admin/jobs"), strings.HasPrefix(rt.Path, "/console"):
			// The key families below.
		case byRoute[key].route == "":
			t.Errorf("route %s has no row in the authorization matrix (test/authz): say who may call it", key)
		}
	}
	for key := range byRoute {
		if !routes[key] {
			t.Errorf("row %s names no route of the router", key)
		}
	}

	fill := func(p string) string {
		return strings.NewReplacer("{compat}", compat, "{doc}", doc, "{question}", question, "{message}", message, "{attachment}", file.ID).Replace(p)
	}
	cases := 0
	check := func(r row, who, tok, carrier string) {
		t.Helper()
		if s, ok := r.body.(string); ok {
			r.body = json.RawMessage(fill(s))
		}
		res := a.Send(request(r, fill(r.path), tok, carrier))
		cases++
		where := fmt.Sprintf("%s as %s (%s): %d %s", res.Request, who, carrier, res.Status, trim(res.Body))
		if res.Status >= 500 {
			t.Errorf("%s: a server error", where)
			return
		}
		denied := res.Status == 401 || res.Status == 403
		_, isBad := bad[who]
		switch {
		case r.access == own:
		case r.access == public:
			if denied {
				t.Errorf("%s: a public route refused the caller", where)
			}
		case who == "no token" && r.access == optional:
			if denied {
				t.Errorf("%s: the token is optional here", where)
			}
		case who == "no token" || isBad:
			if !denied {
				t.Errorf("%s: want 401 or 403", where)
			}
		case slices.Contains(r.may, who):
			if denied {
				t.Errorf("%s: %s may call this route", where, who)
			}
		default:
			if res.Status < 400 {
				t.Errorf("%s: %s may not call this route, and got an answer", where, who)
			}
		}
	}
	run := func(r row) {
		t.Run(strings.ReplaceAll(r.route, "/", "_"), func(t *testing.T) {
			check(r, "no token", "", "")
			for _, carrier := range []string{"header", "query"} {
				for _, who := range []string{"unknown token", "expired token", "revoked token"} {
					check(r, who, bad[who], carrier)
				}
				// Who may not first: a refused write must change nothing the
				// allowed callers then see.
				for _, who := range everyone {
					if !slices.Contains(r.may, who) {
						check(r, who, tokens[who], carrier)
					}
				}
				for _, who := range everyone {
					if slices.Contains(r.may, who) {
						check(r, who, tokens[who], carrier)
					}
				}
			}
		})
	}
	for _, r := range rows {
		if !r.last {
			run(r)
		}
	}
	for _, r := range rows {
		if r.last {
			run(r)
		}
	}

	// The sandbox: its key, never a user's token nor a world's key.
	worldKey := "authz-world-key-0123456789"
	a.Sandbox("PUT", "/worlds/authz", map[string]any{"sandbox_key": worldKey}).OK(t, 201)
	for key := range routes {
		method, path, _ := strings.Cut(key, " ")
		if !strings.HasPrefix(path, "/sandbox") {
			continue
		}
		p := strings.NewReplacer(":id", "1", ":user_id", "123", ":token", "APP_USR-authz-unknown", ":name", "authz").Replace(path)
		for _, h := range [][]string{nil, {"X-Sandbox-Key", "wrong-key"}, {"Authorization", "Bearer " + tokens[seller]},
			{"X-Sandbox-Key", tokens[seller]}, {"X-Sandbox-Key", worldKey}} {
			req := httptest.NewRequest(method, p, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			if h != nil {
				req.Header.Set(h[0], h[1])
			}
			res := a.Send(req)
			cases++
			res.HasStatus(t, 401)
		}
	}
	cases += consoleFamily(t, a, routes, worldKey)
	// The dashboard: basic auth with its password, never a user's token.
	for _, h := range []string{"", "Bearer " + tokens[seller], "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:wrong")),
		"Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+tokens[seller]))} {
		for _, p := range []string{"/admin/jobs", "/admin/jobs/api/queues"} {
			req := httptest.NewRequest("GET", p, nil)
			if h != "" {
				req.Header.Set("Authorization", h)
			}
			res := a.Send(req)
			cases++
			res.HasStatus(t, 401)
		}
	}
	t.Logf("%d routes, %d calls", len(routes), cases)
}

func trim(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}

// consoleFamily checks the console's routes: but the login and its assets,
// every one redirects to the login without a session of the world's own
// key, whatever else is sent (a user's token, the sandbox key as a header,
// a forged cookie, another world's session).
func consoleFamily(t *testing.T, a *apptest.App, routes map[string]bool, worldKey string) int {
	t.Helper()
	worldSession := consoleSession(t, a, "/worlds/authz/console", worldKey)
	if worldSession == "" {
		t.Fatal("no session of the world's console")
	}
	if !routes["GET /console/*"] || !routes["POST /console/*"] {
		t.Error("the console is not served")
	}
	cases := 0
	// The console's own routes, behind its one catch-all route.
	for _, rt := range consoleapi.New(consoleapi.Config{}, nil).GetRoutes(true) {
		method, path := rt.Method, rt.Path
		if method == "HEAD" || strings.HasPrefix(path, "/console/login") || strings.HasPrefix(path, "/console/assets") || !strings.HasPrefix(path, "/console/") {
			continue
		}
		p := strings.NewReplacer(":id", "1").Replace(path)
		for _, h := range [][]string{nil, {"Authorization", "Bearer " + tokens[seller]}, {"X-Sandbox-Key", apptest.SandboxKey},
			{"Cookie", "feria_console=9999999999.00.forged"}, {"Cookie", "feria_console=" + worldSession}} {
			req := httptest.NewRequest(method, p, strings.NewReader("csrf=x"))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if h != nil {
				req.Header.Set(h[0], h[1])
			}
			res := a.Send(req)
			cases++
			if res.Status != 303 || res.Header.Get("Location") != "/console/login" {
				t.Errorf("%s %s with %v: %d to %q, want 303 to the login", method, p, h, res.Status, res.Header.Get("Location"))
			}
		}
	}
	return cases
}

// consoleSession logs in to the console at base with key and returns the
// session cookie's value.
func consoleSession(t *testing.T, a *apptest.App, base, key string) string {
	t.Helper()
	res := a.Send(httptest.NewRequest("GET", base+"/login", nil))
	var nonce string
	for _, ck := range (&http.Response{Header: res.Header}).Cookies() {
		if ck.Name == "feria_console_login" {
			nonce = ck.Value
		}
	}
	req := httptest.NewRequest("POST", base+"/login", strings.NewReader("csrf="+nonce+"&key="+key))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: "feria_console_login", Value: nonce})
	res = a.Send(req)
	for _, ck := range (&http.Response{Header: res.Header}).Cookies() {
		if ck.Name == "feria_console" {
			return ck.Value
		}
	}
	return ""
}
