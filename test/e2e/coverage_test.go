package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/feria/feria/adapters/httpapi/controlapi"
	"github.com/feria/feria/app"
	"github.com/feria/feria/docs"
	"github.com/feria/feria/test/apptest"
)

// feria coverage prints the summary and the gaps of a running sandbox and
// fails a CI step under its threshold, or with a wrong key.
func TestCoverageCommand(t *testing.T) {
	t.Parallel() // an instance, a listener and a coverage count of its own
	a := apptest.NewSample(t, apptest.Embedded)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go a.HTTP.Listener(ln) //nolint:errcheck // ends when the app shuts down
	base := "http://" + ln.Addr().String()
	a.Do("GET", "/items/MLA1100", nil).OK(t, 200)
	a.Do("GET", "/items/MLA999999", nil).OK(t, 404)
	a.Do("GET", "/categories/MLA1747/shipping_preferences", nil).OK(t, 200)
	ops, _ := controlapi.Operations(docs.OpenAPI)

	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := app.Run(t.Context(), append([]string{"coverage"}, args...), func(string) string { return "" }, &out, io.Discard)
		return out.String(), err
	}
	out, err := run("--base", base+"/", "--key", apptest.SandboxKey, "--min-operations", "2")
	if err != nil {
		t.Fatalf("--min-operations 2: %v\n%s", err, out)
	}
	head := fmt.Sprintf("coverage of %s/ since ", base)
	summary := fmt.Sprintf(": 2 of %d operations called, 1 saw an error\nnever called (%d):\n", len(ops), len(ops)-2)
	if !strings.HasPrefix(out, head) || !strings.Contains(out, summary) ||
		!strings.Contains(out, "\n  contacts           GET    /items/{item_id}/contacts/questions\n") ||
		!strings.HasSuffix(out, "called, never answered an error (1):\n  shipping           GET    /categories/{category_id}/shipping_preferences\n") {
		t.Errorf("output:\n%s", out)
	}
	if _, err := run("--base", base, "--key", apptest.SandboxKey, "--min-operations", "3"); err == nil ||
		err.Error() != "coverage: 2 operations called, fewer than --min-operations 3" {
		t.Errorf("--min-operations 3: %v", err)
	}
	if _, err := run("--base", base, "--key", "wrong-key"); err == nil || !strings.Contains(err.Error(), "answered 401") {
		t.Errorf("a wrong key: %v", err)
	}
	if _, err := run("--base", base); err == nil || !strings.HasPrefix(err.Error(), "usage: feria coverage") {
		t.Errorf("without --key: %v", err)
	}
}
