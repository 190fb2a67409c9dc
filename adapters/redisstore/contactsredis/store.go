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
}

var _ contactsport.Counters = (*Store)(nil)

// New returns counters whose keys all start with prefix, kept for
// contacts.Retention after their last write. The prefix must not hold '{':
// the subjects' hash tags follow it.
func New(rdb redis.UniversalClient, prefix string) *Store {
	_, cluster := rdb.(*redis.ClusterClient)
	return &Store{rdb: rdb, cluster: cluster, prefix: prefix, retention: contacts.Retention}
}

// kindCode keeps keys short: one letter per kind.
func kindCode(k contacts.Kind) byte {
	switch k {
	case contacts.Question:
		return 'q'
	case contacts.PhoneView:
		return 'p'
	}
	return 'm'
}

// Key suffixes after <prefix>{subject}:<kind>: a month hash of day
// counts, a day hash of hour counts, and a day's sorted set of events
// (member: event id, score: Unix microseconds).
const (
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

// appendMonth appends YYYYMM, appendDay YYYYMMDD: digits, no time.Format.
func appendMonth(b []byte, y int, m time.Month) []byte {
	return append(b, byte('0'+y/1000%10), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10),
		byte('0'+int(m)/10), byte('0'+int(m)%10))
}

func appendDay(b []byte, y int, m time.Month, d int) []byte {
	return append(appendMonth(b, y, m), byte('0'+d/10), byte('0'+d%10))
}

// Field names, built once: days 01..31 of a month hash, hours 00..23 of a
// day hash, as strings (script arguments) and as ready command arguments
// (no conversion per bucket read).
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
//   - S: KEYS the subject's day events, month hash, day hash; ARGV 'S',
//     event id, Unix microseconds, day field, hour field, expiry (Unix
//     seconds). When the id is new in that day's events (ZADD NX) the hour
//     and the day are counted.
//
// A day's keys and its month's hash expire together, at a fixed time after
// the month ends (EXPIREAT), set by the first event of each day (its day
// field new in the month hash): that event creates the day's keys (and the
// month's, if first), and since the three expire at one instant the month
// hash never outlives a day's keys, so no key lives without an expiry; the
// other events of the day touch no TTL at all. It answers 1 (new) or 0
// (seen before) per unit.
var addScript = redis.NewScript(`
local ttl = tonumber(ARGV[1])
local out = {}
local k, a = 1, 2
while a <= #ARGV do
  if ARGV[a] == 'R' then
    if redis.call('SET', KEYS[k], ARGV[a + 1], 'NX', 'EX', ttl) then out[#out + 1] = 1 else out[#out + 1] = 0 end
    k, a = k + 1, a + 2
  else
    if redis.call('ZADD', KEYS[k], 'NX', ARGV[a + 2], ARGV[a + 1]) == 1 then
      redis.call('HINCRBY', KEYS[k + 2], ARGV[a + 4], 1)
      if redis.call('HINCRBY', KEYS[k + 1], ARGV[a + 3], 1) == 1 then
        redis.call('EXPIREAT', KEYS[k], ARGV[a + 5])
        redis.call('EXPIREAT', KEYS[k + 1], ARGV[a + 5])
        redis.call('EXPIREAT', KEYS[k + 2], ARGV[a + 5])
      end
      out[#out + 1] = 1
    else
      out[#out + 1] = 0
    end
    k, a = k + 3, a + 6
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
		expiry := time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC).Unix() + ttl
		for side, sub := range [2]contacts.Subject{contacts.ItemSubject(e.ItemID), contacts.UserSubject(e.SellerID)} {
			base := s.appendBase(buf[:0], e.Kind, sub)
			n := len(base)
			tk := key(appendDay(append(base, dayEvents...), y, m, day))
			g := groupOf(tk)
			mk := key(appendMonth(append(buf[:n], monthHash...), y, m))
			hk := key(appendDay(append(buf[:n], dayHash...), y, m, day))
			g.keys = append(g.keys, tk, mk, hk)
			g.args = append(g.args, "S", e.ID, micros, dayFields[day], hourFields[d.Hour()], expiry)
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

// What a command of a read answers.
const (
	opSeries   = iota // buckets j.. of series i
	opSpanDays        // whole days of span i
	opSpanEdge        // a partial day of span i
	opKnown           // subject i
)

type op struct {
	what, i, j int
	cmd        redis.Cmder
}

// Read answers a query with one pipeline: one HMGET per hash a series or a
// span's whole days touch (fields are consecutive buckets), one ZCOUNT per
// partial day at a span's ends (exact to the microsecond), one MGET of the
// known marks asked (on a cluster one EXISTS per subject). Keys and fields
// are built from digits into one buffer and the commands' arguments share
// one slice: nothing per bucket but its answer.
func (s *Store) Read(ctx context.Context, q contactsport.Query) (contactsport.Answer, error) {
	out := contactsport.Answer{Series: make([][]int64, len(q.Series)), Spans: make([]int64, len(q.Spans)), Known: make([]bool, len(q.Known))}
	wholes := make([]contacts.Range, len(q.Spans))
	var edges [][]contacts.Range
	if len(q.Spans) > 0 {
		edges = make([][]contacts.Range, len(q.Spans))
	}
	size := 0
	for i, sr := range q.Series {
		n := len(sr.Starts)
		out.Series[i] = make([]int64, n)
		// A field per start and a command name and key per hash: n
		// consecutive days touch at most 2 + n/28 month hashes, n
		// consecutive hours 2 + n/24 day hashes.
		per := 24
		if sr.Unit == contacts.Day {
			per = 28
		}
		size += n + 2*min(n, 2+n/per)
	}
	for i, sp := range q.Spans {
		wholes[i], edges[i] = sp.Range.Split()
		size += 2 * (2 + 31) // at most an HMGET of a month's days at either end
	}
	size += 2 * len(q.Known)
	// args backs every command's arguments, sized for a window's
	// consecutive starts. A command takes its arguments as a slice of args
	// once they are all appended, so an append that moves args (other
	// starts) copies them along, and the commands queued before keep the
	// array they were given, which nothing writes again.
	args := make([]any, 0, size)
	ops := make([]op, 0, 64)
	buf := make([]byte, 0, 128)
	pipe := s.rdb.Pipeline()
	// buckets queues HMGETs of consecutive starts, one per hash.
	buckets := func(what, i int, k contacts.Kind, sub contacts.Subject, u contacts.Unit, starts []time.Time) {
		buf = s.appendBase(buf[:0], k, sub)
		base := len(buf)
		prevY, prevM, prevD := -1, time.Month(0), -1
		first := 0
		flush := func(j int) {
			ops = append(ops, op{what: what, i: i, j: first, cmd: hmget(ctx, pipe, args[len(args)-(2+j-first):len(args):len(args)])})
		}
		for j, t := range starts {
			t = t.UTC()
			y, m, d := t.Date()
			same := y == prevY && m == prevM && (u == contacts.Day || d == prevD)
			if !same {
				if j > 0 {
					flush(j)
				}
				if u == contacts.Day {
					buf = appendMonth(append(buf[:base], monthHash...), y, m)
				} else {
					buf = appendDay(append(buf[:base], dayHash...), y, m, d)
				}
				args = append(args, "hmget", string(buf))
				prevY, prevM, prevD, first = y, m, d, j
			}
			if u == contacts.Day {
				args = append(args, dayFieldArgs[d])
			} else {
				args = append(args, hourFieldArgs[t.Hour()])
			}
		}
		if len(starts) > 0 {
			flush(len(starts))
		}
	}
	for i, sr := range q.Series {
		buckets(opSeries, i, sr.Kind, sr.Subject, sr.Unit, sr.Starts)
	}
	for i, sp := range q.Spans {
		// The whole days month by month: a whole month is its hash's HVALS
		// (the hash holds that month's days only), which names no field; a
		// part of a month at either end, an HMGET of its days.
		buf = s.appendBase(buf[:0], sp.Kind, sp.Subject)
		base := len(buf)
		to := wholes[i].To.UTC()
		for t := wholes[i].From.UTC(); t.Before(to); {
			y, m, d := t.Date()
			next := time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
			end := next
			if to.Before(next) {
				end = to
			}
			key := string(appendMonth(append(buf[:base], monthHash...), y, m))
			if d == 1 && end.Equal(next) {
				cmd := redis.NewStringSliceCmd(ctx, "hvals", key)
				_ = pipe.Process(ctx, cmd)
				ops = append(ops, op{what: opSpanDays, i: i, cmd: cmd})
			} else {
				from := len(args)
				args = append(args, "hmget", key)
				for day := d; day <= end.Add(-time.Hour).Day(); day++ {
					args = append(args, dayFieldArgs[day])
				}
				ops = append(ops, op{what: opSpanDays, i: i, cmd: hmget(ctx, pipe, args[from:len(args):len(args)])})
			}
			t = end
		}
		for _, e := range edges[i] {
			y, m, d := e.From.UTC().Date()
			buf = appendDay(append(s.appendBase(buf[:0], sp.Kind, sp.Subject), dayEvents...), y, m, d)
			cmd := redis.NewIntCmd(ctx, "zcount", string(buf), e.From.UnixMicro(), "("+strconv.FormatInt(e.To.UnixMicro(), 10))
			_ = pipe.Process(ctx, cmd)
			ops = append(ops, op{what: opSpanEdge, i: i, cmd: cmd})
		}
	}
	if len(q.Known) > 1 && !s.cluster {
		// One MGET of every mark (a cluster keeps them in as many slots
		// as subjects, so there each has its EXISTS).
		mget := make([]any, 1, 1+len(q.Known))
		mget[0] = "mget"
		for _, sub := range q.Known {
			mget = append(mget, string(append(s.appendSubject(buf[:0], sub), known...)))
		}
		cmd := redis.NewSliceCmd(ctx, mget...)
		_ = pipe.Process(ctx, cmd)
		ops = append(ops, op{what: opKnown, cmd: cmd})
	} else {
		for i, sub := range q.Known {
			buf = append(s.appendSubject(buf[:0], sub), known...)
			cmd := redis.NewIntCmd(ctx, "exists", string(buf))
			_ = pipe.Process(ctx, cmd)
			ops = append(ops, op{what: opKnown, i: i, cmd: cmd})
		}
	}
	if len(ops) == 0 {
		return out, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return contactsport.Answer{}, fmt.Errorf("contactsredis: read: %w", redisstore.Translate(err))
	}
	for _, o := range ops {
		switch c := o.cmd.(type) {
		case *redis.SliceCmd:
			if o.what == opKnown {
				for j, v := range c.Val() {
					out.Known[j] = v != nil
				}
				continue
			}
			for j, v := range c.Val() {
				str, ok := v.(string)
				if !ok {
					continue
				}
				n, err := strconv.ParseInt(str, 10, 64)
				if err != nil {
					return contactsport.Answer{}, fmt.Errorf("contactsredis: bucket %v holds %q", c.Args()[1], str)
				}
				if o.what == opSeries {
					out.Series[o.i][o.j+j] = n
				} else {
					out.Spans[o.i] += n
				}
			}
		case *redis.StringSliceCmd: // a span's whole month
			for _, str := range c.Val() {
				n, err := strconv.ParseInt(str, 10, 64)
				if err != nil {
					return contactsport.Answer{}, fmt.Errorf("contactsredis: bucket %v holds %q", c.Args()[1], str)
				}
				out.Spans[o.i] += n
			}
		case *redis.IntCmd:
			if o.what == opKnown {
				out.Known[o.i] = c.Val() > 0
			} else {
				out.Spans[o.i] += c.Val()
			}
		}
	}
	return out, nil
}

// hmget queues an HMGET whose arguments (name, key, fields) are args.
func hmget(ctx context.Context, pipe redis.Pipeliner, args []any) *redis.SliceCmd {
	cmd := redis.NewSliceCmd(ctx, args...)
	_ = pipe.Process(ctx, cmd) // a pipeline only queues: errors come from Exec
	return cmd
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
