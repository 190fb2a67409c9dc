package controlredis

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Staleness bounds how long a process trusts the rules it holds without
// reading their version: the rules are cached, and a change made anywhere
// is pushed to every process (a notice on the rules' channel, which each
// acknowledges before the change's call returns), so this bound only
// matters when a notice is lost without the subscription noticing (a
// connection silently gone). While the subscription is down a process
// reads the version on every request, as it would without it.
const Staleness = time.Second

// watch is the subscription of one Rules to the notices of changes: a
// notice from another process makes the next request read the rules
// again, and is acknowledged on the acks channel; a process's own change
// waits for the acknowledgements of every process the notice reached, so
// that when it returns no process serves a request with the old rules.
type watch struct {
	r           *Rules
	ps          *redis.PubSub
	self        string // this process's name in the notices
	notes, acks string // the channels
	sharded     bool
	stop        context.CancelFunc
	ended       chan struct{}

	mu      sync.Mutex
	waiting map[string]chan struct{} // a change's id → its acknowledgements
}

// watchRules subscribes r to the notices of changes and returns once the
// subscription is answered (or failed: requests read the version until it
// comes up).
func watchRules(r *Rules, prefix string) *watch {
	ctx, stop := context.WithCancel(context.Background())
	// Channels are the server's, not a database's: the database's number
	// keeps apart the services that share a server.
	db := 0
	if c, ok := r.rdb.(*redis.Client); ok {
		db = c.Options().DB
	}
	ch := prefix + "{rules}:" + strconv.Itoa(db) + ":"
	w := &watch{r: r, self: uuid.NewString(), notes: ch + "changes", acks: ch + "acks",
		stop: stop, ended: make(chan struct{}), waiting: map[string]chan struct{}{}}
	// On a cluster the sharded channels of the rules' slot: a plain
	// PUBLISH goes to any node and counts that node's subscribers only,
	// while every process's SSUBSCRIBE and the SPUBLISH meet on one.
	if _, w.sharded = r.rdb.(*redis.ClusterClient); w.sharded {
		w.ps = r.rdb.SSubscribe(ctx, w.notes, w.acks)
	} else {
		w.ps = r.rdb.Subscribe(ctx, w.notes, w.acks)
	}
	first := make(chan struct{})
	go w.run(ctx, first)
	select {
	case <-first:
	case <-time.After(Staleness):
	}
	return w
}

// run receives the notices until close; a failed receive marks the
// subscription down (go-redis subscribes again on the next receive, and
// the confirmation marks it up: a notice missed meanwhile is covered by
// reading the rules again).
func (w *watch) run(ctx context.Context, first chan struct{}) {
	defer close(w.ended)
	once := sync.OnceFunc(func() { close(first) })
	for {
		msg, err := w.ps.Receive(ctx)
		if ctx.Err() != nil {
			once()
			return
		}
		if err != nil {
			w.r.setLive(false)
			once()
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if (m.Kind == "subscribe" || m.Kind == "ssubscribe") && m.Channel == w.acks {
				w.r.setLive(true) // both channels are subscribed
				once()
			}
		case *redis.Message:
			w.received(ctx, m)
		}
	}
}

// received handles a notice ("process id": a change of that process's,
// whose id is acknowledged) or an acknowledgement (a change's id).
func (w *watch) received(ctx context.Context, m *redis.Message) {
	if m.Channel == w.acks {
		w.mu.Lock()
		if c, ok := w.waiting[m.Payload]; ok {
			select {
			case c <- struct{}{}:
			default:
			}
		}
		w.mu.Unlock()
		return
	}
	from, id, _ := strings.Cut(m.Payload, " ")
	if from == w.self {
		// The change was this process's: its rules were dropped already.
		w.ack(id)
		return
	}
	w.r.changed()
	w.publish(ctx, w.acks, id) // unacknowledged, the change waits its bound
}

func (w *watch) publish(ctx context.Context, channel, msg string) *redis.IntCmd {
	if w.sharded {
		return w.r.rdb.SPublish(ctx, channel, msg)
	}
	return w.r.rdb.Publish(ctx, channel, msg)
}

// ack counts an acknowledgement of a change of this process's.
func (w *watch) ack(id string) {
	w.received(context.Background(), &redis.Message{Channel: w.acks, Payload: id})
}

// announce tells every process of a change this process made and returns
// once each process the notice reached acknowledged it (at
// most Staleness, when one does not: by then its rules are re-read
// anyway). A notice that cannot be sent is not an error: the change is
// made, and the others see it within Staleness.
func (w *watch) announce(ctx context.Context) {
	id := uuid.NewString()
	acks := make(chan struct{}, 1024)
	w.mu.Lock()
	w.waiting[id] = acks
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.waiting, id)
		w.mu.Unlock()
	}()
	n, err := w.publish(ctx, w.notes, w.self+" "+id).Result()
	if err != nil {
		return
	}
	timeout := time.NewTimer(Staleness)
	defer timeout.Stop()
	for ; n > 0; n-- {
		select {
		case <-acks:
		case <-timeout.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (w *watch) close() {
	w.stop()
	w.ps.Close() //nolint:errcheck // closing
	<-w.ended
}
