package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/test/smtptest"
	"github.com/feria/feria/test/testenv"
)

// workerProcess is a `feria worker` subprocess with its output in a file.
type workerProcess struct {
	cmd *exec.Cmd
	log string
}

func startWorkerProcess(t *testing.T, bin string, env []string, n int) *workerProcess {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), fmt.Sprintf("worker-%d.log", n))
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "worker")
	// Only what feria needs: nothing of the test's environment leaks in.
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &workerProcess{cmd: cmd, log: logPath}
	t.Cleanup(func() {
		w.kill()
		f.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("worker %d output:\n%s", n, b)
		}
	})
	return w
}

// kill sends SIGKILL: no shutdown code of feria or asynq runs.
func (w *workerProcess) kill() {
	if w.cmd.ProcessState == nil {
		w.cmd.Process.Signal(syscall.SIGKILL) //nolint:errcheck // may be gone already
		w.cmd.Wait()                          //nolint:errcheck // killed
	}
}

// TestFiscalMailWorkerKilled: the buyer's e-mail arrives exactly once when
// the `feria worker` process is SIGKILLed while the mail server holds the
// message (its data sent, the server's final reply not yet given) and a
// second worker process starts. The server takes the mail only with its
// reply to the end of DATA, as SMTP servers do; the killed attempt never got
// that reply, so the first worker never delivered it.
//
// asynq hands the job of a dead process out again once its lease has expired
// for a while: a 30 s lease, then 30 s of clock-skew margin, both constants
// of asynq v0.26 that no option changes; a starting server's recoverer finds
// such jobs at once (then every minute) and retries them after the retry
// delay. The test waits for none of that in real time: it checks that the
// job is still leased to the dead worker, then moves that lease's deadline
// 60 s into the past, as the minute would have; the second worker runs with
// the configuration that shortens the rest (WORKER_RETRY_DELAY,
// WORKER_DELAYED_CHECK) instead of the production 15-45 s and 5 s.
//
// "accepted" is the other server: one that takes the
// message when its data ends and writes 250 after, as most do; the killed
// worker delivered it, the retry sends it again, and both copies carry the
// same Message-ID so that mail clients fold them.
func TestFiscalMailWorkerKilled(t *testing.T) {
	t.Parallel() // mostly waits on jobs, servers and timeouts: overlap with the others that do
	for _, accepted := range []bool{false, true} {
		t.Run(map[bool]string{false: "refused", true: "accepted"}[accepted], func(t *testing.T) {
			t.Parallel()
			workerKilled(t, accepted)
		})
	}
}

func workerKilled(t *testing.T, accepted bool) {
	bin := feriaBinary(t)
	mail := smtptest.Start(t)
	bk := ownBackends(t)
	dbURL, redisURL, db, rdb := bk.dbURL, bk.redisURL, bk.db, bk.rdb
	blobs, s3, bucket := s3Blobs(t)
	ctx := context.Background()
	// The API runs in the test (no workers); the workers are the real binary.
	api := fiscalInstance(t, db, rdb, blobs, mail.URL())
	loadFiscalWorld(t, api)
	env := []string{"DATABASE_URL=" + dbURL, "REDIS_URL=" + redisURL, "S3_ENDPOINT=" + s3.Endpoint,
		"S3_ACCESS_KEY=" + s3.AccessKey, "S3_SECRET_KEY=" + s3.SecretKey, "S3_BUCKET=" + bucket,
		fmt.Sprint("S3_USE_SSL=", s3.UseSSL), "SMTP_URL=" + mail.URL(), "LOG_LEVEL=debug", "WORKER_CONCURRENCY=2",
		"WORKER_RETRY_DELAY=1s", "WORKER_DELAYED_CHECK=200ms"}

	holding := mail.Hold()
	if accepted {
		holding = mail.HoldAccepting()
	}
	if st, b := uploadPDF(t, api, 1001, "tok-101"); st != 201 {
		t.Fatalf("upload: %d %s", st, b)
	}
	w1 := startWorkerProcess(t, bin, env, 1)
	select {
	case <-holding:
	case <-time.After(30 * time.Second):
		t.Fatal("the first worker never reached the mail server")
	}
	w1.kill()
	// The held message is refused now (to a dead connection): never taken;
	// or it was taken when its data ended.
	mail.Release()
	time.Sleep(200 * time.Millisecond)
	taken := 0
	if accepted {
		taken = 1
	}
	if n := len(mail.Messages()); n != taken {
		t.Fatalf("%d mails taken from the killed worker, want %d", n, taken)
	}
	var rows int
	count := func() int {
		t.Helper()
		if err := db.NewRaw("SELECT count(*) FROM notifications WHERE user_id = 201 AND pack_id = 1001").Scan(ctx, &rows); err != nil {
			t.Fatal(err)
		}
		return rows
	}
	if n := count(); n != 1 {
		t.Fatalf("%d notification rows after the killed attempt, want 1 (stored before the mail)", n)
	}

	// The job is still leased to the dead worker: nobody may take it yet.
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rdb.Options().Addr})
	defer insp.Close()
	active, err := insp.ListActiveTasks("default")
	if err != nil || len(active) != 1 || active[0].IsOrphaned {
		t.Fatalf("after the kill: active tasks %+v (%v), want the one job, leased", active, err)
	}
	const leases = "asynq:{default}:lease"
	deadline, err := rdb.ZScore(ctx, leases, active[0].ID).Result()
	if err != nil || deadline <= float64(time.Now().Unix()) {
		t.Fatalf("lease of %s: deadline %v (%v), want one in the future", active[0].ID, deadline, err)
	}
	// The minute asynq waits passes: the lease ran out 60 s ago.
	if err := rdb.ZAddXX(ctx, leases, redis.Z{Score: float64(time.Now().Add(-60 * time.Second).Unix()), Member: active[0].ID}).Err(); err != nil {
		t.Fatal(err)
	}
	if active, err = insp.ListActiveTasks("default"); err != nil || len(active) != 1 || !active[0].IsOrphaned {
		t.Fatalf("after the lease ran out: active tasks %+v (%v), want the one job, orphaned", active, err)
	}

	start := time.Now()
	startWorkerProcess(t, bin, env, 2)
	got := mail.WaitFor(taken+1, 15*time.Second)
	if len(got) == taken+1 {
		got = got[taken:]
	}
	if len(got) != 1 || got[0].To[0] != "user-201@users.feria.invalid" || got[0].Header("Subject") != "Your invoice is available" ||
		!strings.Contains(got[0].Raw, "pack 1001") {
		active, _ := insp.ListActiveTasks("default")
		retry, _ := insp.ListRetryTasks("default")
		servers, _ := insp.Servers()
		lease, _ := rdb.ZRangeWithScores(ctx, "asynq:{default}:lease", 0, -1).Result()
		keys, _ := rdb.Keys(ctx, "*").Result()
		t.Fatalf("mails after the restart (%s): %d; now %d, redis db %d: active %d, retry %d, servers %d, lease %v, keys %v",
			time.Since(start), len(got), time.Now().Unix(), rdb.Options().DB, len(active), len(retry), len(servers), lease, keys)
	}
	t.Logf("mailed by the second worker %s after it started", time.Since(start).Round(100*time.Millisecond))
	time.Sleep(3 * time.Second)
	all := mail.Messages()
	if len(all) != taken+1 {
		t.Fatalf("%d mails, want exactly %d", len(all), taken+1)
	}
	if id := all[0].Header("Message-Id"); id == "" || all[len(all)-1].Header("Message-Id") != id {
		t.Fatalf("Message-IDs %q and %q: a re-sent mail must carry the first one's", id, all[len(all)-1].Header("Message-Id"))
	}
	if n := count(); n != 1 {
		t.Fatalf("%d notification rows, want 1", n)
	}
	var mailed int
	if err := db.NewRaw("SELECT count(*) FROM notifications WHERE mailed_at IS NOT NULL").Scan(ctx, &mailed); err != nil || mailed != 1 {
		t.Fatalf("mailed rows %d %v", mailed, err)
	}
	if f := feed(t, api); len(f) != 1 || f[0]["kind"] != "fiscal_document_uploaded" || f[0]["pack_id"] != float64(1001) {
		t.Fatalf("feed %+v", f)
	}
}

// TestFiscalMailRetried: a mail server refusing the mail (451) fails the
// job; asynq keeps it in the retry state with a backoff (at least 15 s for
// the first retry) and the buyer gets nothing yet; once the server takes
// mail again the retried job (run now, as an operator does from the
// dashboard) mails it once, to the one stored notification.
func TestFiscalMailRetried(t *testing.T) {
	t.Parallel() // mostly waits on jobs, servers and timeouts: overlap with the others that do
	mail := smtptest.Start(t)
	db, rdb := testenv.Postgres(t), testenv.Redis(t)
	blobs, _, _ := s3Blobs(t)
	api := fiscalInstance(t, db, rdb, blobs, mail.URL())
	loadFiscalWorld(t, api)
	mail.SetFail(true)
	workers(t, fiscalInstance(t, db, rdb, blobs, mail.URL()))
	failedAt := time.Now()
	if st, b := uploadPDF(t, api, 1001, "tok-101"); st != 201 {
		t.Fatalf("upload: %d %s", st, b)
	}
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: rdb.Options().Addr, DB: rdb.Options().DB})
	defer insp.Close()
	var retry []*asynq.TaskInfo
	var err error
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if retry, err = insp.ListRetryTasks("default"); err == nil && len(retry) > 0 {
			break
		}
	}
	if len(retry) != 1 {
		t.Fatalf("retry tasks: %v %v", retry, err)
	}
	r := retry[0]
	if r.Retried != 1 || r.MaxRetry != 10 || !strings.Contains(r.LastErr, "451") || r.NextProcessAt.Before(failedAt.Add(15*time.Second)) {
		t.Fatalf("retry task: retried %d/%d, err %q, next at +%s", r.Retried, r.MaxRetry, r.LastErr, r.NextProcessAt.Sub(failedAt))
	}
	if n := len(mail.Messages()); n != 0 {
		t.Fatalf("%d mails while the server refuses", n)
	}
	mail.SetFail(false)
	if err := insp.RunTask("default", r.ID); err != nil {
		t.Fatal(err)
	}
	if got := mail.WaitFor(1, 20*time.Second); len(got) != 1 {
		t.Fatalf("mails after the retry: %d", len(got))
	}
	time.Sleep(time.Second)
	var rows int
	if err := db.NewRaw("SELECT count(*) FROM notifications WHERE mailed_at IS NOT NULL").Scan(context.Background(), &rows); err != nil ||
		rows != 1 || len(mail.Messages()) != 1 {
		t.Fatalf("mailed notifications %d (%v), mails %d", rows, err, len(mail.Messages()))
	}
}
