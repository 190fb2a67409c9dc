package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// buildFeria builds cmd/feria into dir, as `make build` does.
func buildFeria(dir string) (string, error) {
	bin := filepath.Join(dir, "feria")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/feria/feria/cmd/feria").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
}

// proc is a process of the run's own: feria, or the anchor service.
type proc struct {
	cmd  *exec.Cmd
	base string // http://127.0.0.1:<port>, for serve, all and the anchor service
	log  *os.File
}

// atAddr is env without its HTTP_ADDR, given addr's instead when there is
// one: the run's environment for another process on the same backends.
func atAddr(env []string, addr string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(v string) bool { return strings.HasPrefix(v, "HTTP_ADDR=") })
	if addr != "" {
		out = append(out, "HTTP_ADDR="+addr)
	}
	return out
}

// startProc runs `bin command` with exactly env (nothing of the
// harness's environment leaks in); given an addr (serve, all, the anchor
// service) it waits until /health/live answers there.
func startProc(bin, command string, env []string, addr string) (*proc, error) {
	logf, err := os.CreateTemp("", "feria-bench-"+command+"-*.log")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, command)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	p := &proc{cmd: cmd, log: logf}
	if addr == "" {
		return p, nil
	}
	p.base = "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(p.base + "/health/live")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p, nil
			}
		}
		if time.Now().After(deadline) || cmd.ProcessState != nil {
			p.stop()
			b, _ := os.ReadFile(logf.Name())
			return nil, fmt.Errorf("%s %s did not answer /health/live within 60 s; its log:\n%s", filepath.Base(bin), command, tail(b, 3000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// stop ends the process with SIGTERM (SIGKILL after 20 s) and removes its
// log.
func (p *proc) stop() {
	if p.cmd.Process != nil && p.cmd.ProcessState == nil {
		p.cmd.Process.Signal(os.Interrupt) //nolint:errcheck // it may be gone
		done := make(chan struct{})
		go func() { p.cmd.Wait(); close(done) }() //nolint:errcheck // ended
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			p.cmd.Process.Kill() //nolint:errcheck // stuck
			<-done
		}
	}
	p.log.Close()
	os.Remove(p.log.Name())
}

// status reads kB fields of /proc/<pid>/status (VmRSS, VmHWM) in MB.
func (p *proc) status(field string) float64 {
	return procStatus(p.cmd.Process.Pid, field)
}

// settledRSS is the process's RSS once its start-up settled: the least of
// samples over d. Right after start-up the heap still holds the start's
// garbage until a collection and the scavenger return it, which a single
// sample counted or not by chance of timing.
func (p *proc) settledRSS(d time.Duration) float64 {
	least := p.status("VmRSS")
	for end := time.Now().Add(d); time.Now().Before(end); {
		time.Sleep(250 * time.Millisecond)
		if v := p.status("VmRSS"); v > 0 && v < least {
			least = v
		}
	}
	return least
}

func procStatus(pid int, field string) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
		return kb / 1024
	}
	return 0
}

// rssWatch samples a process's VmRSS every 100 ms until stopped and keeps
// the highest value seen (VmHWM would also count start-up and seeding).
type rssWatch struct {
	mu   sync.Mutex
	peak float64
	stop context.CancelFunc
	done chan struct{}
}

func watchRSS(pid int) *rssWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &rssWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			v := procStatus(pid, "VmRSS")
			w.mu.Lock()
			w.peak = max(w.peak, v)
			w.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return w
}

// end stops sampling and returns the peak in MB.
func (w *rssWatch) end() float64 {
	w.stop()
	<-w.done
	return w.peak
}
