package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/feria/feria/test/apptest"
)

// embeddedProcess is `feria all` in the embedded mode on dir.
type embeddedProcess struct {
	cmd  *exec.Cmd
	base string
	logs *output
}

// output is a process's stdout and stderr as they came, and its stderr
// (the log) alone.
type output struct {
	mu          sync.Mutex
	all, stderr bytes.Buffer
}

func (o *output) String() string { o.mu.Lock(); defer o.mu.Unlock(); return o.all.String() }

// log is the process's stderr.
func (o *output) log() string { o.mu.Lock(); defer o.mu.Unlock(); return o.stderr.String() }

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (o *output) writers() (stdout, stderr io.Writer) {
	return writerFunc(func(b []byte) (int, error) {
			o.mu.Lock()
			defer o.mu.Unlock()
			return o.all.Write(b)
		}), writerFunc(func(b []byte) (int, error) {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.stderr.Write(b)
			return o.all.Write(b)
		})
}

func startEmbedded(t *testing.T, dir string, env ...string) *embeddedProcess {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(feriaBinary(t), "all")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "HTTP_ADDR=127.0.0.1:" + fmt.Sprint(port),
		"DATA_DIR=" + dir, "SANDBOX_KEY=" + apptest.SandboxKey, "SHUTDOWN_TIMEOUT=5s"}, env...)
	p := &embeddedProcess{cmd: cmd, base: fmt.Sprintf("http://127.0.0.1:%d", port), logs: &output{}}
	cmd.Stdout, cmd.Stderr = p.logs.writers()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill() //nolint:errcheck // stopped by the test normally
			cmd.Wait()         //nolint:errcheck // killed
		}
	})
	for i := 0; i < 200; i++ {
		if res, err := http.Get(p.base + "/health/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("feria all did not get ready:\n%s", p.logs)
	return nil
}

func (p *embeddedProcess) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v\n%s", err, p.logs)
	}
}

func (p *embeddedProcess) do(t *testing.T, method, path string, body any) (int, string) {
	t.Helper()
	return p.call(t, method, path, "application/json", jsonBytes(body), "X-Sandbox-Key", apptest.SandboxKey)
}

// jsonBytes is body in JSON; nil is no body.
func jsonBytes(body any) []byte {
	if body == nil {
		return nil
	}
	b, _ := json.Marshal(body)
	return b
}

// call sends a request to the process with the headers given in pairs.
func (p *embeddedProcess) call(t *testing.T, method, path, contentType string, body []byte, headers ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, p.base+path, bytes.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// The embedded mode must not lose contact counters, event ids and queued
// jobs on a restart (they live in the in-process Redis). A clean restart on
// the same DATA_DIR keeps them.
func TestEmbeddedRestartKeepsCounters(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startEmbedded(t, dir)
	if st, b := p.do(t, "POST", "/sandbox/fixtures", apptest.Sample()); st != 200 {
		t.Fatalf("fixtures: %d %s", st, b)
	}
	events := map[string]any{"events": []any{
		map[string]any{"id": "e1", "item_id": "MLA1100", "type": "question", "date": "2026-11-20T10:00:00Z"},
		map[string]any{"id": "e2", "item_id": "MLA1100", "type": "question", "date": "2026-11-20T11:00:00Z"},
	}}
	if st, b := p.do(t, "POST", "/sandbox/contact_events", events); st != 200 || !strings.Contains(b, `"accepted":2`) {
		t.Fatalf("events: %d %s", st, b)
	}
	const total = "/items/MLA1100/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"
	_, before := p.do(t, "GET", total, nil)
	if !strings.Contains(before, `"total":2`) {
		t.Fatalf("before the restart: %s", before)
	}
	p.stop(t)

	p = startEmbedded(t, dir)
	defer p.stop(t)
	if _, after := p.do(t, "GET", total, nil); after != before {
		t.Fatalf("after the restart: %s; before: %s", after, before)
	}
	if st, b := p.do(t, "GET", "/sandbox/contact_events/e1", nil); st != 200 {
		t.Fatalf("event e1 after the restart: %d %s", st, b)
	}
	// The event ids are kept too: the same events again are duplicates.
	if st, b := p.do(t, "POST", "/sandbox/contact_events", events); st != 200 || !strings.Contains(b, `"duplicates":2`) {
		t.Fatalf("events again after the restart: %d %s", st, b)
	}
}
