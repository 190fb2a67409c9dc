package e2e

import (
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/feria/feria/docs"
)

// chromium is Debian's headless browser; `make test` installs it
// (deploy/scripts/test.sh) when it is missing.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("chromium is not installed: the reference page's test needs a headless browser.\n" +
		"Install Debian's package with `apt-get install -y chromium` (make test does it when it runs as root).")
	return ""
}

// A real browser shows the reference page of a running binary: headless
// Chromium opens /docs of `feria all`, with every host but the binary's
// unresolvable (the page must need no network), runs Redoc and renders the
// document; the rendered page names every area and every operation.
func TestDocsPageInABrowser(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	p := startEmbedded(t, t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	start := time.Now()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-extensions", "--no-first-run",
		"--user-data-dir="+t.TempDir(),
		// Any fetch beyond the binary fails: the page must be whole.
		"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
		// Redoc renders in JavaScript; virtual time lets it finish.
		"--virtual-time-budget=20000",
		"--dump-dom", p.base+"/docs")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := html.UnescapeString(string(out))
	t.Logf("chromium rendered /docs in %s (%d bytes of DOM)", time.Since(start).Round(time.Millisecond), len(out))

	doc, err := openapi3.NewLoader().LoadFromData(docs.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(dom, doc.Info.Title) || !strings.Contains(dom, "redoc") {
		t.Fatalf("the page did not render (no title %q); DOM starts:\n%.2000s", doc.Info.Title, dom)
	}
	for _, tag := range doc.Tags {
		if !strings.Contains(dom, tag.Name) {
			t.Errorf("the rendered page does not show the area %q", tag.Name)
		}
	}
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			if !strings.Contains(dom, op.Summary) {
				t.Errorf("the rendered page does not show %s %s (%q)", method, path, op.Summary)
			}
		}
	}
	if n < 100 {
		t.Fatalf("only %d operations in the document", n)
	}
	t.Log(fmt.Sprintf("%d areas and %d operations shown", len(doc.Tags), n))
}
