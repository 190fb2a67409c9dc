package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// FIXTURES_FILE: the world is loaded whole before the API listens, with a
// log line of what was loaded; a bad entry stops start-up with a log line
// naming it, and nothing of the file is stored; an unreadable file names
// the variable.
func TestFixturesFile(t *testing.T) {
	bin := feriaBinary(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "var")
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	users := `{"id": 1001, "nickname": "MYSELLER", "site_id": "MLA", "access_token": "APP_USR-my-seller"},
		{"id": 1002, "nickname": "MYBUYER", "site_id": "MLA"}`
	good := write("world.json", `{"users": [`+users+`],
		"categories": [{"id": "MLA5000", "site_id": "MLA", "name": "Auriculares", "compatibilities": null}],
		"items": [{"id": "MLA5001", "site_id": "MLA", "seller_id": 1001, "title": "Auriculares", "category_id": "MLA5000", "price": 25000}]}`)
	bad := write("bad.json", `{"users": [`+users+`],
		"items": [{"id": "MLA5001", "site_id": "MLA", "seller_id": 999, "title": "X", "category_id": "MLA5000", "price": 1}]}`)

	start := func(t *testing.T, fixtures string) (base string, logs *lockedBuffer, wait func() error, stop func()) {
		t.Helper()
		port := freePort(t)
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), "HTTP_ADDR=127.0.0.1:"+fmt.Sprint(port), "DATA_DIR="+data, "SANDBOX_KEY=k",
			"DATABASE_URL=", "REDIS_URL=", "S3_ENDPOINT=", "FIXTURES_FILE="+fixtures)
		logs = &lockedBuffer{}
		cmd.Stdout, cmd.Stderr = logs, logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		wait = func() error {
			select {
			case err := <-done:
				return err
			case <-time.After(30 * time.Second):
				cmd.Process.Kill() //nolint:errcheck // stuck
				return fmt.Errorf("did not exit")
			}
		}
		stop = func() {
			cmd.Process.Kill() //nolint:errcheck // done with it
			<-done
		}
		return fmt.Sprintf("http://127.0.0.1:%d", port), logs, wait, stop
	}
	ready := func(t *testing.T, base string, logs *lockedBuffer) {
		t.Helper()
		for range 150 {
			if res, err := http.Get(base + "/health/ready"); err == nil {
				res.Body.Close()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("not ready:\n%s", logs)
	}
	get := func(t *testing.T, base, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), "GET", base+path, nil)
		req.Header.Set("X-Sandbox-Key", "k")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	t.Run("a refused entry stops start-up and stores nothing", func(t *testing.T) {
		_, logs, wait, _ := start(t, bad)
		if err := wait(); err == nil {
			t.Fatalf("feria started with a bad world file:\n%s", logs)
		}
		out := logs.String()
		for _, want := range []string{
			`"msg":"fixtures refused; nothing of the file was loaded"`, `"entry":"items[0]"`,
			`"reason":"items[0]: seller 999 does not exist"`,
			"feria: FIXTURES_FILE: " + bad + " refused: items[0]: seller 999 does not exist",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %s:\n%s", want, out)
			}
		}
		base, logs, _, stop := start(t, "")
		defer stop()
		ready(t, base, logs)
		if st, body := get(t, base, "/sandbox/users/1001"); st != 404 {
			t.Errorf("user 1001 of the refused file: %d %s", st, body)
		}
	})

	t.Run("a good world is loaded before the API listens", func(t *testing.T) {
		base, logs, _, stop := start(t, good)
		defer stop()
		ready(t, base, logs)
		if !strings.Contains(logs.String(), `"msg":"fixtures loaded","file":"`+good+`","loaded":{"categories":1,"items":1,"users":2}`) {
			t.Errorf("no line of what was loaded:\n%s", logs)
		}
		if st, body := get(t, base, "/items/MLA5001"); st != 200 || !strings.Contains(body, `"seller_id":1001`) {
			t.Errorf("item of the world file: %d %s", st, body)
		}
	})

	t.Run("an unreadable file names the variable", func(t *testing.T) {
		_, logs, wait, _ := start(t, filepath.Join(dir, "missing.json"))
		if err := wait(); err == nil || !strings.Contains(logs.String(), "feria: FIXTURES_FILE: open "+filepath.Join(dir, "missing.json")) {
			t.Errorf("missing file: %v\n%s", err, logs)
		}
	})
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
