package redisstore

import (
	"bufio"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// SnapshotFile is where the embedded Redis keeps its data under DATA_DIR,
// as of the start of its command log (LogFile).
const SnapshotFile = "redis.snapshot"

// Embedded starts an in-process Redis (miniredis) on a loopback port behind
// a password made now, so that other local users cannot reach it. With dir
// set, its data survives restarts and crashes: every command that may
// change it is in dir/LogFile, on disk before the command's answer leaves
// (see durable), and a start loads dir/SnapshotFile and replays the log;
// stop, which the process calls on a clean shutdown once the workers have
// stopped, folds the log into the snapshot. An empty dir keeps nothing.
func Embedded(dir string, log *slog.Logger) (*redis.Client, *redis.Options, func(), error) {
	m := miniredis.NewMiniRedis()
	pw := make([]byte, 16)
	_, _ = rand.Read(pw)
	password := hex.EncodeToString(pw)
	if dir == "" {
		m.RequireAuth(password)
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return nil, nil, nil, fmt.Errorf("embedded redis: %w", err)
		}
		opt := &redis.Options{Addr: m.Addr(), Password: password}
		return redis.NewClient(opt), opt, m.Close, nil
	}
	d, err := openDurable(m, dir, password, CompactSize, log)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("embedded redis: %w", err)
	}
	opt := &redis.Options{Addr: d.addr(), Password: password}
	return redis.NewClient(opt), opt, d.stop, nil
}

// maxDBs is how many database numbers a snapshot covers (Redis's default).
const maxDBs = 16

// A snapshot is a gob stream: a header, then one record per key, written
// and read a key at a time, so that saving a large dataset never holds a
// second copy of it (the peak memory of the embedded mode). gob keeps
// strings byte for byte (asynq stores binary task messages). Version 1
// held every key in the header's DBs; it is still read. Epoch numbers the
// snapshot: the command log names the one it continues (0 in snapshots
// written before the log).
type header struct {
	Version int
	DBs     map[int]map[string]entry // version 1 only
	Epoch   uint64
}

// record is one key of a version 2 snapshot.
type record struct {
	DB    int
	Key   string
	Entry entry
}

type entry struct {
	Type   string
	TTL    time.Duration
	String string
	List   []string
	Set    []string
	Hash   map[string]string
	ZSet   map[string]float64
}

// save writes m to path atomically as snapshot number epoch.
func save(m *miniredis.Miniredis, path string, epoch uint64) error {
	return writeAtomic(path, func(w io.Writer) error { return encode(m, gob.NewEncoder(w), epoch) })
}

// encode writes the header, then every key of every database.
func encode(m *miniredis.Miniredis, enc *gob.Encoder, epoch uint64) error {
	if err := enc.Encode(header{Version: 2, Epoch: epoch}); err != nil {
		return err
	}
	for i := 0; i < maxDBs; i++ {
		db := m.DB(i)
		for _, k := range db.Keys() {
			e := entry{Type: db.Type(k), TTL: db.TTL(k)}
			var err error
			switch e.Type {
			case "string":
				e.String, err = db.Get(k)
			case "list":
				e.List, err = db.List(k)
			case "set":
				e.Set, err = db.Members(k)
			case "zset":
				e.ZSet, err = db.SortedSet(k)
			case "hash":
				var fields []string
				fields, err = db.HKeys(k)
				e.Hash = make(map[string]string, len(fields))
				for _, f := range fields {
					e.Hash[f] = db.HGet(k, f)
				}
			case "":
				continue // gone since Keys
			default:
				return fmt.Errorf("key %q: type %s is not kept", k, e.Type)
			}
			if err != nil {
				continue // gone or changed type since Keys
			}
			if err := enc.Encode(record{DB: i, Key: k, Entry: e}); err != nil {
				return err
			}
		}
	}
	return nil
}

// load reads the snapshot at path into m and returns its epoch; none is
// epoch 0, empty.
func load(m *miniredis.Miniredis, path string) (uint64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	damaged := func(err error) (uint64, error) {
		return 0, fmt.Errorf("damaged snapshot (remove it and %s to start empty): %w", LogFile, err)
	}
	dec := gob.NewDecoder(bufio.NewReader(f))
	var h header
	if err := dec.Decode(&h); err != nil {
		return damaged(err)
	}
	for i, entries := range h.DBs { // version 1
		for k, e := range entries {
			if err := restore(m.DB(i), k, e); err != nil {
				return 0, err
			}
		}
	}
	for h.Version >= 2 {
		var r record
		if err := dec.Decode(&r); err == io.EOF {
			return h.Epoch, nil
		} else if err != nil {
			return damaged(err)
		}
		if r.DB < 0 || r.DB >= maxDBs {
			return damaged(fmt.Errorf("database %d", r.DB))
		}
		if err := restore(m.DB(r.DB), r.Key, r.Entry); err != nil {
			return 0, err
		}
	}
	return h.Epoch, nil
}

// restore writes one key back.
func restore(db *miniredis.RedisDB, k string, e entry) error {
	var err error
	switch e.Type {
	case "string":
		err = db.Set(k, e.String)
	case "list":
		_, err = db.Push(k, e.List...)
	case "set":
		_, err = db.SetAdd(k, e.Set...)
	case "zset":
		for member, score := range e.ZSet {
			if _, err = db.ZAdd(k, score, member); err != nil {
				break
			}
		}
	case "hash":
		for f, v := range e.Hash {
			db.HSet(k, f, v)
		}
	}
	if err != nil {
		return fmt.Errorf("key %q: %w", k, err)
	}
	if e.TTL > 0 {
		db.SetTTL(k, e.TTL)
	}
	return nil
}
