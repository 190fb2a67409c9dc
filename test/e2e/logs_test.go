package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// oneValueAKey reads one JSON value from dec and fails on a key that an
// object of it holds twice (log processors keep one of them).
func oneValueAKey(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			key := k.(string)
			if seen[key] {
				return fmt.Errorf("key %q twice", key)
			}
			seen[key] = true
			if err := oneValueAKey(dec); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		for dec.More() {
			if err := oneValueAKey(dec); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

// TestLogLinesAreJSONWithOneValueAKey: the log of `feria all` through a
// short scenario (a world, events, an upload and its notice, a copy and a
// notification to an application, an error, a shutdown), asynq's lines
// included, is one JSON object a line with one value a key, when stderr is
// no terminal.
func TestLogLinesAreJSONWithOneValueAKey(t *testing.T) {
	t.Parallel()
	cb := newCallbackServer(t)
	p := startEmbedded(t, t.TempDir(), "LOG_LEVEL=debug", "WORKER_DELAYED_CHECK=200ms")
	copies := loadKillWorld(t, p, cb, 1)
	r := &killRound{n: 1}
	r.write(t, p)
	r.check(t, p, cb, copies)
	if st, b := p.as(t, "APP_USR-seller", "GET", "/items/MLA4242", nil); st != 404 {
		t.Fatalf("unknown item: %d %s", st, b)
	}
	p.stop(t)

	lines := strings.Split(strings.TrimSuffix(p.logs.log(), "\n"), "\n")
	kinds := map[string]int{}
	for i, line := range lines {
		dec := json.NewDecoder(strings.NewReader(line))
		if err := oneValueAKey(dec); err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			t.Fatalf("line %d holds more than one JSON value:\n%s", i+1, line)
		}
		var v struct {
			Time, Level, Msg, Component string
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil || v.Time == "" || v.Level == "" || v.Msg == "" {
			t.Fatalf("line %d: no time, level or message (%v):\n%s", i+1, err, line)
		}
		switch {
		case v.Component == "asynq":
			kinds["asynq"]++
			if v.Msg == "asynq" {
				t.Fatalf("line %d: asynq's words are not the message:\n%s", i+1, line)
			}
		case v.Msg == "job":
			kinds["job"]++
		case v.Msg == "request":
			kinds["request"]++
		}
	}
	if kinds["asynq"] == 0 || kinds["job"] < 3 || len(lines) < 20 {
		t.Fatalf("%d lines, of kinds %v: want asynq's lines and the 3 jobs'\n%s", len(lines), kinds, p.logs.log())
	}
}

// openPty opens a pseudo-terminal: the side a process writes to, and the
// side that reads what it wrote.
func openPty(t *testing.T) (tty, reader *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	if err := unix.IoctlSetPointerInt(int(ptmx.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptmx.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tty, ptmx
}

// TestLogAtATerminalIsText: with stderr a terminal (as `make run` leaves
// it) the log is lines for a person: the time of day, the level, the
// message, then key=value; LOG_FORMAT=json asks for JSON all the same.
func TestLogAtATerminalIsText(t *testing.T) {
	t.Parallel()
	bin := feriaBinary(t)
	for _, c := range []struct {
		format string
		line   *regexp.Regexp
	}{
		{"", regexp.MustCompile(`^time=\d\d:\d\d:\d\d\.\d\d\d level=INFO msg=migrations applied=\d+ `)},
		{"json", regexp.MustCompile(`^\{"time":"[^"]+","level":"INFO","msg":"migrations","applied":\d+,`)},
	} {
		tty, reader := openPty(t)
		cmd := exec.Command(bin, "migrate")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DATA_DIR=" + t.TempDir(), "LOG_FORMAT=" + c.format}
		var stdout bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, tty
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		var lines []string
		sc := bufio.NewScanner(reader)
		for sc.Scan() { // ends with EIO once nothing holds the terminal open
			lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
		}
		found := false
		for _, l := range lines {
			found = found || c.line.MatchString(l)
		}
		if !found || stdout.Len() != 0 {
			t.Errorf("LOG_FORMAT=%q at a terminal: no line like %s in\n%s\nstdout: %q", c.format, c.line, strings.Join(lines, "\n"), stdout.String())
		}
	}
}
