package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// load is what one side of a row sends: HTTP requests (wrk drives them to
// saturation, vegeta at a fixed rate), a call made in this process (the
// anchors that talk to Redis or MinIO with no HTTP in between), or a run
// of another generator (ext: its sample and its own CPU).
type load struct {
	req *request
	fn  func() error
	ext func(conc int, d time.Duration) (sample, float64, error)
	// server is the process that answers (cpuNames): the client's CPU per
	// request must stay under its own, or the client was the limit.
	server string
}

// request describes the HTTP requests of a load.
type request struct {
	method, base string
	// paths are sent in turn (rotate) or each once, from *fresh on (the
	// uploads, each to a pack of its own).
	paths  []string
	fresh  *atomic.Int64
	header []string // name, value, ...
	body   []byte
	// events: each request's body is a batch of 100 contact events never
	// seen before, their ids starting with this prefix.
	events string
	want   int // the status of a good answer
	size   int // the body's length of a good answer, when it matters
}

// genRun numbers the runs of generators, so that the events of each are
// new.
var genRun atomic.Int64

// eventsLua is the Lua of a batch of 100 new events, as eventsBody makes
// them in Go.
const eventsLua = `local n = 0
local function events()
	local parts = {}
	for k = 1, 100 do
		n = n + 1
		parts[k] = string.format('{"id":"%s-%d","item_id":"MLA%d","type":"phone_view","date":"2026-0%d-%02dT%02d:%02d:00Z"}',
			prefix, n, 2000 + n % 50, 1 + n % 9, 1 + n % 28, n % 24, n % 60)
	end
	return '{"events":[' .. table.concat(parts, ",") .. ']}'
end
`

// script writes the wrk script of q into dir: its method, headers and
// body, its paths, and a done() that prints the counts and quantiles the
// harness reads (wrkResult).
func (q *request) script(dir string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %s\n", luaString(q.method))
	for i := 0; i+1 < len(q.header); i += 2 {
		fmt.Fprintf(&b, "wrk.headers[%s] = %s\n", luaString(q.header[i]), luaString(q.header[i+1]))
	}
	if q.body != nil {
		bodyFile := filepath.Join(dir, "body")
		if err := os.WriteFile(bodyFile, q.body, 0o600); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "local f = io.open(%s, \"rb\")\nwrk.body = f:read(\"*a\")\nf:close()\n", luaString(bodyFile))
	}
	paths := q.paths
	if q.fresh != nil {
		paths = paths[min(int(q.fresh.Load()), len(paths)):]
		if len(paths) == 0 {
			return "", errExhausted
		}
	}
	b.WriteString("local paths = {")
	for i, p := range paths {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(luaString(p))
	}
	// wrk calls request() once before it connects, a request never sent:
	// i starts at -1 so that the first sent is paths[1] all the same.
	b.WriteString("}\nlocal i = -1\n")
	body := "nil"
	if q.events != "" {
		fmt.Fprintf(&b, "local prefix = %s\n%s", luaString(fmt.Sprint(q.events, "w", genRun.Add(1))), eventsLua)
		body = "events()"
	}
	// One path and a fixed body: wrk formats the request once.
	if len(paths) > 1 || q.events != "" {
		next := "math.max(i, 0) % #paths + 1" // in turn
		if q.fresh != nil {
			next = "math.min(math.max(i, 0) + 1, #paths)" // each once; past the end, a 409 that counts as an error
		}
		fmt.Fprintf(&b, "request = function()\n\tlocal p = paths[%s]\n\ti = i + 1\n\treturn wrk.format(nil, p, nil, %s)\nend\n", next, body)
	}
	b.WriteString(`done = function(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("wrk-result %d %d %d %d %d %d\n", summary.requests, summary.duration,
		latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`)
	file := filepath.Join(dir, "load.lua")
	return file, os.WriteFile(file, []byte(b.String()), 0o600)
}

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// clientCPU is the core wrk is pinned to (taskset): the last one, with one
// thread, so that the client takes as little of the machine as it can
// and always the same part of it.
func clientCPU() string { return strconv.Itoa(runtime.NumCPU() - 1) }

// wrkLoad runs wrk (one thread, conc connections) on q for d: the
// saturated rate, p50/p99, and wrk's own CPU.
func wrkLoad(q *request, conc int, d time.Duration) (sample, float64, error) {
	dir, err := os.MkdirTemp("", "feria-bench-wrk")
	if err != nil {
		return sample{}, 0, err
	}
	defer os.RemoveAll(dir)
	script, err := q.script(dir)
	if err != nil {
		return sample{}, 0, err
	}
	out, client, err := pinned("wrk", "-t1", fmt.Sprint("-c", conc), fmt.Sprintf("-d%ds", max(1, int(d.Round(time.Second).Seconds()))),
		"--timeout", "30s", "-s", script, q.base+q.paths[0])
	if err != nil {
		return sample{}, client, err
	}
	s, err := wrkResult(out)
	if err != nil {
		return s, client, fmt.Errorf("%s %s: %w", q.method, q.paths[0], err)
	}
	if q.fresh != nil {
		// The requests still in flight when wrk stopped may have been
		// served: their packs are spent too.
		q.fresh.Add(int64(s.ops + conc))
	}
	return s, client, nil
}

// pinned runs a generator on the client's core (taskset, where there is
// one) and returns its output and its own CPU seconds.
func pinned(name string, args ...string) ([]byte, float64, error) {
	cmd := exec.Command(name, args...)
	if tasks, err := exec.LookPath("taskset"); err == nil {
		cmd = exec.Command(tasks, append([]string{"-c", clientCPU(), name}, args...)...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, 0, fmt.Errorf("%s: %v\n%s", name, err, tail(out.Bytes(), 2000))
	}
	client := 0.0
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		client = tv(ru.Utime) + tv(ru.Stime)
	}
	return out.Bytes(), client, nil
}

// wrkResult reads the line the script's done() prints.
func wrkResult(out []byte) (sample, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 7 || f[0] != "wrk-result" {
			continue
		}
		var v [6]int64
		for i := range v {
			n, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return sample{}, fmt.Errorf("wrk's result %q: %w", sc.Text(), err)
			}
			v[i] = n
		}
		if v[4] > 0 || v[5] > 0 {
			return sample{}, fmt.Errorf("%d answers of another status, %d socket errors in %d requests:\n%s", v[4], v[5], v[0], tail(out, 1500))
		}
		return sample{ops: int(v[0]), elapsed: time.Duration(v[1]) * time.Microsecond,
			p50: time.Duration(v[2]) * time.Microsecond, p99: time.Duration(v[3]) * time.Microsecond}, nil
	}
	return sample{}, fmt.Errorf("wrk printed no result:\n%s", tail(out, 2000))
}

// targeter is q for vegeta: the same requests, made in Go.
func (q *request) targeter() vegeta.Targeter {
	hdr := http.Header{}
	for i := 0; i+1 < len(q.header); i += 2 {
		hdr.Set(q.header[i], q.header[i+1])
	}
	var i, events atomic.Int64
	prefix := fmt.Sprint(q.events, "v", genRun.Add(1))
	return func(t *vegeta.Target) error {
		var p string
		if q.fresh != nil {
			n := int(q.fresh.Add(1)) - 1
			if n >= len(q.paths) {
				return vegeta.ErrNoTargets
			}
			p = q.paths[n]
		} else {
			p = q.paths[int(i.Add(1)-1)%len(q.paths)]
		}
		t.Method, t.URL, t.Header, t.Body = q.method, q.base+p, hdr, q.body
		if q.events != "" {
			t.Body = eventsBody(prefix, &events)
		}
		return nil
	}
}

// halfTransport is vegeta's transport for one path's half load: its
// warm-up and its measure share the connections (the measure starts on
// open ones, as every closed-loop run does), and closing them at the end
// (CloseIdleConnections), as the vegeta command does by exiting, keeps
// them off the server: left open, each measure's connections (up to 256)
// stayed there until its idle timeout, and the server's memory under the
// next measure counted every earlier one's.
func halfTransport() *http.Transport {
	return &http.Transport{MaxIdleConnsPerHost: vegeta.DefaultConnections,
		DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext}
}

// clientHeap bounds the heap of the half load's client, which collects
// nothing below it.
const clientHeap = 4 << 30

// vegetaLoad sends q at rate for d over tr (vegeta: an open loop, each
// request at its instant whatever the answers' pace) with this process
// held to one core, and returns the latencies, the requests that failed,
// and the harness's CPU meanwhile (the client's).
func vegetaLoad(tr *http.Transport, q *request, rate float64, d time.Duration) (sample, float64, error) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	// No collection in the client while it measures, unless its heap nears
	// clientHeap: a cycle on its one core holds the requests due meanwhile
	// (a mark of 4-11 ms every 95 ms at the family count's half rate), and
	// the tail counted from their instants was partly the client's own
	// (the family count's p99, eight runs each way: median 20.8 ms with
	// the client collecting, 13.6 without). A 10 s window allocates about
	// 1.5 GB at most. It starts collected, with no cycle in flight (the
	// warm-up's garbage would start one as collection resumes).
	runtime.GC()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(clientHeap))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// An answer whose length is not checked is read to its end but kept
	// only up to what a failure's message shows: a client held to one core
	// that keeps every body of a list (tens of KiB) spends its core on
	// their garbage and lags behind its schedule.
	maxBody := int64(512)
	if q.size > 0 {
		maxBody = -1
	}
	atk := vegeta.NewAttacker(vegeta.Client(&http.Client{Timeout: 30 * time.Second, Transport: tr}), vegeta.MaxWorkers(256), vegeta.MaxBody(maxBody))
	cpu0 := selfCPU()
	t0 := time.Now()
	var s sample
	bad := 0
	var firstBad string
	for res := range atk.Attack(q.targeter(), vegeta.Rate{Freq: max(1, int(rate)), Per: time.Second}, d, "half") {
		if res.Code != uint16(q.want) || q.size > 0 && int(res.BytesIn) != q.size {
			if bad++; bad == 1 {
				firstBad = fmt.Sprintf("%d %s %s", res.Code, res.Error, tail(res.Body, 300))
			}
			continue
		}
		s.lats = append(s.lats, res.Latency)
	}
	s.ops, s.elapsed = len(s.lats), time.Since(t0)
	client := selfCPU() - cpu0
	if bad > 0 {
		return s, client, fmt.Errorf("%s %s at %.0f/s: %d requests failed, the first: %s", q.method, q.paths[0], rate, bad, firstBad)
	}
	s.quantiles()
	return s, client, nil
}

// check sends one request of q through Go's client and checks its answer
// (status and size): wrk counts only statuses.
func (q *request) check() error {
	var t vegeta.Target
	if err := q.targeter()(&t); err != nil {
		return err
	}
	var header []string
	for k, v := range t.Header {
		header = append(header, k, v[0])
	}
	b, err := do(t.Method, t.URL, t.Body, q.want, header...)
	if err == nil && q.size > 0 && len(b) != q.size {
		err = fmt.Errorf("%s %s: %d bytes, want %d", t.Method, t.URL, len(b), q.size)
	}
	return err
}

// run measures l's saturated rate for d and what every process spent.
func (l load) run(ctx context.Context, w *cpuWatch, conc int, d time.Duration) (sample, map[string]float64, error) {
	before := w.snap(ctx)
	var s sample
	var client float64
	var err error
	switch {
	case l.req != nil:
		s, client, err = wrkLoad(l.req, conc, d)
	case l.ext != nil:
		s, client, err = l.ext(conc, d)
	default:
		s, err = closedLoop(conc, d, l.fn)
	}
	after := w.snap(ctx)
	if l.req == nil && l.ext == nil {
		client = after.self - before.self
	}
	return s, cpuUse(before, after, client), err
}

// half sends l at rate for d from an open-loop client: vegeta for HTTP
// (over tr), openLoop for a call made in this process. It returns the
// client's CPU meanwhile, 0 for a call made in this process (the harness
// is then the server's caller and its client at once).
func (l load) half(tr *http.Transport, rate float64, d time.Duration) (sample, int, float64, error) {
	switch {
	case l.req != nil:
		s, client, err := vegetaLoad(tr, l.req, rate, d)
		return s, 0, client, err
	case l.fn == nil:
		return sample{}, 0, 0, fmt.Errorf("no open loop for this load")
	}
	s, dropped, err := openLoop(rate, d, l.fn)
	return s, dropped, 0, err
}

// warm runs l for d (when d > 0) and drops the result (its connections,
// the servers' caches); an HTTP load is first checked once through Go's
// client.
func (l load) warm(ctx context.Context, w *cpuWatch, conc int, d time.Duration) error {
	if l.req != nil {
		if err := l.req.check(); err != nil {
			return err
		}
	}
	if d <= 0 {
		return nil
	}
	_, _, err := l.run(ctx, w, conc, d)
	return err
}
