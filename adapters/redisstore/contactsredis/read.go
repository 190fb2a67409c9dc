package contactsredis

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/feria/feria/adapters/redisstore"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/ports/contactsport"
)

// What a command of a read answers.
const (
	opSeries = iota // buckets j.. of series i
	opSpan          // buckets of span i, added with the op's sign
	opKnown         // subject i (EXISTS), or every subject (MGET)
)

type op struct {
	what, i, j int
	sign       int64
	cmd        redis.Cmder
}

// reader builds one read's pipeline: its commands, what each answers,
// and one slice that backs every command's arguments.
type reader struct {
	s    *Store
	ctx  context.Context
	pipe redis.Pipeliner
	// args backs every command's arguments, sized for a window's
	// consecutive starts. A command takes its arguments as a slice of args
	// once they are all appended, so an append that moves args (other
	// starts) copies them along, and the commands queued before keep the
	// array they were given, which nothing writes again.
	args []any
	ops  []op
	buf  []byte
	// expired: the month's buckets are past their retention (read as
	// none, as Redis has dropped its days).
	expired func(y int, m time.Month) bool
}

// Read answers a query with one pipeline: one HMGET per hash a series
// touches (fields are consecutive buckets); for a span, its whole months
// from the year hashes (one HMGET per year), the days of a month it covers
// in part from that month's hash (or, when fewer, the month's count less
// the days it leaves out), and one ZCOUNT per partial day at either end
// (exact to the microsecond); one MGET of the known marks asked (on a
// cluster one EXISTS per subject). Keys and fields are built from digits
// into one buffer: nothing per bucket but its answer.
func (s *Store) Read(ctx context.Context, q contactsport.Query) (contactsport.Answer, error) {
	out := contactsport.Answer{Series: make([][]int64, len(q.Series)), Spans: make([]int64, len(q.Spans)), Known: make([]bool, len(q.Known))}
	now := s.now().Unix()
	ttl := int64(s.retention / time.Second)
	r := &reader{s: s, ctx: ctx, pipe: s.rdb.Pipeline(), args: make([]any, 0, argsSize(q)), ops: make([]op, 0, 64), buf: make([]byte, 0, 128),
		expired: func(y int, m time.Month) bool { return monthExpiry(y, m, ttl) <= now }}
	for i, sr := range q.Series {
		out.Series[i] = make([]int64, len(sr.Starts))
		r.series(i, sr)
	}
	for i, sp := range q.Spans {
		r.span(i, sp)
	}
	r.known(q.Known)
	if len(r.ops) == 0 {
		return out, nil
	}
	if _, err := r.pipe.Exec(ctx); err != nil {
		return contactsport.Answer{}, fmt.Errorf("contactsredis: read: %w", redisstore.Translate(err))
	}
	return out, r.collect(&out)
}

// argsSize is the arguments a query's commands take at most: a field per
// start and a command name and key per hash (n consecutive days touch at
// most 2 + n/28 month hashes, n consecutive hours 2 + n/24 day hashes);
// per span two years' HMGETs and two months' days.
func argsSize(q contactsport.Query) int {
	size := 2 * len(q.Known)
	for _, sr := range q.Series {
		n, per := len(sr.Starts), 24
		if sr.Unit == contacts.Day {
			per = 28
		}
		size += n + 2*min(n, 2+n/per)
	}
	return size + len(q.Spans)*2*(2+12+2+31)
}

// hmget queues an HMGET of the arguments appended since from (name, key,
// fields), answering what, i, j with sign.
func (r *reader) hmget(from, what, i, j int, sign int64) {
	cmd := redis.NewSliceCmd(r.ctx, r.args[from:len(r.args):len(r.args)]...)
	_ = r.pipe.Process(r.ctx, cmd) // a pipeline only queues: errors come from Exec
	r.ops = append(r.ops, op{what: what, i: i, j: j, sign: sign, cmd: cmd})
}

// series queues HMGETs of consecutive starts, one per hash.
func (r *reader) series(i int, sr contactsport.Series) {
	r.buf = r.s.appendBase(r.buf[:0], sr.Kind, sr.Subject)
	base := len(r.buf)
	prevY, prevM, prevD := -1, time.Month(0), -1
	first, from := 0, 0
	for j, t := range sr.Starts {
		t = t.UTC()
		y, m, d := t.Date()
		if y != prevY || m != prevM || sr.Unit == contacts.Hour && d != prevD {
			if j > 0 {
				r.hmget(from, opSeries, i, first, 1)
			}
			if sr.Unit == contacts.Day {
				r.buf = appendMonth(append(r.buf[:base], monthHash...), y, m)
			} else {
				r.buf = appendDay(append(r.buf[:base], dayHash...), y, m, d)
			}
			from = len(r.args)
			r.args = append(r.args, "hmget", string(r.buf))
			prevY, prevM, prevD, first = y, m, d, j
		}
		if sr.Unit == contacts.Day {
			r.args = append(r.args, dayFieldArgs[d])
		} else {
			r.args = append(r.args, hourFieldArgs[t.Hour()])
		}
	}
	if len(sr.Starts) > 0 {
		r.hmget(from, opSeries, i, first, 1)
	}
}

// span queues what counts span i: its whole UTC days month by month (a
// whole month from its year's hash, a part of one from its month's hash),
// then a ZCOUNT of each partial day at its ends.
func (r *reader) span(i int, sp contactsport.Span) {
	whole, edges := sp.Range.Split()
	var years []yearMonths // the whole months to read, by year
	to := whole.To.UTC()
	for t := whole.From.UTC(); t.Before(to); {
		y, m, d := t.Date()
		next := time.Date(y, m+1, 1, 0, 0, 0, 0, time.UTC)
		end := next
		if to.Before(next) {
			end = to
		}
		if !r.expired(y, m) {
			last := end.Add(-time.Hour).Day()
			if d == 1 && end.Equal(next) || r.part(i, sp, y, m, d, last) {
				years = addMonth(years, y, m)
			}
		}
		t = end
	}
	r.buf = r.s.appendBase(r.buf[:0], sp.Kind, sp.Subject)
	base := len(r.buf)
	for _, ym := range years {
		from := len(r.args)
		r.args = append(r.args, "hmget", string(appendYear(append(r.buf[:base], yearHash...), ym.y)))
		for _, m := range ym.months {
			r.args = append(r.args, dayFieldArgs[m])
		}
		r.hmget(from, opSpan, i, 0, 1)
	}
	for _, e := range edges {
		y, m, d := e.From.UTC().Date()
		if r.expired(y, m) {
			continue
		}
		r.buf = appendDay(append(r.s.appendBase(r.buf[:0], sp.Kind, sp.Subject), dayEvents...), y, m, d)
		cmd := redis.NewIntCmd(r.ctx, "zcount", string(r.buf), e.From.UnixMicro(), "("+strconv.FormatInt(e.To.UnixMicro(), 10))
		_ = r.pipe.Process(r.ctx, cmd)
		r.ops = append(r.ops, op{what: opSpan, i: i, sign: 1, cmd: cmd})
	}
}

// part queues the days first..last of month m of year y (a part of the
// month) from its hash, or, when the days it leaves out are fewer, those
// days to subtract: then it answers true, and the month's count is to be
// read from its year's hash.
func (r *reader) part(i int, sp contactsport.Span, y int, m time.Month, first, last int) bool {
	days := time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
	inside := last - first + 1
	complement := 1+days-inside < inside
	r.buf = appendMonth(append(r.s.appendBase(r.buf[:0], sp.Kind, sp.Subject), monthHash...), y, m)
	from := len(r.args)
	r.args = append(r.args, "hmget", string(r.buf))
	sign := int64(1)
	if complement {
		sign = -1
		for d := 1; d <= days; d++ {
			if d < first || d > last {
				r.args = append(r.args, dayFieldArgs[d])
			}
		}
	} else {
		for d := first; d <= last; d++ {
			r.args = append(r.args, dayFieldArgs[d])
		}
	}
	r.hmget(from, opSpan, i, 0, sign)
	return complement
}

// yearMonths are the months of one year a span reads from its hash.
type yearMonths struct {
	y      int
	months []time.Month
}

func addMonth(years []yearMonths, y int, m time.Month) []yearMonths {
	if n := len(years); n > 0 && years[n-1].y == y {
		years[n-1].months = append(years[n-1].months, m)
		return years
	}
	return append(years, yearMonths{y: y, months: []time.Month{m}})
}

// known queues the check of the subjects' known marks: one MGET of every
// mark (a cluster keeps them in as many slots as subjects, so there each
// has its EXISTS).
func (r *reader) known(subs []contacts.Subject) {
	if len(subs) > 1 && !r.s.cluster {
		mget := make([]any, 1, 1+len(subs))
		mget[0] = "mget"
		for _, sub := range subs {
			mget = append(mget, string(append(r.s.appendSubject(r.buf[:0], sub), known...)))
		}
		cmd := redis.NewSliceCmd(r.ctx, mget...)
		_ = r.pipe.Process(r.ctx, cmd)
		r.ops = append(r.ops, op{what: opKnown, cmd: cmd})
		return
	}
	for i, sub := range subs {
		r.buf = append(r.s.appendSubject(r.buf[:0], sub), known...)
		cmd := redis.NewIntCmd(r.ctx, "exists", string(r.buf))
		_ = r.pipe.Process(r.ctx, cmd)
		r.ops = append(r.ops, op{what: opKnown, i: i, cmd: cmd})
	}
}

// collect reads the answers into out.
func (r *reader) collect(out *contactsport.Answer) error {
	for _, o := range r.ops {
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
					return fmt.Errorf("contactsredis: bucket %v holds %q", c.Args()[1], str)
				}
				if o.what == opSeries {
					out.Series[o.i][o.j+j] = n
				} else {
					out.Spans[o.i] += o.sign * n
				}
			}
		case *redis.IntCmd:
			if o.what == opKnown {
				out.Known[o.i] = c.Val() > 0
			} else {
				out.Spans[o.i] += c.Val()
			}
		}
	}
	return nil
}
