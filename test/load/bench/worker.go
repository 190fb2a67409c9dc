package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/uptrace/bun"

	"github.com/feria/feria/test/load/loadrun"
)

// drained is what one worker phase did: the jobs it ran and how long it
// took from its start (or the first request) to the outbox and every
// queue empty.
type drained struct {
	what     string
	messages int // outbox messages waiting, or requests sent
	jobs     int
	byQueue  map[string]int
	took     time.Duration
}

func (d drained) perSec() float64 {
	if d.took <= 0 {
		return 0
	}
	return float64(d.jobs) / d.took.Seconds()
}

// workerResult is what one `feria worker` process did.
type workerResult struct {
	phases      []drained
	idle, peak  float64
	concurrency string
}

// measureWorker starts one `feria worker` (default settings) once the
// load has ended, the API still up and idle. First it relays the outbox
// the fiscal uploads wrote and runs the jobs that come of it (each
// upload's notice: the buyer's e-mail, logged as no SMTP_URL is set, and
// the notification); then copies of the 200 compatibilities of the read
// item onto fresh items are asked for through the API (a bulk job each).
// Jobs/s from the worker's start (from the first copy asked for) to the
// outbox and every queue empty; the worker's RSS.
func measureWorker(ctx context.Context, bin string, env []string, db *bun.DB, redisURL string, p *paths, copies int) (workerResult, error) {
	var res workerResult
	ropt, err := asynq.ParseRedisURI(redisURL)
	if err != nil {
		return res, err
	}
	in := asynq.NewInspector(ropt)
	defer in.Close()
	processed := func() (int, map[string]int, int, error) {
		qs, err := in.Queues()
		if err != nil {
			return 0, nil, 0, err
		}
		total, open := 0, 0
		by := map[string]int{}
		for _, q := range qs {
			info, err := in.GetQueueInfo(q)
			if err != nil {
				return 0, nil, 0, err
			}
			by[q] = info.Processed
			total += info.Processed
			open += info.Pending + info.Active + info.Scheduled + info.Retry + info.Aggregating
		}
		return total, by, open, nil
	}
	var wk *proc
	// drain waits until the outbox and every queue are empty, from t0.
	drain := func(what string, messages int, t0 time.Time, before int, beforeBy map[string]int) (drained, error) {
		d := drained{what: what, messages: messages}
		deadline := t0.Add(4 * time.Minute)
		quiet := 0
		for {
			time.Sleep(50 * time.Millisecond)
			if wk.cmd.ProcessState != nil {
				b, _ := os.ReadFile(wk.log.Name())
				return d, fmt.Errorf("feria worker ended: %s", tail(b, 2000))
			}
			var pending int
			if err := db.NewRaw("SELECT count(*) FROM outbox WHERE relayed_at IS NULL").Scan(ctx, &pending); err != nil {
				return d, err
			}
			_, _, open, err := processed()
			if err != nil {
				return d, err
			}
			if pending == 0 && open == 0 {
				// Two quiet looks in a row: a job's follow-up goes through
				// the outbox, which one look may catch in between.
				if quiet++; quiet == 2 {
					break
				}
				continue
			}
			quiet = 0
			if time.Now().After(deadline) {
				return d, fmt.Errorf("%s: outbox %d and %d jobs still open after %s", what, pending, open, time.Since(t0))
			}
		}
		d.took = time.Since(t0)
		after, afterBy, _, err := processed()
		if err != nil {
			return d, err
		}
		d.jobs = after - before
		d.byQueue = map[string]int{}
		for q, n := range afterBy {
			if k := n - beforeBy[q]; k > 0 {
				d.byQueue[q] = k
			}
		}
		fmt.Printf("worker, %s: %d jobs %v in %s = %.0f jobs/s\n", what, d.jobs, d.byQueue, d.took.Round(time.Millisecond), d.perSec())
		return d, nil
	}

	if _, err := db.NewRaw("DELETE FROM outbox WHERE task_type = ?", floorTask).Exec(ctx); err != nil {
		return res, err
	}
	var messages int
	if err := db.NewRaw("SELECT count(*) FROM outbox WHERE relayed_at IS NULL").Scan(ctx, &messages); err != nil {
		return res, err
	}
	before, beforeBy, _, err := processed()
	if err != nil {
		return res, err
	}
	res.concurrency = "10, WORKER_CONCURRENCY's default"
	fmt.Printf("worker: %d outbox messages waiting; starting one feria worker\n", messages)
	t0 := time.Now()
	if wk, err = startProc(bin, "worker", atAddr(env, ""), ""); err != nil {
		return res, err
	}
	defer cleanup(wk.stop)()
	watch := watchRSS(wk.cmd.Process.Pid)
	defer watch.end()
	d, err := drain("fiscal upload notices", messages, t0, before, beforeBy)
	if err != nil {
		return res, err
	}
	res.phases = append(res.phases, d)

	if before, beforeBy, _, err = processed(); err != nil {
		return res, err
	}
	t0 = time.Now()
	for i := range copies {
		if err := p.copyTo(fmt.Sprint("MLA", copyBase+i)); err != nil {
			return res, err
		}
	}
	if d, err = drain("compatibility copies (200 each)", copies, t0, before, beforeBy); err != nil {
		return res, err
	}
	res.phases = append(res.phases, d)
	res.peak = watch.end()
	time.Sleep(2 * time.Second)
	res.idle = wk.status("VmRSS")
	fmt.Printf("worker: RSS peak %.1f MB, idle after %.1f MB\n", res.peak, res.idle)
	return res, nil
}

// measureEmbedded runs `feria all` in the embedded mode (SQLite, the
// in-process Redis, files under DATA_DIR), loads the same world and runs
// every path once with the same clients: its RSS idle and at its peak.
func measureEmbedded(o options, r *report, w world) (idle, peak float64, err error) {
	dir, err := os.MkdirTemp("", "feria-bench-embedded")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	port, err := loadrun.FreePort()
	if err != nil {
		return 0, 0, err
	}
	addr := fmt.Sprint("127.0.0.1:", port)
	all, err := startProc(o.bin, "all", []string{"HTTP_ADDR=" + addr, "DATA_DIR=" + dir, "SANDBOX_KEY=" + sandboxKey,
		"LOG_LEVEL=warn", `RATE_LIMITS={"rules": []}`}, addr)
	if err != nil {
		return 0, 0, err
	}
	defer cleanup(all.stop)()
	time.Sleep(2 * time.Second)
	idle = all.status("VmRSS")
	fmt.Printf("embedded: feria all (pid %d), RSS idle %.1f MB; seeding the same world\n", all.cmd.Process.Pid, idle)
	if _, err := w.seed(all.base); err != nil {
		return idle, 0, err
	}
	p := newPaths(all.base, w.packs, "e")
	if err := p.prepareDownloads(); err != nil {
		return idle, 0, err
	}
	watch := watchRSS(all.cmd.Process.Pid)
	for _, rw := range r.rows {
		if rw.of != nil {
			continue // a floor: its path is measured with its own row
		}
		l := load{req: rw.path(p, all.base)}
		if err := l.warm(context.Background(), nil, rw.connsOf(o), o.warm); err != nil {
			watch.end()
			return idle, 0, fmt.Errorf("embedded, %s: %w", rw.name, err)
		}
		s, _, err := l.run(context.Background(), nil, rw.connsOf(o), o.duration)
		if err != nil {
			watch.end()
			return idle, 0, fmt.Errorf("embedded, %s: %w", rw.name, err)
		}
		rw.embedded = s.perSec() * rw.perOp
		fmt.Printf("  embedded %-46s %9.0f %s\n", strings.ReplaceAll(rw.name, "`", ""), rw.embedded, rw.unit)
	}
	peak = watch.end()
	return idle, peak, nil
}
