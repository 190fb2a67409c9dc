package redisstore

import (
	"context"
	"encoding/gob"
	"os"
	"path/filepath"
	"testing"

	"github.com/redis/go-redis/v9"
)

// A snapshot written before the streamed format (version 1: every key in
// one map) still loads, so that upgrading keeps an embedded deployment's
// counters and queued jobs.
func TestEmbeddedReadsVersion1Snapshots(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, SnapshotFile))
	if err != nil {
		t.Fatal(err)
	}
	v1 := header{Version: 1, DBs: map[int]map[string]entry{
		0: {"s": {Type: "string", String: "v"}, "h": {Type: "hash", Hash: map[string]string{"f": "1"}}},
		2: {"z": {Type: "zset", ZSet: map[string]float64{"m": 2}}},
	}}
	if err := gob.NewEncoder(f).Encode(v1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rdb, opt, stop, err := Embedded(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	defer rdb.Close()
	ctx := context.Background()
	if v, err := rdb.Get(ctx, "s").Result(); err != nil || v != "v" {
		t.Errorf("string of a version 1 snapshot: %q, %v", v, err)
	}
	if v, err := rdb.HGet(ctx, "h", "f").Result(); err != nil || v != "1" {
		t.Errorf("hash of a version 1 snapshot: %q, %v", v, err)
	}
	db2 := redis.NewClient(&redis.Options{Addr: opt.Addr, Password: opt.Password, DB: 2})
	defer db2.Close()
	if v, err := db2.ZScore(ctx, "z", "m").Result(); err != nil || v != 2 {
		t.Errorf("zset of database 2 of a version 1 snapshot: %v, %v", v, err)
	}
}
