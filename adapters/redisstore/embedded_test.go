package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
)

// The embedded Redis must not keep counters, event ids and queued jobs in
// memory only, where a restart would lose them (a relayed outbox row is
// never sent again: the buyer's notice would be gone). Every key of every
// type the adapters use, binary values and TTLs included, and a queued
// asynq job survive a clean stop and start on the same directory.
func TestEmbeddedSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	rdb, opt, stop, err := redisstore.Embedded(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	binary := "\x00\xff\x10task"
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(rdb.Set(ctx, "s", binary, 0).Err())
	must(rdb.Set(ctx, "ttl", "v", time.Hour).Err())
	must(rdb.HSet(ctx, "h", "count", "7", "msg", binary).Err())
	must(rdb.RPush(ctx, "l", "a", "b", "c").Err())
	must(rdb.SAdd(ctx, "set", "x", "y").Err())
	must(rdb.ZAdd(ctx, "z", redis.Z{Score: 1.5, Member: "m"}).Err())
	must(rdb.Do(ctx, "SELECT", 3).Err())
	db3 := redis.NewClient(&redis.Options{Addr: opt.Addr, Password: opt.Password, DB: 3})
	must(db3.Set(ctx, "other-db", "1", 0).Err())
	db3.Close()
	q := asynq.NewClient(asynq.RedisClientOpt{Addr: opt.Addr, Password: opt.Password})
	_, err = q.Enqueue(asynq.NewTask("test:job", []byte(binary)), asynq.TaskID("job-1"))
	must(err)
	q.Close()
	// Without the password the embedded Redis answers nothing.
	if err := redis.NewClient(&redis.Options{Addr: opt.Addr}).Ping(ctx).Err(); err == nil {
		t.Fatal("the embedded Redis answered a client without its password")
	}
	rdb.Close()
	stop()

	rdb, opt, stop, err = redisstore.Embedded(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	defer rdb.Close()
	if v, err := rdb.Get(ctx, "s").Result(); err != nil || v != binary {
		t.Errorf("string after restart: %q, %v", v, err)
	}
	if d, err := rdb.TTL(ctx, "ttl").Result(); err != nil || d <= 0 || d > time.Hour {
		t.Errorf("ttl after restart: %v, %v", d, err)
	}
	if v, err := rdb.HGetAll(ctx, "h").Result(); err != nil || v["count"] != "7" || v["msg"] != binary {
		t.Errorf("hash after restart: %q, %v", v, err)
	}
	if v, err := rdb.LRange(ctx, "l", 0, -1).Result(); err != nil || len(v) != 3 || v[0] != "a" || v[2] != "c" {
		t.Errorf("list after restart: %v, %v", v, err)
	}
	if v, err := rdb.SMembers(ctx, "set").Result(); err != nil || len(v) != 2 {
		t.Errorf("set after restart: %v, %v", v, err)
	}
	if v, err := rdb.ZScore(ctx, "z", "m").Result(); err != nil || v != 1.5 {
		t.Errorf("zset after restart: %v, %v", v, err)
	}
	db3 = redis.NewClient(&redis.Options{Addr: opt.Addr, Password: opt.Password, DB: 3})
	defer db3.Close()
	if v, err := db3.Get(ctx, "other-db").Result(); err != nil || v != "1" {
		t.Errorf("database 3 after restart: %q, %v", v, err)
	}
	insp := asynq.NewInspector(asynq.RedisClientOpt{Addr: opt.Addr, Password: opt.Password})
	defer insp.Close()
	info, err := insp.GetTaskInfo("default", "job-1")
	if err != nil || info.State != asynq.TaskStatePending || string(info.Payload) != binary {
		t.Fatalf("queued job after restart: %+v, %v", info, err)
	}
}
