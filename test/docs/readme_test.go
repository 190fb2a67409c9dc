package docs

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// built is the feria binary of this test process, built once.
var built struct {
	once sync.Once
	dir  string
	err  error
}

// TestMain builds the binary before any test starts: a fixture of the
// package, so that no test's time is a link on a busy machine.
func TestMain(m *testing.M) {
	built.once.Do(build) // an error fails each test that needs the binary
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// binary builds cmd/feria into a bin/ directory of its own, as `make build`
// does into the clone's.
func binary(t *testing.T) string {
	t.Helper()
	built.once.Do(build)
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "bin", "feria")
}

func build() {
	if built.dir, built.err = os.MkdirTemp("", "feria-docs"); built.err != nil {
		return
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(built.dir, "bin", "feria"), "github.com/feria/feria/cmd/feria").CombinedOutput()
	if err != nil {
		built.err = fmt.Errorf("go build: %v\n%s", err, out)
	}
}

// block is one fenced code block of the README.
type block struct {
	lang, file, body string
}

// blocks are the fenced code blocks of text. A block whose info string names
// a file after the language ("```json world.json") is that file's content.
func blocks(t *testing.T, text string) []block {
	t.Helper()
	var out []block
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		info := strings.Fields(strings.TrimPrefix(lines[i], "```"))
		var b block
		if len(info) > 0 {
			b.lang = info[0]
		}
		if len(info) > 1 {
			b.file = info[1]
		}
		var body []string
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			body = append(body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("README: unclosed code block %q", lines[len(lines)-1])
		}
		b.body = strings.Join(body, "\n") + "\n"
		out = append(out, b)
	}
	return out
}

// The README's commands are what a newcomer types first. Each section below
// runs as one bash script, in a directory of its own, against feria started
// the way `make run` starts it (deploy/scripts/run-demo.sh: the embedded
// mode with the demo world and the README's keys), on a free port that
// replaces the README's localhost:8080: every ```sh block in order, after
// writing each ```<lang> <file> block to its file. curl fails on an HTTP
// error (--fail-with-body) and the script stops at the first failing
// command, so a command that stops working fails this test.
func TestReadmeCommands(t *testing.T) {
	readme := readFile(t, "README.md")
	bin := binary(t)
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	startDemo(t, bin, repo, addr)

	for _, heading := range []string{"## Try it", "## Use it with your integration"} {
		text := section(t, readme, heading)
		dir := t.TempDir()
		script := []string{
			"set -euo pipefail -x",
			"curl() { command curl --fail-with-body --show-error \"$@\"; }",
		}
		runs := 0
		for _, b := range blocks(t, text) {
			if n, all := strings.Count(b.body, "8080"), strings.Count(b.body, "localhost:8080"); n != all {
				t.Fatalf("%s: a block names port 8080 otherwise than as localhost:8080, which this test replaces:\n%s", heading, b.body)
			}
			body := strings.ReplaceAll(b.body, "localhost:8080", addr)
			switch {
			case b.file != "":
				if err := os.WriteFile(filepath.Join(dir, b.file), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			case b.lang == "sh":
				script = append(script, body)
				runs++
			default:
				t.Fatalf("%s: a ```%s block neither runs (sh) nor names its file (```%s name):\n%s", heading, b.lang, b.lang, b.body)
			}
		}
		if runs == 0 {
			t.Fatalf("%s: no ```sh block", heading)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", strings.Join(script, "\n"))
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s: the README's commands failed (%v); the trace, last command last:\n%s", heading, err, out)
		}
		t.Logf("%s: %d blocks ran", heading, runs)
	}
}

// startDemo runs deploy/scripts/run-demo.sh (what `make run` runs) on addr
// with the binary under test, in a directory of its own, until the test ends.
func startDemo(t *testing.T, bin, repo, addr string) {
	t.Helper()
	wd := t.TempDir()
	for link, target := range map[string]string{"bin": filepath.Dir(bin), "deploy": filepath.Join(repo, "deploy")} {
		if err := os.Symlink(target, filepath.Join(wd, link)); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("bash", "deploy/scripts/run-demo.sh", addr, "feria-demo-sandbox-key", "feria-demo-admin-key")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "DATA_DIR="+filepath.Join(wd, "var"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var log strings.Builder
	ready, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if strings.HasPrefix(sc.Text(), "feria is running") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	output := func() string { mu.Lock(); defer mu.Unlock(); return log.String() }
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) //nolint:errcheck // gone already is fine
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }() //nolint:errcheck // stopped by us
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) //nolint:errcheck // last resort
			<-done
		}
		if t.Failed() {
			t.Logf("run-demo.sh output:\n%s", output())
		}
	})
	select {
	case <-ready:
		if strings.Contains(output(), "failed") {
			t.Fatalf("run-demo.sh did not load the demo world:\n%s", output())
		}
	case <-exited:
		t.Fatalf("run-demo.sh exited before feria was ready:\n%s", output())
	case <-time.After(90 * time.Second):
		t.Fatalf("run-demo.sh not ready after 90 s:\n%s", output())
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
