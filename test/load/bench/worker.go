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

// workerResult is what one `feria worker` process did with the jobs the
// uploads left behind.
type workerResult struct {
	messages    int // outbox messages waiting when it started
	jobs        int // jobs it processed (asynq's processed counts)
	byQueue     map[string]int
	took        time.Duration
	idle, peak  float64
	concurrency string
}

func (w workerResult) perSec() float64 {
	if w.took <= 0 {
		return 0
	}
	return float64(w.jobs) / w.took.Seconds()
}

// measureWorker starts one `feria worker` (default settings) once the API
// has stopped: it relays the outbox the fiscal uploads wrote (a
// notification of each upload) and runs the jobs that come of it (the
// buyer's e-mail, logged: no SMTP_URL) until the outbox and every queue
// are empty; jobs/s from its start to then, and its RSS.
func measureWorker(ctx context.Context, bin string, env []string, db *bun.DB, redisURL string) (workerResult, error) {
	var res workerResult
	if err := db.NewRaw("SELECT count(*) FROM outbox WHERE relayed_at IS NULL").Scan(ctx, &res.messages); err != nil {
		return res, err
	}
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
	before, beforeBy, _, err := processed()
	if err != nil {
		return res, err
	}
	var wenv []string
	for _, e := range env {
		if !strings.HasPrefix(e, "HTTP_ADDR=") {
			wenv = append(wenv, e)
		}
	}
	res.concurrency = "10 (WORKER_CONCURRENCY's default)"
	fmt.Printf("worker: %d outbox messages waiting; starting one feria worker\n", res.messages)
	t0 := time.Now()
	wk, err := startFeria(bin, "worker", wenv, "")
	if err != nil {
		return res, err
	}
	defer wk.stop()
	watch := watchRSS(wk.cmd.Process.Pid)
	deadline := t0.Add(4 * time.Minute)
	quiet := 0
	for {
		time.Sleep(50 * time.Millisecond)
		if wk.cmd.ProcessState != nil {
			b, _ := os.ReadFile(wk.log.Name())
			return res, fmt.Errorf("feria worker ended: %s", tail(b, 2000))
		}
		var pending int
		if err := db.NewRaw("SELECT count(*) FROM outbox WHERE relayed_at IS NULL").Scan(ctx, &pending); err != nil {
			return res, err
		}
		_, _, open, err := processed()
		if err != nil {
			return res, err
		}
		if pending == 0 && open == 0 {
			// Two quiet looks in a row: a job's follow-up goes through
			// the outbox, which the first look may have caught between.
			if quiet++; quiet == 2 {
				break
			}
			continue
		}
		quiet = 0
		if time.Now().After(deadline) {
			return res, fmt.Errorf("outbox %d and %d jobs still open after %s", pending, open, time.Since(t0))
		}
	}
	res.took = time.Since(t0)
	res.peak = watch.end()
	after, afterBy, _, err := processed()
	if err != nil {
		return res, err
	}
	res.jobs = after - before
	res.byQueue = map[string]int{}
	for q, n := range afterBy {
		if d := n - beforeBy[q]; d > 0 {
			res.byQueue[q] = d
		}
	}
	time.Sleep(2 * time.Second)
	res.idle = wk.status("VmRSS")
	fmt.Printf("worker: %d jobs in %s = %.0f jobs/s, RSS peak %.1f MB, idle after %.1f MB\n", res.jobs, res.took.Round(time.Millisecond), res.perSec(), res.peak, res.idle)
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
	all, err := startFeria(o.bin, "all", []string{"HTTP_ADDR=" + addr, "DATA_DIR=" + dir, "SANDBOX_KEY=" + sandboxKey,
		"LOG_LEVEL=warn", `RATE_LIMITS={"rules": []}`}, addr)
	if err != nil {
		return 0, 0, err
	}
	defer all.stop()
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
		s, err := closedLoop(o.conc, o.duration, rw.feria(p))
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
