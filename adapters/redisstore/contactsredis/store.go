// Package contactsredis keeps contact counts in Redis: day and hour buckets
// and a per-day set of event times, per item and per seller, written by
// one Lua script call per hash slot of an event batch (one call in all on a
// single server; idempotent by event id) and read by one pipeline per
// request. Every key of a subject shares the hash tag {i:<item>} or
// {u:<seller>}, so that each script and command stays in one slot of a
// Redis Cluster. The key layout is described in docs/contacts-storage.md.
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
	rdb redis.UniversalClient
	// cluster splits a batch into one script call per hash slot; a single
	// server takes the whole batch in one call.
	cluster   bool
	prefix    string
	retention time.Duration
	// now is the clock that tells which months are past retention.
	now func() time.Time
}

var _ contactsport.Counters = (*Store)(nil)

// New returns counters whose keys all start with prefix, kept for
// contacts.Retention after their last write. The prefix must not hold '{':
// the subjects' hash tags follow it.
func New(rdb redis.UniversalClient, prefix string) *Store {
	_, cluster := rdb.(*redis.ClusterClient)
	return &Store{rdb: rdb, cluster: cluster, prefix: prefix, retention: contacts.Retention, now: time.Now}
}

// kindCode keeps keys short: one letter per kind.
func kindCode(k contacts.Kind) byte {
	switch k {
	case contacts.Question:
		return 'q'
	case contacts.PhoneView:
		return 'p'
	case contacts.Visit:
		return 'v'
	}
	return 'm'
}

// Key suffixes after <prefix>{subject}:<kind>: a year hash of month
// counts, a month hash of day counts, a day hash of hour counts, and a
// day's sorted set of events (member: event id, score: Unix microseconds).
const (
	yearHash  = ":m:"
	monthHash = ":d:"
	dayHash   = ":h:"
	dayEvents = ":t:"
	// known marks a subject the database knows: <prefix>{subject}:x.
	known = ":x"
)

// appendSubject appends <prefix>{i:<item>} or <prefix>{u:<user>}: the hash
// tag of every key of that subject. Item ids are a site id and digits.
func (s *Store) appendSubject(b []byte, sub contacts.Subject) []byte {
	b = append(b, s.prefix...)
	if sub.Item != "" {
		b = append(b, "{i:"...)
		b = append(b, sub.Item...)
	} else {
		b = append(b, "{u:"...)
		b = strconv.AppendInt(b, sub.User, 10)
	}
	return append(b, '}')
}

func (s *Store) appendBase(b []byte, k contacts.Kind, sub contacts.Subject) []byte {
	return append(append(s.appendSubject(b, sub), ':'), kindCode(k))
}

// appendYear appends YYYY, appendMonth YYYYMM, appendDay YYYYMMDD:
// digits, no time.Format.
func appendYear(b []byte, y int) []byte {
	return append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
}

func appendMonth(b []byte, y int, m time.Month) []byte {
	return append(appendYear(b, y), byte('0'+int(m)/10), byte('0'+int(m)%10))
}

func appendDay(b []byte, y int, m time.Month, d int) []byte {
	return append(appendMonth(b, y, m), byte('0'+d/10), byte('0'+d%10))
}

// Field names, built once: months 01..12 of a year hash and days 01..31
// of a month hash (dayFields), hours 00..23 of a day hash, as strings
// (script arguments) and as ready command arguments (no conversion per
// bucket read).
var (
	dayFields, hourFields       [32]string
	dayFieldArgs, hourFieldArgs [32]any
)

func init() {
	for i := range dayFields {
		dayFields[i] = string([]byte{byte('0' + i/10), byte('0' + i%10)})
		hourFields[i] = dayFields[i]
		dayFieldArgs[i], hourFieldArgs[i] = dayFields[i], hourFields[i]
	}
}

func (s *Store) eventKey(id string) string { return s.prefix + "e:" + id }

// addScript counts events on the keys of one hash slot (or, on a single
// server, of any). ARGV[1] is the record's TTL; then units follow, each
// with its KEYS:
//   - R: KEYS record; ARGV 'R', value. SET NX EX: the event as GET
//     /sandbox/contact_events/{id} shows it.
//   - S: KEYS the subject's day events, month hash, day hash, year hash;
//     ARGV 'S', event id, Unix microseconds, day field, hour field, expiry
//     (Unix seconds), month field, the year hash's expiry. When the id is
//     new in that day's events (ZADD NX) the hour, the day and the month
//     are counted.
//
// A day's keys and its month's hash expire together, at a fixed time after
// the month ends (EXPIREAT), set by the first event of each day (its day
// field new in the month hash): that event creates the day's keys (and the
// month's, if first), and since the three expire at one instant the month
// hash never outlives a day's keys, so no key lives without an expiry; the
// year hash expires as long after its year ends, set by the first event of
// each month. The other events touch no TTL at all. It answers 1 (new) or
// 0 (seen before) per unit.
//
// Every argument reaches redis.call as a string ('1', the TTL as sent):
// Redis formats a Lua number with snprintf("%.17g") on each call, which
// took a tenth of the script's time (BenchmarkIngest, Redis's own
// commandstats).
var addScript = redis.NewScript(`
local ttl = ARGV[1]
local out = {}
local k, a = 1, 2
while a <= #ARGV do
  if ARGV[a] == 'R' then
    if redis.call('SET', KEYS[k], ARGV[a + 1], 'NX', 'EX', ttl) then out[#out + 1] = 1 else out[#out + 1] = 0 end
    k, a = k + 1, a + 2
  else
    if redis.call('ZADD', KEYS[k], 'NX', ARGV[a + 2], ARGV[a + 1]) == 1 then
      redis.call('HINCRBY', KEYS[k + 2], ARGV[a + 4], '1')
      if redis.call('HINCRBY', KEYS[k + 1], ARGV[a + 3], '1') == 1 then
        redis.call('EXPIREAT', KEYS[k], ARGV[a + 5])
        redis.call('EXPIREAT', KEYS[k + 1], ARGV[a + 5])
        redis.call('EXPIREAT', KEYS[k + 2], ARGV[a + 5])
      end
      if redis.call('HINCRBY', KEYS[k + 3], ARGV[a + 6], '1') == 1 then
        redis.call('EXPIREAT', KEYS[k + 3], ARGV[a + 7])
      end
      out[#out + 1] = 1
    else
      out[#out + 1] = 0
    end
    k, a = k + 4, a + 8
  end
end
return out
`)

// group is one script call: the units of one hash slot.
type group struct {
	keys  []string
	args  []any
	units []int // unit numbers, in call order: 3×event + 0 item, 1 seller, 2 record
}

// Add counts events: each event is a record unit and a unit per subject
// (item, seller), each idempotent on its own, so that a batch split over
// the slots of a cluster and retried after a partial failure counts each
// subject once. An event is accepted when its item counted it.
func (s *Store) Add(ctx context.Context, events []contacts.Event) (contacts.Result, error) {
	r := contacts.Result{Counted: make([]bool, len(events))}
	if len(events) == 0 {
		return r, nil
	}
	ttl := int64(s.retention / time.Second)
	groups := map[int]*group{}
	var order []*group
	groupOf := func(key string) *group {
		slot := 0
		if s.cluster {
			slot = Slot(key)
		}
		g := groups[slot]
		if g == nil {
			g = &group{args: []any{ttl}}
			groups[slot] = g
			order = append(order, g)
		}
		return g
	}
	buf := make([]byte, 0, 128)
	key := func(b []byte) string { buf = b; return string(b) }
	for i, e := range events {
		d := e.Date.UTC()
		y, m, day := d.Date()
		micros := d.UnixMicro()
		expiry, yearExpiry := monthExpiry(y, m, ttl), monthExpiry(y+1, 0, ttl)
		for side, sub := range [2]contacts.Subject{contacts.ItemSubject(e.ItemID), contacts.UserSubject(e.SellerID)} {
			base := s.appendBase(buf[:0], e.Kind, sub)
			n := len(base)
			tk := key(appendDay(append(base, dayEvents...), y, m, day))
			g := groupOf(tk)
			mk := key(appendMonth(append(buf[:n], monthHash...), y, m))
			hk := key(appendDay(append(buf[:n], dayHash...), y, m, day))
			yk := key(appendYear(append(buf[:n], yearHash...), y))
			g.keys = append(g.keys, tk, mk, hk, yk)
			g.args = append(g.args, "S", e.ID, micros, dayFields[day], hourFields[d.Hour()], expiry, dayFields[m], yearExpiry)
			g.units = append(g.units, 3*i+side)
		}
		rk := s.eventKey(e.ID)
		g := groupOf(rk)
		g.keys = append(g.keys, rk)
		g.args = append(g.args, "R", e.ItemID+"|"+string(e.Kind)+"|"+d.Format(time.RFC3339Nano))
		g.units = append(g.units, 3*i+2)
	}
	res, err := s.run(ctx, order)
	if err != nil {
		return contacts.Result{}, fmt.Errorf("contactsredis: add: %w", redisstore.Translate(err))
	}
	for gi, g := range order {
		if len(res[gi]) != len(g.units) {
			return contacts.Result{}, fmt.Errorf("contactsredis: add: %d answers to %d units", len(res[gi]), len(g.units))
		}
		for j, u := range g.units {
			if u%3 == 0 && res[gi][j] == 1 {
				r.Counted[u/3] = true
			}
		}
	}
	for _, c := range r.Counted {
		if c {
			r.Accepted++
		} else {
			r.Duplicates++
		}
	}
	return r, nil
}

// monthExpiry is when the buckets of month m of year y expire: ttl
// seconds after the month ends (month 0: after the year y-1 ends).
func monthExpiry(y int, m time.Month, ttl int64) int64 {
	return time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).Unix() + ttl
}

// run calls the script once per group: one call on a single server (one
// round trip), one pipeline of calls on a cluster (go-redis sends each node
// its calls). A node that lacks the script (NOSCRIPT) gets it by EVAL.
func (s *Store) run(ctx context.Context, groups []*group) ([][]int64, error) {
	out := make([][]int64, len(groups))
	if len(groups) == 1 {
		res, err := addScript.Run(ctx, s.rdb, groups[0].keys, groups[0].args...).Int64Slice()
		out[0] = res
		return out, err
	}
	cmds := make([]*redis.Cmd, len(groups))
	pipe := s.rdb.Pipeline()
	for i, g := range groups {
		cmds[i] = addScript.EvalSha(ctx, pipe, g.keys, g.args...)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		retry := s.rdb.Pipeline()
		for i, c := range cmds {
			if c.Err() == nil {
				continue
			}
			if !redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
				return nil, c.Err()
			}
			cmds[i] = addScript.Eval(ctx, retry, groups[i].keys, groups[i].args...)
		}
		if _, err := retry.Exec(ctx); err != nil {
			return nil, err
		}
	}
	for i, c := range cmds {
		res, err := c.Int64Slice()
		if err != nil {
			return nil, err
		}
		out[i] = res
	}
	return out, nil
}

// MarkKnown sets the known marks of subjects, in one pipeline.
func (s *Store) MarkKnown(ctx context.Context, subs []contacts.Subject) error {
	if len(subs) == 0 {
		return nil
	}
	buf := make([]byte, 0, 64)
	pipe := s.rdb.Pipeline()
	for _, sub := range subs {
		buf = append(s.appendSubject(buf[:0], sub), known...)
		pipe.Set(ctx, string(buf), "1", s.retention)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("contactsredis: mark known: %w", redisstore.Translate(err))
	}
	return nil
}

// Event returns a counted event from its record key.
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

// Reset deletes every key under the prefix, on every master of a cluster,
// and only those.
func (s *Store) Reset(ctx context.Context) error {
	if err := redisstore.UnlinkMatching(ctx, s.rdb, s.prefix); err != nil {
		return fmt.Errorf("contactsredis: reset: %w", redisstore.Translate(err))
	}
	return nil
}
