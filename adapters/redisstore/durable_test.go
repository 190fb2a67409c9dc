package redisstore

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/go-redis/redis_rate/v10"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// testRedis is a durable embedded Redis on a directory, as Embedded starts
// it, compacting its log every every bytes.
type testRedis struct {
	d   *durable
	opt *redis.Options
	rdb *redis.Client
}

func openTest(t *testing.T, dir string, every int64) *testRedis {
	t.Helper()
	const password = "test-password"
	d, err := openDurable(miniredis.NewMiniRedis(), dir, password, every, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := &redis.Options{Addr: d.addr(), Password: password}
	r := &testRedis{d: d, opt: opt, rdb: redis.NewClient(opt)}
	t.Cleanup(r.close)
	return r
}

// close stops it cleanly (once).
func (r *testRedis) close() {
	if r.d != nil {
		r.rdb.Close()
		r.d.stop()
		r.d = nil
	}
}

// client is one more client of database db.
func (r *testRedis) client(t *testing.T, db int) *redis.Client {
	o := *r.opt
	o.DB = db
	c := redis.NewClient(&o)
	t.Cleanup(func() { c.Close() })
	return c
}

// crashCopy is what a kill -9 now leaves of dir: its files as they are on
// disk, copied to a new directory (the running server is left alone).
func crashCopy(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	for _, name := range []string{SnapshotFile, LogFile} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// crash starts a server on what a kill -9 of r now leaves, and checks
// that it holds the same data as r.
func (r *testRedis) crash(t *testing.T) *testRedis {
	t.Helper()
	before := dump(t, r)
	after := openTest(t, crashCopy(t, r.d.dir), r.d.every)
	if got := dump(t, after); got != before {
		t.Fatalf("after the crash:\n%s\nbefore:\n%s", got, before)
	}
	return after
}

// dump is every key of databases 0-15 with its type, value and PTTL.
func dump(t *testing.T, r *testRedis) string {
	t.Helper()
	ctx := context.Background()
	var lines []string
	for db := 0; db < maxDBs; db++ {
		c := r.client(t, db)
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			typ := c.Type(ctx, k).Val()
			var v any
			switch typ {
			case "string":
				v = c.Get(ctx, k).Val()
			case "list":
				v = c.LRange(ctx, k, 0, -1).Val()
			case "set":
				m := c.SMembers(ctx, k).Val()
				sort.Strings(m)
				v = m
			case "zset":
				v = c.ZRangeWithScores(ctx, k, 0, -1).Val()
			case "hash":
				v = c.HGetAll(ctx, k).Val()
			}
			lines = append(lines, fmt.Sprintf("%d %q %s %v pttl=%v", db, k, typ, v, c.PTTL(ctx, k).Val()))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// everything writes each kind of data the adapters and asynq write, the
// ways they write it: plain commands, TTLs relative and absolute, scripts
// that read TIME, loaded scripts, transactions, another database, asynq
// enqueueing, scheduling and processing jobs, redis_rate's limiter.
func everything(t *testing.T, r *testRedis, round int) {
	t.Helper()
	ctx := context.Background()
	rdb := r.rdb
	p := fmt.Sprintf("r%d:", round)
	must(t, rdb.Set(ctx, p+"s", "\x00\xff\x10task", 0).Err())
	must(t, rdb.Set(ctx, p+"ttl", "v", time.Hour).Err())
	must(t, rdb.Do(ctx, "SET", p+"pxat", "v", "PXAT", time.Now().Add(90*time.Minute).UnixMilli()).Err())
	must(t, rdb.ExpireAt(ctx, p+"s", time.Now().Add(400*24*time.Hour)).Err())
	must(t, rdb.HSet(ctx, p+"h", "count", "7", "msg", "x").Err())
	must(t, rdb.HIncrBy(ctx, p+"h", "count", 3).Err())
	must(t, rdb.RPush(ctx, p+"l", "a", "b", "c").Err())
	must(t, rdb.LRem(ctx, p+"l", 1, "b").Err())
	must(t, rdb.SAdd(ctx, p+"set", "x", "y", "z").Err())
	must(t, rdb.SRem(ctx, p+"set", "y").Err())
	must(t, rdb.ZAdd(ctx, p+"z", redis.Z{Score: 1.5, Member: "m"}, redis.Z{Score: 2, Member: "n"}).Err())
	must(t, rdb.Incr(ctx, p+"n").Err())
	must(t, rdb.Del(ctx, p+"gone").Err())
	// A script reading the server's clock, and a loaded one.
	clock := redis.NewScript(`local t = redis.call('TIME'); redis.call('SET', KEYS[1], t[1] .. '.' .. t[2]); redis.call('PEXPIREAT', KEYS[1], ARGV[1]); return 1`)
	must(t, clock.Run(ctx, rdb, []string{p + "clock"}, time.Now().Add(time.Minute).UnixMilli()).Err())
	must(t, clock.Run(ctx, rdb, []string{p + "clock2"}, time.Now().Add(time.Minute).UnixMilli()).Err()) // EVALSHA now
	sha, err := rdb.ScriptLoad(ctx, `return redis.call('INCRBY', KEYS[1], ARGV[1])`).Result()
	must(t, err)
	must(t, rdb.EvalSha(ctx, sha, []string{p + "loaded"}, 5).Err())
	_, err = rdb.TxPipelined(ctx, func(pp redis.Pipeliner) error {
		pp.Incr(ctx, p+"tx")
		pp.LPush(ctx, p+"txl", "1")
		pp.Expire(ctx, p+"txl", time.Minute)
		return nil
	})
	must(t, err)
	must(t, r.client(t, 3).Set(ctx, p+"db3", "1", 0).Err())
	res, err := redis_rate.NewLimiter(rdb).Allow(ctx, p+"rate", redis_rate.PerMinute(10))
	must(t, err)
	if res.Allowed != 1 {
		t.Fatalf("rate limit: %+v", res)
	}

	conn := asynq.RedisClientOpt{Addr: r.opt.Addr, Password: r.opt.Password}
	q := asynq.NewClient(conn)
	defer q.Close()
	for i := 0; i < 3; i++ {
		_, err := q.Enqueue(asynq.NewTask("test:run", []byte{byte(i), 0xff}), asynq.TaskID(fmt.Sprintf("%srun-%d", p, i)))
		must(t, err)
	}
	_, err = q.Enqueue(asynq.NewTask("test:later", nil), asynq.TaskID(p+"later"), asynq.ProcessIn(time.Hour))
	must(t, err)
	var ran sync.WaitGroup
	ran.Add(3)
	srv := asynq.NewServer(conn, asynq.Config{Concurrency: 2, LogLevel: asynq.ErrorLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("test:run", func(context.Context, *asynq.Task) error { ran.Done(); return nil })
	must(t, srv.Start(mux))
	ran.Wait()
	srv.Shutdown()
}

// What a kill -9 leaves after acknowledged writes of every kind is the
// same data: the snapshot and the replayed log give back every key, value
// and TTL, and a loaded script is loaded again.
func TestDurableCrashKeepsEveryAcknowledgedWrite(t *testing.T) {
	for _, c := range []struct {
		name  string
		every int64
	}{{"one log", CompactSize}, {"compacted often", 2048}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			r := openTest(t, dir, c.every)
			everything(t, r, 1)
			if c.every < CompactSize && r.d.epoch == 0 {
				t.Fatal("no compaction happened")
			}
			after := r.crash(t)
			// The restarted server goes on where it stopped, crash again.
			everything(t, after, 2)
			again := after.crash(t)
			sha, err := again.rdb.ScriptLoad(context.Background(), `return redis.call('INCRBY', KEYS[1], ARGV[1])`).Result()
			must(t, err)
			if ok, err := again.rdb.ScriptExists(context.Background(), sha).Result(); err != nil || !ok[0] {
				t.Fatalf("loaded script after the crash: %v %v", ok, err)
			}
		})
	}
}

// A clean stop folds the log into the snapshot: the next start replays
// nothing and has everything.
func TestDurableStopFoldsTheLog(t *testing.T) {
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	everything(t, r, 1)
	before := dump(t, r)
	r.close()
	epoch, err := load(miniredis.NewMiniRedis(), filepath.Join(dir, SnapshotFile))
	must(t, err)
	var left []string
	if _, state, err := readLog(filepath.Join(dir, LogFile), epoch, func(r logRecord) error {
		if r.Args[0] != "SCRIPT" || r.Args[1] != "LOAD" {
			left = append(left, strings.Join(r.Args, " "))
		}
		return nil
	}); err != nil || state != logCurrent || len(left) > 0 {
		t.Fatalf("log after a clean stop: %v %v, commands beside the scripts: %q", state, err, left)
	}
	after := openTest(t, dir, CompactSize)
	if got := dump(t, after); got != before {
		t.Fatalf("after the stop:\n%s\nbefore:\n%s", got, before)
	}
}

// A kill -9 while a record is written leaves part of it at the log's end:
// the start drops that record (its command was never answered) and appends
// after the last whole one. Damage anywhere else stops the start, naming
// the log.
func TestDurableTornAndDamagedLog(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	for i := 0; i < 10; i++ {
		must(t, r.rdb.Incr(ctx, "n").Err())
	}
	before := dump(t, r)
	whole, err := os.ReadFile(filepath.Join(dir, LogFile))
	must(t, err)
	next := appendRecord(nil, logRecord{Conn: 1, At: time.Now(), Args: []string{"INCR", "n"}})
	for name, tail := range map[string][]byte{
		"a frame cut short":              next[:5],
		"a payload cut short":            next[:len(next)-2],
		"a whole frame, payload garbled": append(append([]byte(nil), next[:len(next)-1]...), next[len(next)-1]^0xff),
	} {
		t.Run(name, func(t *testing.T) {
			crashed := t.TempDir()
			must(t, os.WriteFile(filepath.Join(crashed, LogFile), append(append([]byte(nil), whole...), tail...), 0o644))
			r := openTest(t, crashed, CompactSize)
			if got := dump(t, r); got != before {
				t.Fatalf("after the torn write:\n%s\nbefore:\n%s", got, before)
			}
			must(t, r.rdb.Incr(ctx, "n").Err())
			r.close()
			r = openTest(t, crashed, CompactSize)
			if n, err := r.rdb.Get(ctx, "n").Int(); err != nil || n != 11 {
				t.Fatalf("n after appending past the torn record: %d %v", n, err)
			}
		})
	}
	// A garbled byte in the middle of the log is damage, not a crash.
	damaged := t.TempDir()
	bad := append([]byte(nil), whole...)
	bad[logHeaderLen+10] ^= 0xff
	must(t, os.WriteFile(filepath.Join(damaged, LogFile), bad, 0o644))
	_, err = openDurable(miniredis.NewMiniRedis(), damaged, "pw", CompactSize, nil)
	if err == nil || !strings.Contains(err.Error(), "damaged command log") || !strings.Contains(err.Error(), LogFile) {
		t.Fatalf("start on a damaged log: %v", err)
	}
	// So is a log that continues a later snapshot than the one beside it.
	must(t, os.Remove(filepath.Join(damaged, LogFile)))
	f, _, err := createLog(filepath.Join(damaged, LogFile), 3, nil)
	must(t, err)
	f.Close()
	if _, err = openDurable(miniredis.NewMiniRedis(), damaged, "pw", CompactSize, nil); err == nil || !strings.Contains(err.Error(), "damaged command log") {
		t.Fatalf("start on a log of a later snapshot: %v", err)
	}
}

// A crash between a compaction's snapshot and its new log leaves the old
// log beside a snapshot that already holds it: the start ignores it rather
// than count its commands twice.
func TestDurableCrashInCompaction(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	for i := 0; i < 5; i++ {
		must(t, r.rdb.Incr(ctx, "n").Err())
	}
	old, err := os.ReadFile(filepath.Join(dir, LogFile))
	must(t, err)
	r.d.mu.Lock()
	must(t, r.d.compact())
	r.d.mu.Unlock()
	crashed := crashCopy(t, dir)
	must(t, os.WriteFile(filepath.Join(crashed, LogFile), old, 0o644))
	after := openTest(t, crashed, CompactSize)
	if n, err := after.rdb.Get(ctx, "n").Int(); err != nil || n != 5 {
		t.Fatalf("n after the crash: %d %v, want 5", n, err)
	}
	must(t, after.rdb.Incr(ctx, "n").Err())
	again := openTest(t, crashCopy(t, crashed), CompactSize)
	if n, err := again.rdb.Get(ctx, "n").Int(); err != nil || n != 6 {
		t.Fatalf("n after a second crash: %d %v, want 6", n, err)
	}
}

// Transactions of two connections interleave as they ran: a replay runs
// each connection's commands on a connection of its own, in the order they
// ran, so that queued commands, aborted EXECs (a WATCHed key written by
// the other, a queued command refused) and DISCARDs come out the same.
func TestDurableTransactionsOfTwoConnections(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	a, b := r.rdb.Conn(), r.rdb.Conn()
	defer a.Close()
	defer b.Close()
	do := func(c *redis.Conn, args ...any) any {
		t.Helper()
		v, err := c.Do(ctx, args...).Result()
		if err != nil && err != redis.Nil && !strings.HasPrefix(err.Error(), "EXECABORT") && !strings.HasPrefix(err.Error(), "ERR wrong number") {
			t.Fatalf("%v: %v", args, err)
		}
		return v
	}
	do(a, "MULTI")
	do(a, "INCR", "x")
	do(b, "INCR", "x")
	do(b, "SET", "x2", "b")
	do(a, "GET", "x")
	do(a, "APPEND", "x2", "-a")
	do(b, "MULTI")
	do(b, "INCRBY", "x", 10)
	do(a, "EXEC") // x: 1 (b) + 1 (a); x2 "b-a"
	do(b, "DISCARD")
	// WATCH: b writes the key a watches, a's EXEC aborts.
	do(a, "WATCH", "w")
	do(b, "SET", "w", "b")
	do(a, "MULTI")
	do(a, "SET", "w", "a")
	if v := do(a, "EXEC"); v != nil {
		t.Fatalf("EXEC after the watched key changed: %v", v)
	}
	// A queued command with the wrong arguments (a read) aborts EXEC.
	do(b, "MULTI")
	do(b, "SET", "dirty", "1")
	do(b, "GET")
	do(b, "EXEC")
	// Another database selected inside and outside a transaction.
	do(b, "SELECT", 2)
	do(b, "SET", "in2", "1")
	do(a, "MULTI")
	do(a, "SELECT", 4)
	do(a, "SET", "in4", "1")
	do(a, "EXEC")
	do(a, "SET", "still4", "1")
	before := dump(t, r)
	for _, want := range []string{`0 "x" string 2`, `0 "x2" string b-a`, `0 "w" string b`, `2 "in2"`, `4 "in4"`, `4 "still4"`} {
		if !strings.Contains(before, want) {
			t.Fatalf("before the crash, no %s in\n%s", want, before)
		}
	}
	if strings.Contains(before, "dirty") {
		t.Fatalf("an aborted transaction wrote:\n%s", before)
	}
	r.crash(t)
}

// A command the server refuses is never replayed: without the password
// nothing runs (a replay needs none), and writes that block or pick at
// random are answered an error.
func TestDurableRefusedCommandsAreNotReplayed(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	stranger := redis.NewClient(&redis.Options{Addr: r.opt.Addr, Protocol: 2})
	defer stranger.Close()
	if err := stranger.Set(ctx, "stranger", "1", 0).Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Fatalf("SET without the password: %v", err)
	}
	wrong := redis.NewClient(&redis.Options{Addr: r.opt.Addr, Password: "wrong"})
	defer wrong.Close()
	if err := wrong.Set(ctx, "wrong", "1", 0).Err(); err == nil {
		t.Fatal("SET with a wrong password ran")
	}
	must(t, r.rdb.RPush(ctx, "l", "a").Err())
	must(t, r.rdb.SAdd(ctx, "s", "a", "b").Err())
	for _, args := range [][]any{{"BLPOP", "l", 0}, {"BRPOPLPUSH", "l", "m", 1}, {"SPOP", "s"},
		{"XREADGROUP", "GROUP", "g", "c", "BLOCK", 0, "STREAMS", "x", ">"}} {
		if err := r.rdb.Do(ctx, args...).Err(); err == nil || !strings.Contains(err.Error(), "does not run") {
			t.Errorf("%v: %v", args, err)
		}
	}
	// A client authenticating with AUTH (RESP2) rather than HELLO runs.
	resp2 := redis.NewClient(&redis.Options{Addr: r.opt.Addr, Password: r.opt.Password, Protocol: 2})
	defer resp2.Close()
	must(t, resp2.Set(ctx, "resp2", "1", 0).Err())
	if got := dump(t, r.crash(t)); strings.Contains(got, "stranger") || strings.Contains(got, "wrong") {
		t.Fatalf("after the crash:\n%s", got)
	}
	// The password is not in the log.
	b, err := os.ReadFile(filepath.Join(dir, LogFile))
	must(t, err)
	if strings.Contains(string(b), r.opt.Password) {
		t.Fatal("the log holds the password")
	}
}

// Writers on many connections at once, pipelined and compacting as they
// go: every acknowledged increment is there after a crash, once.
func TestDurableConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, 16<<10)
	const writers, rounds = 8, 50
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				_, err := r.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
					p.Incr(ctx, "n")
					p.HIncrBy(ctx, "h", fmt.Sprint(w), 1)
					p.Get(ctx, "n")
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if r.d.epoch == 0 {
		t.Fatal("no compaction happened")
	}
	after := openTest(t, crashCopy(t, dir), CompactSize)
	if n, err := after.rdb.Get(ctx, "n").Int(); err != nil || n != writers*rounds {
		t.Fatalf("n after the crash: %d %v, want %d", n, err, writers*rounds)
	}
	h, err := after.rdb.HGetAll(ctx, "h").Result()
	must(t, err)
	for w := 0; w < writers; w++ {
		if h[fmt.Sprint(w)] != fmt.Sprint(rounds) {
			t.Fatalf("h after the crash: %v", h)
		}
	}
}

// An answer leaves only once the batch of the last command logged when it
// was written is on disk, and never does when that batch failed.
func TestDurableAnswerWaitsForTheLog(t *testing.T) {
	l := &groupLog{}
	client, server := netPipe(t)
	c := &durableConn{Conn: server, log: l, closed: make(chan struct{})}
	got := make(chan string, 4)
	go func() {
		buf := make([]byte, 64)
		for {
			n, err := client.Read(buf)
			if err != nil {
				close(got)
				return
			}
			got <- string(buf[:n])
		}
	}()
	// No command logged yet: the answer leaves at once.
	c.Write([]byte("a"))
	if s := <-got; s != "a" {
		t.Fatalf("got %q", s)
	}
	pending := newBatch(nil)
	l.last.Store(pending)
	c.Write([]byte("b"))
	select {
	case s := <-got:
		t.Fatalf("%q left before its batch was on disk", s)
	case <-time.After(50 * time.Millisecond):
	}
	done := newBatch(nil)
	close(done.done)
	l.last.Store(done)
	c.Write([]byte("c")) // behind b, though its own batch is on disk
	select {
	case s := <-got:
		t.Fatalf("%q left before the answer ahead of it", s)
	case <-time.After(50 * time.Millisecond):
	}
	close(pending.done)
	var all string
	for len(all) < 2 {
		all += <-got
	}
	if all != "bc" {
		t.Fatalf("got %q, want bc in order", all)
	}
	failed := newBatch(nil)
	failed.err = fmt.Errorf("disk full")
	l.last.Store(failed)
	c.Write([]byte("d"))
	close(failed.done)
	if s, ok := <-got; ok {
		t.Fatalf("%q left though its batch failed", s)
	}
}

func netPipe(t *testing.T) (net.Conn, net.Conn) {
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return a, b
}

// Once the log cannot be written, nothing is acknowledged any more: the
// write whose record failed gets no answer (its connection is closed), and
// no answer leaves after it (each could depend on that write: an error
// too, the process's log says why); a restart has what was acknowledged.
func TestDurableLogFailureStopsAcknowledging(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := openTest(t, dir, CompactSize)
	must(t, r.rdb.Set(ctx, "a", "1", 0).Err())
	r.d.cmds.mu.Lock()
	r.d.cmds.file.Close() // every write to it fails from now on
	r.d.cmds.mu.Unlock()
	r.rdb.Options().MaxRetries = -1
	if err := r.rdb.Set(ctx, "b", "1", 0).Err(); err == nil {
		t.Fatal("a write whose record failed was acknowledged")
	}
	if err := r.rdb.Set(ctx, "c", "1", 0).Err(); err == nil {
		t.Fatal("a write after the failure was acknowledged")
	}
	if _, err := r.d.cmds.append(logRecord{Args: []string{"SET", "c", "1"}}); err == nil || !strings.Contains(err.Error(), "command log") {
		t.Fatalf("appending after the failure: %v", err)
	}
	if err := r.rdb.Get(ctx, "a").Err(); err == nil {
		t.Fatal("a read answered after the failure, though it may have seen an unlogged write")
	}
	after := openTest(t, crashCopy(t, dir), CompactSize)
	if got := dump(t, after); !strings.Contains(got, `0 "a" string 1`) || strings.Contains(got, `"c"`) {
		t.Fatalf("after the restart:\n%s", got)
	}
}

// A log slow to replay is compacted however short it is: once its
// commands took longer to run than MinReplay and than SnapshotsPerReplay
// snapshots.
func TestDurableCompactsALogSlowToReplay(t *testing.T) {
	ctx := context.Background()
	r := openTest(t, t.TempDir(), CompactSize)
	must(t, r.rdb.Set(ctx, "k", "1", 0).Err())
	if r.d.epoch != 0 {
		t.Fatal("compacted already")
	}
	r.d.mu.Lock()
	r.d.replayCost = MinReplay // as if its commands had taken that long
	r.d.mu.Unlock()
	must(t, r.rdb.Set(ctx, "k", "2", 0).Err())
	r.d.mu.Lock()
	epoch, cost := r.d.epoch, r.d.replayCost
	r.d.mu.Unlock()
	if epoch != 1 || cost >= MinReplay {
		t.Fatalf("after a slow log: epoch %d, replay cost %s", epoch, cost)
	}
	r.crash(t)
}
