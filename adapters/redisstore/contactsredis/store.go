// Package contactsredis keeps contact counts in Redis: hour and day buckets
// per item and per seller, written by one Lua script call per event batch
// (idempotent by event id) and read by one pipeline per request. The key
// layout is described in docs/contacts-storage.md.
package contactsredis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/ports/contactsport"
)

// DefaultPrefix is the prefix of every key of the contacts module.
const DefaultPrefix = "feria:contacts:"

// Store implements contactsport.Counters on Redis.
type Store struct {
	rdb       redis.UniversalClient
	prefix    string
	retention time.Duration
}

var _ contactsport.Counters = (*Store)(nil)

// New returns counters whose keys all start with prefix, kept for
// contacts.Retention after their last write.
func New(rdb redis.UniversalClient, prefix string) *Store {
	return &Store{rdb: rdb, prefix: prefix, retention: contacts.Retention}
}

// kindCode keeps keys short: one letter per kind.
var kindCode = map[contacts.Kind]string{contacts.Question: "q", contacts.PhoneView: "p", contacts.MsgApp: "m"}

func (s *Store) subject(k contacts.Kind, sub contacts.Subject) string {
	if sub.Item != "" {
		return s.prefix + kindCode[k] + ":i:" + sub.Item
	}
	return s.prefix + kindCode[k] + ":u:" + strconv.FormatInt(sub.User, 10)
}

// bucket returns the hash key and field of the bucket of unit u starting at
// (or containing) t: a day is field DD of the month hash, an hour is field
// HH of the day hash.
func (s *Store) bucket(base string, u contacts.Unit, t time.Time) (key, field string) {
	t = t.UTC()
	if u == contacts.Day {
		return base + ":d:" + t.Format("200601"), t.Format("02")
	}
	return base + ":h:" + t.Format("20060102"), t.Format("15")
}

func (s *Store) eventKey(id string) string { return s.prefix + "e:" + id }

// addScript counts each event whose id key it can create. Per event: KEYS
// are the id key, then the item's day and hour hashes, then the seller's;
// ARGV (after the TTL) are the day field, the hour field and the value kept
// under the id key. It answers 1 (counted) or 0 (duplicate) per event.
var addScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local out = {}
for i = 0, #KEYS / 5 - 1 do
  local k, a = i * 5, i * 3 + 1
  if redis.call('SET', KEYS[k + 1], ARGV[a + 3], 'NX', 'EX', ttl) then
    for j = 2, 5 do
      local field = ARGV[a + 1]
      if j == 3 or j == 5 then field = ARGV[a + 2] end
      redis.call('HINCRBY', KEYS[k + j], field, 1)
      redis.call('EXPIRE', KEYS[k + j], ttl)
    end
    out[i + 1] = 1
  else
    out[i + 1] = 0
  end
end
return out
`)

// Add counts events in one script call.
func (s *Store) Add(ctx context.Context, events []contacts.Event) (contacts.Result, error) {
	r := contacts.Result{Counted: make([]bool, len(events))}
	if len(events) == 0 {
		return r, nil
	}
	keys := make([]string, 0, 5*len(events))
	args := make([]any, 0, 1+3*len(events))
	args = append(args, int64(s.retention/time.Second))
	for _, e := range events {
		item := s.subject(e.Kind, contacts.ItemSubject(e.ItemID))
		seller := s.subject(e.Kind, contacts.UserSubject(e.SellerID))
		dk, df := s.bucket(item, contacts.Day, e.Date)
		hk, hf := s.bucket(item, contacts.Hour, e.Date)
		sdk, _ := s.bucket(seller, contacts.Day, e.Date)
		shk, _ := s.bucket(seller, contacts.Hour, e.Date)
		keys = append(keys, s.eventKey(e.ID), dk, hk, sdk, shk)
		args = append(args, df, hf, e.ItemID+"|"+string(e.Kind)+"|"+e.Date.UTC().Format(time.RFC3339Nano))
	}
	res, err := addScript.Run(ctx, s.rdb, keys, args...).Int64Slice()
	if err != nil {
		return contacts.Result{}, fmt.Errorf("contactsredis: add: %w", redisstore.Translate(err))
	}
	for i, n := range res {
		if n == 1 {
			r.Accepted++
			r.Counted[i] = true
		} else {
			r.Duplicates++
		}
	}
	return r, nil
}

// Read answers every series with one pipeline: one HMGET per hash touched.
func (s *Store) Read(ctx context.Context, series []contactsport.Series) ([][]int64, error) {
	type slot struct{ series, index int }
	type read struct {
		key    string
		fields []string
		slots  []slot
	}
	var reads []*read
	out := make([][]int64, len(series))
	for i, sr := range series {
		out[i] = make([]int64, len(sr.Starts))
		base := s.subject(sr.Kind, sr.Subject)
		var cur *read
		for j, t := range sr.Starts {
			key, field := s.bucket(base, sr.Unit, t)
			if cur == nil || cur.key != key {
				cur = &read{key: key}
				reads = append(reads, cur)
			}
			cur.fields = append(cur.fields, field)
			cur.slots = append(cur.slots, slot{i, j})
		}
	}
	if len(reads) == 0 {
		return out, nil
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.SliceCmd, len(reads))
	for i, r := range reads {
		cmds[i] = pipe.HMGet(ctx, r.key, r.fields...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, fmt.Errorf("contactsredis: read: %w", redisstore.Translate(err))
	}
	for i, r := range reads {
		for j, v := range cmds[i].Val() {
			str, ok := v.(string)
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(str, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("contactsredis: bucket %s %s holds %q", r.key, r.fields[j], str)
			}
			out[r.slots[j].series][r.slots[j].index] = n
		}
	}
	return out, nil
}

// Event returns a counted event from its id key.
func (s *Store) Event(ctx context.Context, id string) (contacts.Event, error) {
	v, err := s.rdb.Get(ctx, s.eventKey(id)).Result()
	if err == redis.Nil {
		return contacts.Event{}, fmt.Errorf("contactsredis: event %q: %w", id, contactsport.ErrNotFound)
	}
	if err != nil {
		return contacts.Event{}, fmt.Errorf("contactsredis: event: %w", redisstore.Translate(err))
	}
	parts := strings.SplitN(v, "|", 3)
	if len(parts) != 3 {
		return contacts.Event{}, fmt.Errorf("contactsredis: event %q holds %q", id, v)
	}
	d, err := time.Parse(time.RFC3339Nano, parts[2])
	if err != nil {
		return contacts.Event{}, fmt.Errorf("contactsredis: event %q date: %w", id, err)
	}
	return contacts.Event{ID: id, ItemID: parts[0], Kind: contacts.Kind(parts[1]), Date: d.UTC()}, nil
}

// Reset deletes every key under the prefix (SCAN + UNLINK), and only those.
func (s *Store) Reset(ctx context.Context) error {
	var cursor uint64
	match := globEscape(s.prefix) + "*"
	for {
		keys, next, err := s.rdb.Scan(ctx, cursor, match, 1000).Result()
		if err != nil {
			return fmt.Errorf("contactsredis: reset: %w", redisstore.Translate(err))
		}
		if len(keys) > 0 {
			if err := s.rdb.Unlink(ctx, keys...).Err(); err != nil {
				return fmt.Errorf("contactsredis: reset: %w", redisstore.Translate(err))
			}
		}
		if next == 0 {
			return nil
		}
		cursor = next
	}
}

// globEscape makes a prefix match itself literally in SCAN MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '*', '?', '[', ']', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
