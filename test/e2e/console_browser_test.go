package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/feria/feria/test/apptest"
)

// shots is where the console's screenshots go: $TEST_ARTIFACTS, else a
// directory of their own that outlives the test (named in its log).
func shots(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TEST_ARTIFACTS")
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "feria-console-"); err != nil {
			t.Fatal(err)
		}
	} else {
		dir = filepath.Join(dir, "console")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("console screenshots: %s", dir)
	return dir
}

// consoleFixtures is the demo world and an application of its seller
// whose callback answers 200.
func consoleFixtures(t *testing.T, callback string) string {
	t.Helper()
	var world map[string]any
	if err := json.Unmarshal(repoFileE2E(t, "deploy/demo/fixtures.json"), &world); err != nil {
		t.Fatal(err)
	}
	seller := world["users"].([]any)[0].(map[string]any)["id"]
	world["applications"] = []any{map[string]any{"id": 7001, "name": "console-test", "owner_id": seller, "client_secret": "console-app-secret-0123",
		"callback_url": callback, "topics": []string{"items"}}}
	raw, _ := json.Marshal(world)
	path := filepath.Join(t.TempDir(), "world.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func repoFileE2E(t *testing.T, rel string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// A real browser drives the console of `feria all`: it logs in with the
// sandbox key, loads a world from a fixtures file, watches the requests
// the test makes appear in Requests by themselves, opens one and sees its
// body masked, adds a 503 fault rule from the form and sees the faulted
// request, sees Coverage change, sends a notification again and resets
// the world; every page is photographed, once at 360 px wide.
func TestConsoleInABrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	p := startEmbedded(t, t.TempDir())
	cb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer cb.Close()
	fixtures := consoleFixtures(t, cb.URL+"/notifications")
	dir := shots(t)
	start := time.Now()

	alloc, cancel := chromedp.NewExecAllocator(context.Background(), chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1200, 900))
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	run := func(what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, p.logs)
		}
	}
	shot := func(name string) chromedp.Action[chromedp.Void] {
		return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			png, err := chromedp.FullScreenshot(100)(ctx, tg)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		})
	}
	has := func(sel, want string) chromedp.Action[chromedp.Void] {
		return poll(fmt.Sprintf(`(document.querySelector(%q)?.innerText || "").includes(%q)`, sel, want))
	}
	text := func(sel string) string { return value(t, ctx, chromedp.Text(chromedp.CSS(sel))) }
	base := p.base + "/console"

	run("the login page", chromedp.Navigate(base+"/coverage"))
	if loc := value(t, ctx, chromedp.Location()); loc != base+"/login" {
		t.Errorf("a page without a session went to %s", loc)
	}
	run("the login", shot("login"), chromedp.SendKeys(chromedp.CSS(`input[name=key]`), apptest.SandboxKey),
		chromedp.Click(chromedp.CSS(`main form button`)), chromedp.WaitVisible(chromedp.CSS(`#requests`)))
	run("the world", chromedp.Navigate(base+"/world"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[name=fixtures]`), []string{fixtures}),
		chromedp.Click(chromedp.CSS(`form[action$="/world/fixtures"] button`)), has(".notice", "Loaded"),
		chromedp.Navigate(base+"/world?collection=items&id=MLA1100"), has("#resource", `"id": "MLA1100"`), shot("world"),
		chromedp.Navigate(base+"/coverage"), chromedp.WaitVisible(chromedp.CSS("main p")))
	if summary := text("main p"); !strings.HasPrefix(summary, "Since") || !strings.Contains(summary, ": 0 of") {
		t.Errorf("coverage before any call: %q", summary)
	}

	// Requests: the page is open while the test calls the API.
	run("the requests page", chromedp.Navigate(base+"/requests"), chromedp.WaitVisible(chromedp.CSS(`#requests`)))
	p.call(t, "GET", "/items/MLA1100", "", nil, "Authorization", "Bearer APP_USR-demo-seller")
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"TG-console-secret-refresh"}, "client_id": {"7001"}, "client_secret": {"console-app-secret-0123"}}
	p.call(t, "POST", "/oauth/token", "application/x-www-form-urlencoded", []byte(form.Encode()))
	run("the requests appear", has("#rows", "/oauth/token"), has("#rows", "/items/MLA1100"), shot("requests"))

	// The rows are replaced every second: a click is one step in the page
	// (a user's click is), not a node found then clicked by two calls of
	// the driver, between which the row may be new.
	follow := poll(`(() => { const a = [...document.querySelectorAll("#rows a")].find(a => a.innerText.includes("/oauth/token")); a?.click(); return !!a })()`)
	run("a request's page", follow, chromedp.WaitVisible(chromedp.CSS(`#request-body`)), shot("request"))
	reqBody, curl := text("#request-body"), value(t, ctx, chromedp.Value(chromedp.CSS("#curl")))
	if !strings.Contains(reqBody, "refresh_token=***") || !strings.Contains(reqBody, "client_secret=***") || strings.Contains(reqBody+curl, "console-secret") ||
		strings.Contains(reqBody+curl, "console-app-secret") || !strings.HasPrefix(curl, "curl -X POST") {
		t.Errorf("the request's body shown %q, its curl %q", reqBody, curl)
	}

	run("a fault rule from the form", chromedp.Navigate(base+"/controls"),
		chromedp.SendKeys(chromedp.CSS(`#fault-form input[name=path]`), "/items/MLA1101"),
		chromedp.Click(chromedp.CSS(`#fault-form button`)), has(".notice", "Fault rule 1 added"), has("#faults", "/items/MLA1101"))
	if status, _ := p.call(t, "GET", "/items/MLA1101", "", nil); status != 503 {
		t.Errorf("the faulted request: %d", status)
	}
	run("the faulted request", chromedp.Navigate(base+"/controls"), has("#faults", "/items/MLA1101"), shot("controls"),
		chromedp.Navigate(base+"/requests?status=503"), has("#rows", "/items/MLA1101"), has("#rows", "fault 1"))

	run("the coverage", chromedp.Navigate(base+"/coverage"), has("main", "GET /items/{item_id}"), shot("coverage"))
	if summary := text("main p"); strings.Contains(summary, ": 0 of") || !strings.Contains(summary, "saw an error") {
		t.Errorf("coverage after the calls: %q", summary)
	}

	p.do(t, "POST", "/sandbox/notifications", map[string]any{"app_id": 7001, "topic": "items", "resource": "/items/MLA1100", "user_id": 123})
	run("the notifications", chromedp.Navigate(base+"/notifications?app_id=7001"), has("main table", "/items/MLA1100"),
		chromedp.Click(chromedp.CSS(`main table button`)), has(".notice", "Sent again"),
		poll(`document.querySelectorAll("main table tbody tr").length >= 2`),
		reloadUntil("main table", "delivered"), shot("notifications"))

	run("at 360 px", chromedp.EmulateViewport(360, 740), chromedp.Navigate(base+"/requests"), has("#rows", "/items"), shot("requests-360"),
		chromedp.EmulateViewport(1200, 900))
	run("by keyboard", chromedp.Navigate(base+"/requests"), chromedp.WaitVisible(chromedp.CSS(`#requests`)), chromedp.KeyEvent("\t"))
	if focused := value(t, ctx, chromedp.Evaluate[string](`document.activeElement.textContent`)); strings.TrimSpace(focused) != "Requests" {
		t.Errorf("the first Tab reaches %q, not the first page's link", focused)
	}

	run("the reset", chromedp.Navigate(base+"/world"), chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "reset"),
		chromedp.Click(chromedp.CSS(`form[action$="/world/reset"] button`)), has(".notice", "was reset"), has("#counts", "items"),
		chromedp.Navigate(base+"/coverage"), chromedp.WaitVisible(chromedp.CSS("main p")))
	if summary := text("main p"); !strings.Contains(summary, ": 0 of") {
		t.Errorf("coverage after the reset: %q", summary)
	}
	if status, _ := p.call(t, "GET", "/items/MLA1100", "", nil); status != 404 {
		t.Errorf("an item after the reset: %d", status)
	}
	t.Logf("the console's walk took %s", time.Since(start).Round(time.Millisecond))
}

// value runs an action that reads something in the browser.
func value[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// reloadUntil reloads the page until the element of sel shows want, for at
// most 10 s: a page that does not update itself (the notifications' states,
// which a worker changes after the page was served).
func reloadUntil(sel, want string) chromedp.Action[chromedp.Void] {
	expr := fmt.Sprintf(`(document.querySelector(%q)?.innerText || "").includes(%q)`, sel, want)
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(200 * time.Millisecond) {
			if _, err := chromedp.Reload()(ctx, tg); err != nil {
				return err
			}
			if _, err := chromedp.WaitVisible(chromedp.CSS(sel))(ctx, tg); err != nil {
				return err
			}
			shown, err := chromedp.Evaluate[bool](expr)(ctx, tg)
			if err != nil || shown {
				return err
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s never showed %q", sel, want)
			}
		}
	})
}

// poll waits until a JavaScript expression is true, for at most 10 s; a
// poll a form's navigation interrupts starts again on the new page.
func poll(expr string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(time.Until(deadline)))(ctx, tg)
			if err == nil || time.Now().After(deadline) || !strings.Contains(err.Error(), "navigated or closed") && !strings.Contains(err.Error(), "context") {
				return err
			}
		}
	})
}
