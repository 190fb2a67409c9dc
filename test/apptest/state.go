package apptest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore/controlredis"
	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/ports/blobport"
)

// State is everything an instance keeps: every row of every table, every
// Redis key with its value (but the request journal's and the rate limits'),
// every stored file's key. Two states are equal
// when nothing was written between them.
type State map[string][]string

// State reads the instance's state. Rows are compared as text, sorted, so
// that the order a database returns them in does not matter.
func (a *App) State(t testing.TB) State {
	t.Helper()
	ctx := context.Background()
	s := State{}
	db := a.Deps.DB
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if sqlstore.IsPostgres(db) {
		q = "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
	}
	var tables []string
	if err := db.NewRaw(q).Scan(ctx, &tables); err != nil {
		t.Fatalf("apptest: list tables: %v", err)
	}
	for _, table := range tables {
		if strings.HasPrefix(table, "bun_migration") {
			continue
		}
		var rows []map[string]any
		if err := db.NewRaw("SELECT * FROM "+table).Scan(ctx, &rows); err != nil {
			t.Fatalf("apptest: read %s: %v", table, err)
		}
		lines := []string{}
		for _, r := range rows {
			lines = append(lines, rowText(r))
		}
		sort.Strings(lines)
		s["table "+table] = lines
	}
	keys, err := a.Deps.Redis.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatalf("apptest: redis keys: %v", err)
	}
	for _, k := range keys {
		// The request journal, its coverage counts and the rate limits'
		// counters record every request, refused or failed ones too
		// (docs/sandbox.md): not a change a request makes to the world.
		if strings.HasPrefix(k, controlredis.DefaultPrefix+"journal") || strings.HasPrefix(k, controlredis.DefaultPrefix+"coverage") ||
			strings.Contains(k, controlredis.DefaultPrefix+"rl:") {
			continue
		}
		s["redis "+k] = redisValue(t, a.Deps.Redis, k)
	}
	files := []string{}
	if err := a.Deps.Blobs.List(ctx, "", func(i blobport.Info) error {
		files = append(files, i.Key)
		return nil
	}); err != nil {
		t.Fatalf("apptest: list files: %v", err)
	}
	sort.Strings(files)
	s["files"] = files
	return s
}

func rowText(r map[string]any) string {
	cols := make([]string, 0, len(r))
	for c := range r {
		cols = append(cols, c)
	}
	sort.Strings(cols)
	var b strings.Builder
	for _, c := range cols {
		v := r[c]
		if x, ok := v.([]byte); ok {
			v = string(x)
		}
		fmt.Fprintf(&b, "%s=%v;", c, v)
	}
	return b.String()
}

func redisValue(t testing.TB, rdb redis.UniversalClient, key string) []string {
	t.Helper()
	ctx := context.Background()
	typ, err := rdb.Type(ctx, key).Result()
	if err != nil {
		t.Fatalf("apptest: redis type of %s: %v", key, err)
	}
	var out []string
	switch typ {
	case "string":
		v, err := rdb.Get(ctx, key).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		out = []string{v}
	case "hash":
		m, err := rdb.HGetAll(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		for f, v := range m {
			out = append(out, f+"="+v)
		}
	case "set":
		if out, err = rdb.SMembers(ctx, key).Result(); err != nil {
			t.Fatal(err)
		}
	case "zset":
		zs, err := rdb.ZRangeWithScores(ctx, key, 0, -1).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, z := range zs {
			out = append(out, fmt.Sprintf("%v=%v", z.Member, z.Score))
		}
	case "list":
		if out, err = rdb.LRange(ctx, key, 0, -1).Result(); err != nil {
			t.Fatal(err)
		}
		return append([]string{"list"}, out...) // order matters
	default:
		return []string{typ}
	}
	sort.Strings(out)
	return append([]string{typ}, out...)
}

// Changed lists what differs between two states: "table x", "redis k" or
// "files".
func (s State) Changed(after State) []string {
	var out []string
	for k, v := range after {
		if !slices.Equal(s[k], v) {
			out = append(out, k)
		}
	}
	for k := range s {
		if _, ok := after[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// FailWrites makes every insert, update and delete of a table fail (a
// trigger raising an error, on either database) until the test ends or the
// returned func runs: a database that fails in the middle of a change.
func (a *App) FailWrites(t testing.TB, table string) (undo func()) {
	t.Helper()
	ctx := context.Background()
	db := a.Deps.DB
	var do, undoSQL []string
	if sqlstore.IsPostgres(db) {
		do = []string{
			`CREATE OR REPLACE FUNCTION apptest_fail() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'apptest: forced failure'; END $$ LANGUAGE plpgsql`,
			fmt.Sprintf(`CREATE TRIGGER apptest_fail_%[1]s BEFORE INSERT OR UPDATE OR DELETE ON %[1]s FOR EACH ROW EXECUTE FUNCTION apptest_fail()`, table),
		}
		undoSQL = []string{fmt.Sprintf(`DROP TRIGGER apptest_fail_%[1]s ON %[1]s`, table)}
	} else {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			do = append(do, fmt.Sprintf(`CREATE TRIGGER apptest_fail_%[1]s_%[2]s BEFORE %[2]s ON %[1]s BEGIN SELECT RAISE(ABORT, 'apptest: forced failure'); END`, table, op))
			undoSQL = append(undoSQL, fmt.Sprintf(`DROP TRIGGER apptest_fail_%s_%s`, table, op))
		}
	}
	for _, q := range do {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("apptest: fail writes of %s: %v", table, err)
		}
	}
	done := false
	undo = func() {
		if done {
			return
		}
		done = true
		for _, q := range undoSQL {
			if _, err := db.ExecContext(ctx, q); err != nil {
				t.Errorf("apptest: restore writes of %s: %v", table, err)
			}
		}
	}
	t.Cleanup(undo)
	return undo
}
