package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/uptrace/bun"
)

// The processes whose CPU a run samples before and after each measure,
// in the order the tables show them.
const (
	cpuFeria     = "feria"
	cpuSandboxed = "feria with the sandbox"
	cpuAnchors   = "anchor service"
	cpuPGClients = "postgres backends"
	cpuPGOwn     = "postgres, its own processes"
	cpuRedis     = "redis-server"
	cpuMinIO     = "minio"
	cpuClient    = "client"
)

var cpuNames = []string{cpuFeria, cpuSandboxed, cpuAnchors, cpuPGClients, cpuPGOwn, cpuRedis, cpuMinIO, cpuClient}

// appName is the application_name of the run's PostgreSQL connections
// (feria's and the anchor service's): pg_stat_activity names their
// backends among the shared server's.
const appName = "feria-bench"

// clkTck is the kernel's USER_HZ, the unit of /proc/<pid>/stat's times
// (100 on every Linux the project runs on).
const clkTck = 100

// cpuWatch knows the processes of a run: the two feria instances and
// the anchor service by pid, the run's redis-server by its own word, the
// PostgreSQL backends of the run's connections and MinIO by name.
type cpuWatch struct {
	feria, sandboxed, anchors int
	redis                     int
	db                        *bun.DB
}

func newCPUWatch(ctx context.Context, rdb *redis.Client, db *bun.DB) (*cpuWatch, error) {
	w := &cpuWatch{db: db}
	info, err := rdb.Info(ctx, "server").Result()
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "process_id:"); ok {
			w.redis, _ = strconv.Atoi(v)
		}
	}
	if w.redis == 0 {
		return nil, fmt.Errorf("redis-server's INFO names no process_id")
	}
	return w, nil
}

// cpuSnap is the CPU seconds each process (or group) had used at an
// instant, and the harness's own.
type cpuSnap struct {
	at   time.Time
	secs map[string]float64
	self float64
}

// snap samples every process the run knows (none without a watch: the
// embedded mode's run, which measures rates only).
func (w *cpuWatch) snap(ctx context.Context) cpuSnap {
	s := cpuSnap{at: time.Now(), secs: map[string]float64{}, self: selfCPU()}
	if w == nil {
		return s
	}
	s.secs[cpuFeria] = procCPU(w.feria)
	s.secs[cpuSandboxed] = procCPU(w.sandboxed)
	s.secs[cpuAnchors] = procCPU(w.anchors)
	s.secs[cpuRedis] = procCPU(w.redis)
	for _, pid := range byName("minio") {
		s.secs[cpuMinIO] += procCPU(pid)
	}
	clients, own := w.pgPids(ctx)
	for _, pid := range clients {
		s.secs[cpuPGClients] += procCPU(pid)
	}
	for _, pid := range own {
		s.secs[cpuPGOwn] += procCPU(pid)
	}
	return s
}

// pgPids is the backends of the run's connections, and PostgreSQL's own
// processes (writers, checkpointer, autovacuum: shared with whatever
// else uses the server).
func (w *cpuWatch) pgPids(ctx context.Context) (clients, own []int) {
	rows, err := w.db.QueryContext(ctx, "SELECT pid, backend_type, application_name FROM pg_stat_activity")
	if err != nil {
		return nil, nil
	}
	defer rows.Close()
	for rows.Next() {
		var pid int
		var kind, app string
		if rows.Scan(&pid, &kind, &app) != nil {
			continue
		}
		switch {
		case app == appName:
			clients = append(clients, pid)
		case kind != "client backend":
			own = append(own, pid)
		}
	}
	return clients, own
}

// procCPU is a process's user and system CPU seconds so far (all its
// threads); 0 for a process that is gone.
func procCPU(pid int) float64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command may hold spaces: the fields start after its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / clkTck
}

// stolen is the CPU time the host has given to others while this
// machine's CPUs wanted it, summed over the CPUs, so far ("steal" of
// /proc/stat); 0 where the kernel does not count it.
func stolen() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	return stealOf(string(b))
}

// stealOf reads the steal of /proc/stat's first line (all CPUs):
// "cpu user nice system idle iowait irq softirq steal ...", in clkTck.
func stealOf(stat string) time.Duration {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	ticks, _ := strconv.ParseFloat(f[8], 64)
	return time.Duration(ticks / clkTck * float64(time.Second))
}

// byName is the pids of the processes whose command is name.
func byName(name string) []int {
	var out []int
	dirs, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, d := range dirs {
		b, err := os.ReadFile(d)
		if err != nil || strings.TrimSpace(string(b)) != name {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(d))); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// selfCPU is this process's CPU seconds so far.
func selfCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// cpuUse is what each process spent between two snapshots, the client's
// given apart (an external generator's own rusage, or the harness's).
func cpuUse(before, after cpuSnap, client float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after.secs {
		if d := v - before.secs[k]; d > 0 {
			out[k] = d
		}
	}
	out[cpuClient] = client
	return out
}
