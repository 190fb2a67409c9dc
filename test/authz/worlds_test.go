package authz

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// TestCrossWorldMatrix: world x holds the demo world, world y only its users
// under tokens of y's own. Every route of the matrix, called in either world
// with the other world's tokens through both carriers, is refused wherever a
// token is read (401 or 403; 4xx for a route with its own credentials) and
// never answers with the demo world's data in y; every sandbox route of x
// refuses y's key and the root key. It runs on both backends: the fixtures
// and the tokens are built once, the worlds once per backend.
func TestCrossWorldMatrix(t *testing.T) {
	keyX, keyY := "authz-x-key-0123456789", "authz-y-key-0123456789"
	var demo map[string][]any
	if err := json.Unmarshal(repoFile(t, "deploy/demo/fixtures.json"), &demo); err != nil {
		t.Fatal(err)
	}
	yTokens := map[string]string{}
	var yUsers []any
	for i, who := range everyone {
		yTokens[who] = "APP_USR-y-" + who
		yUsers = append(yUsers, map[string]any{"id": 5000 + i, "nickname": "Y" + who, "site_id": "MLA", "access_token": yTokens[who]})
	}
	xTokens := map[string]string{seller: tokens[seller], buyer: tokens[buyer], other: "APP_USR-demo-brand", nobody: "APP_USR-x-none"}
	fill := strings.NewReplacer("{compat}", "1", "{doc}", "1", "{question}", "1", "{message}", "1", "{attachment}", "1")
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		// The worlds are made at once: each migrates a schema of its own.
		var made [2]apptest.Response
		var wg sync.WaitGroup
		for i, w := range [][2]string{{"x", keyX}, {"y", keyY}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				made[i] = a.Sandbox("PUT", "/worlds/"+w[0], map[string]any{"sandbox_key": w[1]})
			}()
		}
		wg.Wait()
		for _, r := range made {
			r.OK(t, 201)
		}
		load := func(world, key string, fixtures any) {
			if r := a.Do("POST", "/worlds/"+world+"/sandbox/fixtures", fixtures, "X-Sandbox-Key", key); r.Status != 200 {
				t.Fatalf("world %s's fixtures: %d %s", world, r.Status, r.Body)
			}
		}
		load("x", keyX, demo)
		load("y", keyY, map[string]any{"users": yUsers})
		crossWorlds(t, a, keyY, xTokens, yTokens, fill)
	})
}

// crossWorlds calls every route of the matrix in worlds x and y with the
// other world's tokens, and every sandbox route of x with y's key and the
// root key.
func crossWorlds(t *testing.T, a *apptest.App, keyY string, xTokens, yTokens map[string]string, fill *strings.Replacer) {
	cases := 0
	for _, r := range rows {
		if s, ok := r.body.(string); ok {
			r.body = json.RawMessage(fill.Replace(s))
		}
		for _, world := range []string{"x", "y"} {
			foreign := yTokens
			if world == "y" {
				foreign = xTokens
			}
			for _, carrier := range []string{"header", "query"} {
				for _, who := range everyone {
					res := a.Send(request(r, "/worlds/"+world+fill.Replace(r.path), foreign[who], carrier))
					cases++
					where := fmt.Sprintf("%s with %s's token of the other world (%s): %d %s", res.Request, who, carrier, res.Status, trim(res.Body))
					denied := res.Status == 401 || res.Status == 403
					switch {
					case res.Status >= 500:
						t.Errorf("%s: a server error", where)
					case world == "y" && strings.Contains(string(res.Body), "Amortiguador"):
						t.Errorf("%s: world x's data leaked", where)
					case r.access == own && res.Status < 400:
						t.Errorf("%s: want a 4xx", where)
					case (r.access == optional || r.access == token) && !denied:
						t.Errorf("%s: want 401 or 403", where)
					}
				}
			}
		}
	}
	routes := 0
	for _, rt := range a.HTTP.GetRoutes(true) {
		if rt.Method == "HEAD" || !strings.HasPrefix(rt.Path, "/sandbox") || strings.HasPrefix(rt.Path, "/sandbox/worlds") {
			continue
		}
		routes++
		p := strings.NewReplacer(":id", "1", ":user_id", "123", ":token", "APP_USR-authz-unknown", ":name", "x").Replace(rt.Path)
		for _, key := range []string{keyY, apptest.SandboxKey} {
			req := httptest.NewRequest(rt.Method, "/worlds/x"+p, strings.NewReader("{}"))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-Sandbox-Key", key)
			cases++
			a.Send(req).HasStatus(t, 401)
		}
	}
	if routes < 10 {
		t.Fatalf("only %d sandbox routes", routes)
	}
	t.Logf("%d rows, %d sandbox routes, %d calls", len(rows), routes, cases)
}
