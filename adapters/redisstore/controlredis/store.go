// Package controlredis keeps the sandbox's test controls in Redis, so that
// every instance of the service sees the same fault rules, rate limits,
// counts and journal: rules as a hash beside a version key that every
// change sets to a value never used before (no version at all means no
// rule, as after a reset). Each process keeps the rules it read and trusts
// them without a round trip while its subscription to the notices of
// changes is up (redisstore.Notices: a change returns once every process
// dropped its copy), the version confirmed by each journal batch's pipeline or
// read again after Staleness, and on every request while the
// subscription is down; rate limits
// counted by go-redis/redis_rate (GCRA), and the journal as a capped list
// written with one pipelined LPUSH+LTRIM, which also counts a world's
// requests a minute (Quota). On a Redis Cluster the rules'
// keys share one hash slot ({rules}), so that their MULTIs and script run
// there; the journal is one key, and each rate-limit count another.
package controlredis

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/controlport"
)

// ErrUnavailable is what the sandbox's calls on the controls answer while
// Redis cannot be reached (the public requests go on without them).
var ErrUnavailable = kernel.E(kernel.Unavailable, "service_unavailable", "the sandbox's test controls are unavailable (Redis), retry later")

// translate turns a connection failure into ErrUnavailable.
func translate(err error) error {
	if err == nil {
		return nil // every journaled request comes through here: no reflection for it
	}
	if err = redisstore.Translate(err); kernel.KindOf(err) == kernel.Unavailable {
		return ErrUnavailable.Wrap(err)
	}
	return err
}

// DefaultPrefix is the prefix of every key of the controls.
const DefaultPrefix = "feria:control:"

// keys of one prefix.
type keys struct {
	ver, faults, used, times, seq, limits, gen, journal, limiter string
	coverage, since, quota                                       string
}

// keysOf names the keys of one prefix. The rules' keys carry the hash tag
// {rules}: a Redis Cluster keeps them in one slot, which the MULTIs and the
// use script, touching several of them at once, require. The journal's and
// the coverage's keys are written by plain pipelines, which a cluster
// splits by slot.
func keysOf(prefix string) keys {
	r := prefix + "{rules}:"
	return keys{
		ver: r + "ver", faults: r + "faults", used: r + "faults:used", times: r + "faults:times", seq: r + "faults:seq",
		limits: r + "limits", gen: r + "limits:gen", journal: prefix + "journal", limiter: prefix + "rl:",
		coverage: prefix + "coverage", since: prefix + "coverage:since", quota: prefix + "quota",
	}
}

// Rules implements controlport.Rules on Redis.
type Rules struct {
	rdb redis.UniversalClient
	k   keys
	// versions reads the version once for every request waiting at once.
	versions group[struct{}, string]
	w        *redisstore.Notices
	// quota is the world's requests a minute (nil: none).
	quota *Quota

	mu     sync.Mutex
	read   bool   // a snapshot is cached
	ver    string // the version it was read at ("": no version key, no rule)
	cached controlport.Snapshot
	// epoch counts the changes learned of (this process's, another's
	// notice, a subscription come back); the snapshot is current only if
	// read at the present epoch, and confirmed when its version was last
	// read (sent).
	epoch, readEpoch uint64
	confirmed        time.Time
	live             bool // the subscription is up
}

// newVersion is a version no change ever had: with a counter, a reset
// (which deletes it) would let a later change reuse a version that a
// process still holds with older rules.
func newVersion() string { return uuid.NewString() }

var _ controlport.Rules = (*Rules)(nil)

// NewRules returns the rules kept under prefix, subscribed to the notices
// of their changes (Close ends the subscription).
func NewRules(rdb redis.UniversalClient, prefix string) *Rules {
	r := &Rules{rdb: rdb, k: keysOf(prefix)}
	r.versions.flush = func(ctx context.Context, _ []struct{}) (string, error) {
		ver, err := r.rdb.Get(ctx, r.k.ver).Result()
		if errors.Is(err, redis.Nil) {
			return "", nil
		}
		return ver, err
	}
	r.w = redisstore.Subscribe(rdb, prefix+"{rules}", holder{r})
	return r
}

// Close ends the subscription to the notices of changes.
func (r *Rules) Close() { r.w.Close() }

// Current returns the rules held, with no round trip, while they are
// current: read at the present epoch, their version confirmed less than
// Staleness ago, and the subscription up. After a change learned of it
// reads the rules (one MULTI, so the rules and their version agree);
// otherwise (held too long, or the subscription down) the version (one GET
// for all the requests asking at once, sent after each asked: group) and,
// only when it moved, the rules. The snapshot's Used counts are those of the last
// full read.
func (r *Rules) Current(ctx context.Context) (controlport.Snapshot, error) {
	s, err := r.current(ctx)
	s.OverQuota = r.quota.over()
	return s, err
}

// WithQuota makes the rules those of a world of quota q: each snapshot
// says whether the world is over it, as this process last learned.
func (r *Rules) WithQuota(q *Quota) *Rules {
	r.quota = q
	return r
}

func (r *Rules) current(ctx context.Context) (controlport.Snapshot, error) {
	r.mu.Lock()
	if r.read && r.live && r.readEpoch == r.epoch && time.Since(r.confirmed) < Staleness {
		s := r.cached
		r.mu.Unlock()
		return s, nil
	}
	epoch, held := r.epoch, r.read && r.readEpoch == r.epoch
	r.mu.Unlock()
	if !held {
		return r.reload(ctx) // a change learned of: read them again at once
	}
	sent := time.Now()
	ver, err := r.versions.do(ctx, struct{}{})
	if err != nil {
		return controlport.Snapshot{}, translate(err)
	}
	r.mu.Lock()
	if r.ver == ver {
		// A change learned of later than epoch was read is seen by the
		// next request; this one's rules are current as of the GET.
		if !sent.Before(r.confirmed) {
			r.readEpoch, r.confirmed = epoch, sent
		}
		s := r.cached
		r.mu.Unlock()
		return s, nil
	}
	r.mu.Unlock()
	return r.reload(ctx)
}

func (r *Rules) epochNow() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.epoch
}

// confirm records a version read (sent at the epoch given) beside other
// work: the rules held stand if it is theirs, and are dropped otherwise.
func (r *Rules) confirm(epoch uint64, sent time.Time, ver string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case !r.read:
	case r.ver != ver:
		r.epoch++
	case r.readEpoch == epoch && !sent.Before(r.confirmed):
		r.confirmed = sent
	}
}

// Staleness bounds how long a process trusts the rules it holds without
// reading their version (redisstore.Staleness): while the subscription is
// down a process reads the version on every request, as it would without it.
const Staleness = redisstore.Staleness

// holder is Rules as the notices see it.
type holder struct{ r *Rules }

func (h holder) Changed()     { h.r.changed() }
func (h holder) Live(up bool) { h.r.setLive(up) }

// changed drops the rules held: the next request reads them again.
func (r *Rules) changed() {
	r.mu.Lock()
	r.epoch++
	r.mu.Unlock()
}

// setLive records the subscription's state; when it comes back, notices
// may have been missed, so the rules held are dropped.
func (r *Rules) setLive(up bool) {
	r.mu.Lock()
	if up && !r.live {
		r.epoch++
	}
	r.live = up
	r.mu.Unlock()
}

// wrote follows a change of this process's: its rules are dropped at once,
// and every other process is told, the call returning once they have
// dropped theirs.
func (r *Rules) wrote(ctx context.Context) {
	r.changed()
	r.w.Announce(ctx)
}

func (r *Rules) reload(ctx context.Context) (controlport.Snapshot, error) {
	r.mu.Lock()
	epoch := r.epoch
	r.mu.Unlock()
	sent := time.Now()
	var ver, limits, gen *redis.StringCmd
	var faults *redis.MapStringStringCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		ver = p.Get(ctx, r.k.ver)
		faults = p.HGetAll(ctx, r.k.faults)
		limits = p.Get(ctx, r.k.limits)
		gen = p.Get(ctx, r.k.gen)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return controlport.Snapshot{}, translate(err)
	}
	var s controlport.Snapshot
	if s.Faults, err = decodeFaults(faults.Val(), nil); err != nil {
		return s, err
	}
	if raw, err := limits.Result(); err == nil {
		s.LimitsSet = true
		if err := json.Unmarshal([]byte(raw), &s.Limits); err != nil {
			return s, fmt.Errorf("controlredis: stored limits: %w", err)
		}
	}
	s.Generation = gen.Val()
	r.mu.Lock()
	if !r.read || !sent.Before(r.confirmed) {
		r.read, r.ver, r.cached, r.readEpoch, r.confirmed = true, ver.Val(), s, epoch, sent
	}
	r.mu.Unlock()
	return s, nil
}

// decodeFaults turns the hash of rules into rules oldest first, with their
// uses when used is given.
func decodeFaults(raw, used map[string]string) ([]control.Fault, error) {
	out := make([]control.Fault, 0, len(raw))
	for id, v := range raw {
		var f control.Fault
		if err := json.Unmarshal([]byte(v), &f); err != nil {
			return nil, fmt.Errorf("controlredis: stored fault %s: %w", id, err)
		}
		f.Used, _ = strconv.Atoi(used[id])
		out = append(out, f)
	}
	slices.SortFunc(out, func(a, b control.Fault) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}

// AddFault takes the next id, then stores the rule and bumps the version
// in one MULTI.
func (r *Rules) AddFault(ctx context.Context, f control.Fault) (control.Fault, error) {
	id, err := r.rdb.Incr(ctx, r.k.seq).Result()
	if err != nil {
		return f, translate(err)
	}
	f.ID, f.Used = id, 0
	raw, err := json.Marshal(f)
	if err != nil {
		return f, err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, r.k.faults, strconv.FormatInt(id, 10), raw)
		if f.Times != nil {
			p.HSet(ctx, r.k.times, strconv.FormatInt(id, 10), *f.Times)
		}
		p.Set(ctx, r.k.ver, newVersion(), 0)
		return nil
	})
	return f, r.after(ctx, err)
}

// Faults reads the rules and their uses.
func (r *Rules) Faults(ctx context.Context) ([]control.Fault, error) {
	var faults, used *redis.MapStringStringCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		faults = p.HGetAll(ctx, r.k.faults)
		used = p.HGetAll(ctx, r.k.used)
		return nil
	})
	if err != nil {
		return nil, translate(err)
	}
	return decodeFaults(faults.Val(), used.Val())
}

func (r *Rules) DeleteFault(ctx context.Context, id int64) (bool, error) {
	field := strconv.FormatInt(id, 10)
	var del *redis.IntCmd
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		del = p.HDel(ctx, r.k.faults, field)
		p.HDel(ctx, r.k.used, field)
		p.HDel(ctx, r.k.times, field)
		p.Set(ctx, r.k.ver, newVersion(), 0)
		return nil
	})
	if err := r.after(ctx, err); err != nil {
		return false, err
	}
	return del.Val() == 1, nil
}

func (r *Rules) DeleteFaults(ctx context.Context) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, r.k.faults, r.k.used, r.k.times)
		p.Set(ctx, r.k.ver, newVersion(), 0)
		return nil
	})
	return r.after(ctx, err)
}

// after follows a MULTI that changed the rules: told to every process
// when it succeeded; dropped here whatever its outcome.
func (r *Rules) after(ctx context.Context, err error) error {
	if err != nil {
		r.changed()
		return translate(err)
	}
	r.wrote(ctx)
	return nil
}

// useScript counts a use of rule ARGV[1] if it still exists (1); with its
// last use (its times, when it has one) it removes the rule and sets a new
// version (ARGV[2]), answering 2. One script, so that two instances never both take the last use.
// KEYS: the rules, their uses, their times, the version.
var useScript = redis.NewScript(`
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 0 end
local used = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
local times = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if times > 0 and used >= times then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('SET', KEYS[4], ARGV[2])
  return 2
end
return 1
`)

// UseFault takes one use of a rule: one script call; the last one, which
// removes the rule, is a change like any other (wrote).
func (r *Rules) UseFault(ctx context.Context, id int64) (bool, error) {
	n, err := useScript.Run(ctx, r.rdb, []string{r.k.faults, r.k.used, r.k.times, r.k.ver}, id, newVersion()).Int()
	if err != nil {
		return false, translate(err)
	}
	if n == 2 {
		r.wrote(ctx)
	}
	return n > 0, nil
}

func (r *Rules) SetLimits(ctx context.Context, limits []control.RateLimit) error {
	if limits == nil {
		limits = []control.RateLimit{}
	}
	raw, err := json.Marshal(limits)
	if err != nil {
		return err
	}
	_, err = r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.k.limits, raw, 0)
		p.Set(ctx, r.k.gen, newVersion(), 0)
		p.Set(ctx, r.k.ver, newVersion(), 0)
		return nil
	})
	return r.after(ctx, err)
}

// Reset removes the rules, the limits set and the version in one MULTI:
// no version is no rule, and ids start at 1 again.
func (r *Rules) Reset(ctx context.Context) error {
	_, err := r.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, r.k.faults, r.k.used, r.k.times, r.k.seq, r.k.limits, r.k.gen, r.k.ver)
		return nil
	})
	return r.after(ctx, err)
}

// Limiter implements controlport.Limiter with go-redis/redis_rate: GCRA in
// one Lua script on Redis's own clock, so instances need no clock of
// their own and agree on every count.
type Limiter struct {
	l      *redis_rate.Limiter
	rdb    redis.UniversalClient
	prefix string
}

var _ controlport.Limiter = (*Limiter)(nil)

// NewLimiter counts under prefix (redis_rate adds "rate:" in front).
func NewLimiter(rdb redis.UniversalClient, prefix string) *Limiter {
	return &Limiter{l: redis_rate.NewLimiter(rdb), rdb: rdb, prefix: keysOf(prefix).limiter}
}

// Reset deletes every count of the prefix (on every master of a cluster).
func (l *Limiter) Reset(ctx context.Context) error {
	return translate(redisstore.UnlinkMatching(ctx, l.rdb, "rate:"+l.prefix))
}

func (l *Limiter) Allow(ctx context.Context, key string, perMinute int) (control.Verdict, error) {
	res, err := l.l.Allow(ctx, l.prefix+key, redis_rate.PerMinute(perMinute))
	if err != nil {
		return control.Verdict{}, translate(err)
	}
	v := control.Verdict{Allowed: res.Allowed > 0}
	if !v.Allowed {
		v.RetryAfter = res.RetryAfter
	}
	return v, nil
}

// Quota is a world's requests a minute as this process knows them
// (WORLD_MAX_REQUESTS_PER_MINUTE): the journal counts the world's requests
// in the pipeline that writes them, no round trip of its own, and learns
// the minute's count; while that count is at the quota, the world's rules
// say so (Snapshot.OverQuota) until the minute ends. A minute starts with
// its first request (a fixed window, one INCRBY for a whole batch). A
// process refuses from the request after the one that reached the quota;
// one that has not journaled since learns it with its next entry.
type Quota struct {
	perMinute int64

	mu    sync.Mutex
	until time.Time // the minute's end, while its count is at the quota
}

// NewQuota is a quota of perMinute requests a minute (0: none, nil).
func NewQuota(perMinute int) *Quota {
	if perMinute <= 0 {
		return nil
	}
	return &Quota{perMinute: int64(perMinute)}
}

// over is how long the world stays over its quota; 0 when it is not.
func (q *Quota) over() time.Duration {
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return max(time.Until(q.until), 0)
}

// learn records the minute's count and the time left of it.
func (q *Quota) learn(count int64, left time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if count >= q.perMinute {
		q.until = time.Now().Add(left)
	} else {
		q.until = time.Time{}
	}
}

// countScript adds ARGV[1] to the minute's count KEYS[1], starting a
// minute (ARGV[2] ms) when there is none, and answers the count and the
// ms left: a script, so that the count is never left without its end,
// whatever the Redis version (EXPIRE NX is Redis 7's). Sent whole (EVAL)
// in the journal's pipeline, where an EVALSHA's NOSCRIPT could not be
// answered by a retry: a hundred bytes more.
const countScript = `
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  left = tonumber(ARGV[2])
end
return {n, left}
`

// Journal implements controlport.Journal: the entries as a list capped at
// control.JournalSize (or a world's quota), newest first; the coverage as
// a hash of counts by control.Tally field beside the instant they are kept
// since.
type Journal struct {
	rdb redis.UniversalClient
	k   keys
	// size is how many entries the list keeps.
	size int
	// quota counts a world's requests a minute (nil: none).
	quota *Quota
	// writes pushes the entries of every request finishing at once.
	writes group[pending, struct{}]
	// rules, when set, have their version read in each batch's pipeline
	// (Confirms).
	rules *Rules
}

// Confirms has every batch of the journal read the rules' version too, in
// its pipeline: a process serving requests has the rules it holds
// confirmed by its own journal's writes, with no round trip of their own
// (Staleness then binds only an idle process's first request).
func (j *Journal) Confirms(r *Rules) { j.rules = r }

// pending is an entry on its way: its JSON and its tally.
type pending struct {
	raw     []byte
	tally   string // "" when it does not count
	counted time.Time
}

var _ controlport.Journal = (*Journal)(nil)

// NewJournal returns the journal kept under prefix.
func NewJournal(rdb redis.UniversalClient, prefix string) *Journal {
	return NewWorldJournal(rdb, prefix, control.JournalSize, nil)
}

// NewWorldJournal returns a world's journal kept under prefix: it keeps
// the last size entries (at most control.JournalSize) and counts the
// world's requests against quota (nil: none).
func NewWorldJournal(rdb redis.UniversalClient, prefix string, size int, quota *Quota) *Journal {
	if size <= 0 || size > control.JournalSize {
		size = control.JournalSize
	}
	j := &Journal{rdb: rdb, k: keysOf(prefix), size: size, quota: quota}
	j.writes.flush = j.flush
	return j
}

// flush writes a batch in one round trip: one LPUSH of its entries and an
// LTRIM, one HINCRBY per distinct tally, and the coverage's start when
// nothing set it yet (SETNX).
func (j *Journal) flush(ctx context.Context, batch []pending) (struct{}, error) {
	raws := make([]any, len(batch))
	tallies := map[string]int64{}
	var first time.Time
	for i, p := range batch {
		raws[i] = p.raw
		if p.tally != "" {
			tallies[p.tally]++
			if first.IsZero() {
				first = p.counted
			}
		}
	}
	var ver *redis.StringCmd
	var epoch uint64
	if j.rules != nil {
		epoch = j.rules.epochNow()
	}
	sent := time.Now()
	var count *redis.Cmd
	_, err := j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.LPush(ctx, j.k.journal, raws...)
		p.LTrim(ctx, j.k.journal, 0, int64(j.size)-1)
		if j.quota != nil {
			count = p.Eval(ctx, countScript, []string{j.k.quota}, len(batch), time.Minute.Milliseconds())
		}
		for f, n := range tallies {
			p.HIncrBy(ctx, j.k.coverage, f, n)
		}
		if !first.IsZero() {
			p.SetNX(ctx, j.k.since, first.UTC().Format(time.RFC3339Nano), 0)
		}
		if j.rules != nil {
			ver = p.Get(ctx, j.rules.k.ver)
		}
		return nil
	})
	if count != nil {
		// Its own answer, whatever the others': the count is learned
		// whenever the script ran.
		if v, cerr := count.Int64Slice(); cerr == nil && len(v) == 2 {
			j.quota.learn(v[0], time.Duration(v[1])*time.Millisecond)
		}
	}
	if ver != nil && (err == nil || errors.Is(err, redis.Nil)) {
		// The version's GET comes last: redis.Nil is its own (no version,
		// no rule), every write before it succeeded.
		err = nil
		j.rules.confirm(epoch, sent, ver.Val())
	}
	return struct{}{}, err
}

// Append writes the entry with the others of requests finishing at once
// (group): one pipelined LPUSH of them all, an LTRIM and their counts, a
// single round trip, returning once it is answered; the list never holds
// more than JournalSize entries for long, whatever the instances
// interleave.
//
// The entry is encoded by hand (appendEntry: Entry.AppendJSON, its bodies
// as they are) into a buffer used again once its batch is written: one
// per public request.
func (j *Journal) Append(ctx context.Context, e control.Entry) error {
	buf := entryBuffers.Get().(*[]byte)
	defer entryBuffers.Put(buf)
	*buf = appendEntry((*buf)[:0], e)
	p := pending{raw: *buf, counted: e.Counted}
	if t, ok := e.Tally(); ok {
		p.tally = t.Field()
	}
	_, err := j.writes.do(ctx, p)
	return translate(err)
}

// entryBuffers hold encoded entries between their encoding and their
// batch's write (go-redis copies nothing: the bytes are written as they
// are, before do returns).
var entryBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

func (j *Journal) List(ctx context.Context) ([]control.Entry, error) {
	raws, err := j.rdb.LRange(ctx, j.k.journal, 0, int64(j.size)-1).Result()
	if err != nil {
		return nil, translate(err)
	}
	out := make([]control.Entry, 0, len(raws))
	for _, raw := range raws {
		e, err := decodeEntry(raw)
		if err != nil {
			return nil, fmt.Errorf("controlredis: stored journal entry: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

func (j *Journal) Counts(ctx context.Context) (map[string]int64, time.Time, error) {
	var all *redis.MapStringStringCmd
	var since *redis.StringCmd
	_, err := j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		all = p.HGetAll(ctx, j.k.coverage)
		since = p.Get(ctx, j.k.since)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, time.Time{}, translate(err)
	}
	counts := make(map[string]int64, len(all.Val()))
	for f, v := range all.Val() {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, time.Time{}, fmt.Errorf("controlredis: stored coverage count %q: %w", f, err)
		}
		counts[f] = n
	}
	var at time.Time
	if s := since.Val(); s != "" {
		if at, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return nil, time.Time{}, fmt.Errorf("controlredis: stored coverage start: %w", err)
		}
	}
	return counts, at, nil
}

// Reset empties the journal and the counts and dates the new start, in one
// round trip.
func (j *Journal) Reset(ctx context.Context, at time.Time) error {
	_, err := j.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.Del(ctx, j.k.journal)
		p.Del(ctx, j.k.coverage)
		p.Set(ctx, j.k.since, at.UTC().Format(time.RFC3339Nano), 0)
		return nil
	})
	return translate(err)
}
