package redisstore

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// Staleness bounds how long a process trusts what it holds of a shared
// state without reading it again. Changes are pushed to every process (a
// notice, which each acknowledges before the change's call returns), so
// the bound only matters when a notice is lost without the subscription
// noticing (a connection silently gone).
const Staleness = time.Second

// Holder is a process's copy of a shared state, told of its changes.
type Holder interface {
	// Changed drops what is held: another process changed the state.
	Changed()
	// Live records the subscription's state: while it is down, nothing
	// may be held; when it comes back, notices may have been missed.
	Live(up bool)
}

// Notices is the subscription of one Holder to the notices of changes of
// its state: a notice from another process drops what the holder holds,
// and is acknowledged on the acks channel; a process's own change waits
// for the acknowledgements of every process the notice reached (Announce),
// so that when it returns no process serves a request from the old state.
type Notices struct {
	rdb         redis.UniversalClient
	h           Holder
	ps          *redis.PubSub
	self        string // this process's name in the notices
	notes, acks string // the channels
	sharded     bool
	stop        context.CancelFunc
	ended       chan struct{}

	mu      sync.Mutex
	waiting map[string]chan struct{} // a change's id → its acknowledgements
}

// Subscribe subscribes h to the notices of changes of the state named
// name (with a hash tag, "prefix{rules}") and returns once the
// subscription is answered, or failed (h is then told Live(false) until it
// comes up).
func Subscribe(rdb redis.UniversalClient, name string, h Holder) *Notices {
	ctx, stop := context.WithCancel(context.Background())
	// Channels are the server's, not a database's: the database's number
	// keeps apart the services that share a server.
	db := 0
	if c, ok := rdb.(*redis.Client); ok {
		db = c.Options().DB
	}
	ch := name + ":" + strconv.Itoa(db) + ":"
	n := &Notices{rdb: rdb, h: h, self: uuid.NewString(), notes: ch + "changes", acks: ch + "acks",
		stop: stop, ended: make(chan struct{}), waiting: map[string]chan struct{}{}}
	// On a cluster the sharded channels of the name's slot: a plain
	// PUBLISH goes to any node and counts that node's subscribers only,
	// while every process's SSUBSCRIBE and the SPUBLISH meet on one.
	if _, n.sharded = rdb.(*redis.ClusterClient); n.sharded {
		n.ps = rdb.SSubscribe(ctx, n.notes, n.acks)
	} else {
		n.ps = rdb.Subscribe(ctx, n.notes, n.acks)
	}
	first := make(chan struct{})
	go n.run(ctx, first)
	select {
	case <-first:
	case <-time.After(Staleness):
	}
	return n
}

// run receives the notices until Close; a failed receive marks the
// subscription down (go-redis subscribes again on the next receive, and
// the confirmation marks it up: a notice missed meanwhile is covered by
// the holder dropping what it held).
func (n *Notices) run(ctx context.Context, first chan struct{}) {
	defer close(n.ended)
	once := sync.OnceFunc(func() { close(first) })
	for {
		msg, err := n.ps.Receive(ctx)
		if ctx.Err() != nil {
			once()
			return
		}
		if err != nil {
			n.h.Live(false)
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
			if (m.Kind == "subscribe" || m.Kind == "ssubscribe") && m.Channel == n.acks {
				n.h.Live(true) // both channels are subscribed
				once()
			}
		case *redis.Message:
			n.received(ctx, m)
		}
	}
}

// received handles a notice ("process id": a change of that process's,
// whose id is acknowledged) or an acknowledgement (a change's id).
func (n *Notices) received(ctx context.Context, m *redis.Message) {
	if m.Channel == n.acks {
		n.mu.Lock()
		if c, ok := n.waiting[m.Payload]; ok {
			select {
			case c <- struct{}{}:
			default:
			}
		}
		n.mu.Unlock()
		return
	}
	from, id, _ := strings.Cut(m.Payload, " ")
	if from == n.self {
		// The change was this process's: its holder dropped its copy already.
		n.ack(id)
		return
	}
	n.h.Changed()
	n.publish(ctx, n.acks, id) // unacknowledged, the change waits its bound
}

func (n *Notices) publish(ctx context.Context, channel, msg string) *redis.IntCmd {
	if n.sharded {
		return n.rdb.SPublish(ctx, channel, msg)
	}
	return n.rdb.Publish(ctx, channel, msg)
}

// ack counts an acknowledgement of a change of this process's.
func (n *Notices) ack(id string) {
	n.received(context.Background(), &redis.Message{Channel: n.acks, Payload: id})
}

// Announce tells every process of a change this process made (its own
// holder dropped its copy before) and returns once each process the
// notice reached acknowledged it (at most Staleness, when one does not:
// by then its copy is read again anyway). A notice that cannot be sent is
// not an error: the change is made, and the others see it within
// Staleness.
func (n *Notices) Announce(ctx context.Context) {
	id := uuid.NewString()
	acks := make(chan struct{}, 1024)
	n.mu.Lock()
	n.waiting[id] = acks
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		delete(n.waiting, id)
		n.mu.Unlock()
	}()
	count, err := n.publish(ctx, n.notes, n.self+" "+id).Result()
	if err != nil {
		return
	}
	timeout := time.NewTimer(Staleness)
	defer timeout.Stop()
	for ; count > 0; count-- {
		select {
		case <-acks:
		case <-timeout.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Close ends the subscription.
func (n *Notices) Close() {
	n.stop()
	n.ps.Close() //nolint:errcheck // closing
	<-n.ended
}
