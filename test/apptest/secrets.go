package apptest

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// The secret scan of a test run: with TEST_SECRETS_DIR
// set (make test sets it), every feria instance of the process also logs
// every record, debug included, to a file there, and every token and key a
// request carried is listed in another; deploy/scripts/secret-scan.sh then
// fails the run when any of them appears in a log.
var secrets struct {
	once sync.Once
	dir  string
	log  io.Writer
	mu   sync.Mutex
	seen map[string]bool
	list *os.File
}

func secretsDir() string {
	secrets.once.Do(func() {
		secrets.dir = os.Getenv("TEST_SECRETS_DIR")
		if secrets.dir == "" {
			return
		}
		pid := os.Getpid()
		f, err := os.OpenFile(filepath.Join(secrets.dir, fmt.Sprintf("log-%d.jsonl", pid)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			secrets.dir = ""
			return
		}
		l, err := os.OpenFile(filepath.Join(secrets.dir, fmt.Sprintf("secrets-%d.txt", pid)), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			secrets.dir = ""
			return
		}
		secrets.log, secrets.list, secrets.seen = &lockedWriter{w: f}, l, map[string]bool{}
	})
	return secrets.dir
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// scanned adds the secret scan's debug log beside h.
func scanned(h slog.Handler) slog.Handler {
	if secretsDir() == "" {
		return h
	}
	return slog.NewMultiHandler(h, slog.NewJSONHandler(secrets.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// recordSecrets lists the credentials req carries: bearer tokens, the
// password of basic auth, the sandbox key, access_token and refresh_token
// values and a token in a revocation's path.
func recordSecrets(req *http.Request) {
	if secretsDir() == "" {
		return
	}
	var found []string
	if h := req.Header.Get("Authorization"); h != "" {
		kind, v, _ := strings.Cut(h, " ")
		switch strings.ToLower(kind) {
		case "bearer":
			found = append(found, strings.TrimSpace(v))
		case "basic":
			if raw, err := base64.StdEncoding.DecodeString(v); err == nil {
				_, pass, _ := strings.Cut(string(raw), ":")
				found = append(found, pass)
			}
		}
	}
	found = append(found, req.Header.Get("X-Sandbox-Key"), req.URL.Query().Get("access_token"), req.URL.Query().Get("refresh_token"))
	if rest, ok := strings.CutPrefix(req.URL.Path, "/sandbox/tokens/"); ok {
		found = append(found, rest)
	}
	recordValues(found...)
}

// recordValues lists tokens and keys a test instance was given.
func recordValues(found ...string) {
	if secretsDir() == "" {
		return
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	for _, s := range found {
		// Short values ("good", "x") would match ordinary log text.
		if len(s) < 8 || secrets.seen[s] || strings.ContainsAny(s, "\n\r") {
			continue
		}
		secrets.seen[s] = true
		fmt.Fprintln(secrets.list, s)
	}
}

// dumpJournal writes what the instance's request journal stored, entry by
// entry as Redis holds it, beside the logs, so that the secret scan also
// reads every stored header and body.
func (a *App) dumpJournal() {
	if secretsDir() == "" || a.Deps.ControlsRedis == nil {
		return
	}
	raws, err := a.Deps.ControlsRedis.LRange(context.Background(), "feria:control:journal", 0, -1).Result()
	if err != nil || len(raws) == 0 {
		return
	}
	var b strings.Builder
	for _, raw := range raws {
		// One entry a line (the scan counts them): the new lines an
		// entry holds (its bodies are stored as they are) written as \n.
		b.WriteString(strings.ReplaceAll(raw, "\n", `\n`))
		b.WriteByte('\n')
	}
	secrets.mu.Lock()
	defer secrets.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(secrets.dir, fmt.Sprintf("journal-%d.jsonl", os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.WriteString(b.String())
}
