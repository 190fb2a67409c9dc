package redisstore

import (
	"bufio"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
)

// CompactSize is the command log's length past which the embedded Redis
// writes a snapshot and starts an empty log: a start replays at most about
// this much.
const CompactSize = 64 << 20

// A replay takes about as long as its commands took to run (scripts that
// count a batch of events run again). The log is also compacted once its
// commands took longer than MinReplay and than writing a snapshot
// SnapshotsPerReplay times, so that a start replays for a bounded time
// while snapshots take a bounded share of the writes' time.
const (
	MinReplay          = time.Second
	SnapshotsPerReplay = 4
)

// durable is the embedded Redis of a DATA_DIR. Every command that may
// change data (or the meaning of a connection's later commands: SELECT,
// MULTI, WATCH ...) goes through hook, which appends it to the command log
// and runs it under mu, so that the log's order is the order they ran in;
// every answer leaves through a durableConn, which holds it until the log
// holds every command it may have seen. At start the snapshot is loaded and
// the log replayed, each command on a peer of its own connection, at the
// time it first ran.
type durable struct {
	m        *miniredis.Miniredis
	srv      *server.Server
	password string
	dir      string
	log      *slog.Logger
	ln       net.Listener
	accepted sync.WaitGroup

	mu         sync.Mutex // one logged command at a time; the fields below
	cmds       *groupLog
	epoch      uint64            // the snapshot the log continues
	scripts    map[string]string // the scripts loaded (sha1 → source), which the next log loads first
	compactAt  int64             // the log's length that starts a compaction
	every      int64             // CompactSize, or less in tests
	replayCost time.Duration     // how long the commands of the log took to run
	snapCost   time.Duration     // how long the last snapshot took to write (or to read, at start)
	closed     bool

	conns  sync.Map // *server.Peer → *connState
	nextID atomic.Uint64
	kinds  sync.Map // command name → kind
}

// connState is what the log needs of a client connection. Only the
// connection's goroutine changes it, under durable.mu for the fields a
// compaction reads.
type connState struct {
	id          uint64
	authed      bool // it sent the password (its commands run)
	dispatching bool // the hook runs its command: the nested call passes
	multi       bool // between MULTI and EXEC or DISCARD
	watching    bool
	db          int
	dbUnknown   bool // SELECT inside MULTI: known again at the next SELECT
}

// kind is what the log does with a command.
type kind int

const (
	kindRead    kind = iota // read-only: runs as is (logged inside MULTI, where it may abort EXEC)
	kindWrite               // logged, then run
	kindConn                // changes no data: runs as is (AUTH and HELLO carry the password)
	kindRefused             // could not be replayed as it ran: answered an error
)

var unlogged = map[string]bool{"AUTH": true, "HELLO": true, "CLIENT": true, "QUIT": true, "PING": true, "ECHO": true,
	"SUBSCRIBE": true, "UNSUBSCRIBE": true, "PSUBSCRIBE": true, "PUNSUBSCRIBE": true, "PUBLISH": true, "PUBSUB": true,
	"INFO": true, "TIME": true, "COMMAND": true, "MEMORY": true, "OBJECT": true, "CLUSTER": true, "WAIT": true}

// refused are writes that block (holding the log's lock while waiting for
// another write would stop every write) or pick at random (a replay would
// pick otherwise). Neither asynq nor feria sends them.
var refused = map[string]bool{"BLPOP": true, "BRPOP": true, "BRPOPLPUSH": true, "BLMOVE": true, "BLMPOP": true,
	"BZPOPMIN": true, "BZPOPMAX": true, "BZMPOP": true, "SPOP": true}

func (d *durable) kind(cmd string, args []string) kind {
	if cmd == "XREADGROUP" {
		for _, a := range args {
			if strings.EqualFold(a, "BLOCK") {
				return kindRefused
			}
		}
	}
	if k, ok := d.kinds.Load(cmd); ok {
		return k.(kind)
	}
	var k kind
	switch {
	case !d.srv.IsRegisteredCommand(cmd):
		return kindConn // answered "unknown command"; not remembered, the names are the client's
	case unlogged[cmd]:
		k = kindConn
	case refused[cmd]:
		k = kindRefused
	case d.srv.IsReadOnlyCommand(cmd):
		k = kindRead
	default:
		k = kindWrite
	}
	d.kinds.Store(cmd, k)
	return k
}

// hook runs before every command miniredis is given; true means it has
// run the command (or answered it) itself.
func (d *durable) hook(c *server.Peer, cmd string, args ...string) bool {
	v, ok := d.conns.Load(c)
	if !ok {
		if c.Ctx != nil {
			return false // a script's redis.call, run inside its EVAL
		}
		st := &connState{id: d.nextID.Add(1)}
		d.conns.Store(c, st)
		c.OnDisconnect(func() { d.conns.Delete(c) })
		v = st
	}
	st := v.(*connState)
	if st.dispatching {
		return false
	}
	if !st.authed {
		switch cmd {
		case "AUTH", "HELLO":
			st.authed = d.authenticates(cmd, args)
			return false
		case "QUIT":
			return false
		}
		// Only what the log records as authenticated may run, so that a
		// refused command is never replayed (a replay needs no password).
		c.WriteError("NOAUTH Authentication required.")
		return true
	}
	switch d.kind(cmd, args) {
	case kindConn:
		return false
	case kindRead:
		if !st.multi {
			return false
		}
	case kindRefused:
		c.WriteError(fmt.Sprintf("ERR the embedded Redis does not run %s: its command log could not replay it as it ran", cmd))
		return true
	}
	d.run(c, st, append([]string{cmd}, args...))
	return true
}

// authenticates tells whether AUTH or HELLO with args authenticates with
// the password, as miniredis decides it; a form it does not recognise
// counts as not authenticating (the client is then answered NOAUTH).
func (d *durable) authenticates(cmd string, args []string) bool {
	user, pw := "", ""
	switch cmd {
	case "AUTH":
		switch len(args) {
		case 1:
			user, pw = "default", args[0]
		case 2:
			user, pw = args[0], args[1]
		default:
			return false
		}
	case "HELLO":
		if len(args) == 0 {
			return false
		}
		if v, err := strconv.Atoi(args[0]); err != nil || (v != 2 && v != 3) {
			return false
		}
		for a := args[1:]; len(a) > 0; {
			switch strings.ToUpper(a[0]) {
			case "AUTH":
				if len(a) < 3 {
					return false
				}
				user, pw, a = a[1], a[2], a[3:]
			case "SETNAME":
				if len(a) < 2 {
					return false
				}
				a = a[2:]
			default:
				return false
			}
		}
	}
	return user == "default" && subtle.ConstantTimeCompare([]byte(pw), []byte(d.password)) == 1
}

// run logs and runs one command of c.
func (d *durable) run(c *server.Peer, st *connState, args []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		c.WriteError("ERR the embedded Redis is stopping")
		return
	}
	at := time.Now()
	if _, err := d.cmds.append(logRecord{Conn: st.id, At: at, Args: args}); err != nil {
		c.WriteError("ERR " + err.Error())
		return
	}
	st.note(args)
	d.noteScript(args)
	// The command's time is the logged one, so that TIME in a script,
	// EXPIREAT and stream ids come out the same in a replay.
	d.m.SetTime(at)
	st.dispatching = true
	d.srv.Dispatch(c, args)
	st.dispatching = false
	d.m.SetTime(time.Time{})
	d.replayCost += time.Since(at)
	if d.due() && d.quiet() {
		if err := d.compact(); err != nil {
			d.warn("embedded redis: compacting the command log failed; it goes on growing", err)
			d.compactAt, d.replayCost = d.cmds.length()+d.every, 0
		}
	}
}

// due tells whether the log is long enough, or slow enough to replay, to
// be compacted.
func (d *durable) due() bool {
	return d.cmds.length() >= d.compactAt || d.replayCost >= max(MinReplay, SnapshotsPerReplay*d.snapCost)
}

// note follows what a logged command does to the connection's state.
func (st *connState) note(args []string) {
	switch args[0] {
	case "MULTI":
		st.multi = true
	case "EXEC", "DISCARD":
		if st.multi {
			st.multi, st.watching = false, false
		}
	case "WATCH":
		if !st.multi {
			st.watching = true
		}
	case "UNWATCH":
		if !st.multi {
			st.watching = false
		}
	case "SELECT":
		if st.multi {
			st.dbUnknown = true
		} else if len(args) == 2 {
			if n, err := strconv.Atoi(args[1]); err == nil && n >= 0 {
				st.db, st.dbUnknown = n, false
			}
		}
	}
}

// noteScript remembers the scripts loaded, which a new log loads first
// (the snapshot holds data only) so that its EVALSHAs replay.
func (d *durable) noteScript(args []string) {
	switch {
	case args[0] == "EVAL" && len(args) > 1:
		d.scripts[sha1Hex(args[1])] = args[1]
	case args[0] == "SCRIPT" && len(args) == 3 && strings.EqualFold(args[1], "LOAD"):
		d.scripts[sha1Hex(args[2])] = args[2]
	case args[0] == "SCRIPT" && len(args) >= 2 && strings.EqualFold(args[1], "FLUSH"):
		clear(d.scripts)
	}
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

// quiet tells whether no connection is inside a transaction or watching
// keys, whose commands a new log could not replay from its start.
func (d *durable) quiet() bool {
	quiet := true
	d.conns.Range(func(_, v any) bool {
		st := v.(*connState)
		quiet = !st.multi && !st.watching && !st.dbUnknown
		return quiet
	})
	return quiet
}

// compact writes a snapshot of everything logged, then starts an empty
// log that continues it. A crash between the two leaves a log older than
// the snapshot, which the next start ignores. Called under mu.
func (d *durable) compact() error {
	if err := d.cmds.flush(); err != nil {
		return err
	}
	epoch := d.epoch + 1
	start := time.Now()
	if err := save(d.m, filepath.Join(d.dir, SnapshotFile), epoch); err != nil {
		return err
	}
	d.epoch, d.snapCost = epoch, time.Since(start)
	now := time.Now()
	var pre []logRecord
	shas := make([]string, 0, len(d.scripts))
	for sha := range d.scripts {
		shas = append(shas, sha)
	}
	sort.Strings(shas)
	for _, sha := range shas {
		pre = append(pre, logRecord{At: now, Args: []string{"SCRIPT", "LOAD", d.scripts[sha]}})
	}
	d.conns.Range(func(_, v any) bool {
		if st := v.(*connState); st.db != 0 && !d.closed {
			pre = append(pre, logRecord{Conn: st.id, At: now, Args: []string{"SELECT", strconv.Itoa(st.db)}})
		}
		return true
	})
	f, size, err := createLog(filepath.Join(d.dir, LogFile), epoch, pre)
	if err != nil {
		// The log on disk is older than the snapshot now: nothing more
		// may be acknowledged through it.
		err = fmt.Errorf("starting a new command log: %w", err)
		d.cmds.fail(err)
		return err
	}
	d.cmds.replace(f, size)
	d.compactAt, d.replayCost = size+d.every, 0
	return nil
}

func (d *durable) warn(msg string, err error) {
	if d.log != nil {
		d.log.Warn(msg, slog.String("dir", d.dir), slog.Any("err", err))
	}
}

// openDurable loads dir's snapshot, replays its log and serves m on a
// loopback port behind password.
// The log is compacted each time it grows by every bytes.
func openDurable(m *miniredis.Miniredis, dir, password string, every int64, log *slog.Logger) (*durable, error) {
	// A server without a listener: its commands are registered, and the
	// replay runs before anyone can connect or must authenticate.
	pipe, err := m.Dial()
	if err != nil {
		return nil, err
	}
	pipe.Close()
	d := &durable{m: m, srv: m.Server(), password: password, dir: dir, log: log, every: every, scripts: map[string]string{}}
	snapPath, logPath := filepath.Join(dir, SnapshotFile), filepath.Join(dir, LogFile)
	start := time.Now()
	if d.epoch, err = load(m, snapPath); err != nil {
		return nil, fmt.Errorf("%s: %w", snapPath, err)
	}
	d.snapCost = time.Since(start)
	good, state, replayed, err := d.replay(logPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (the snapshot %s and the log hold the data: keep both to investigate, remove both to start empty)",
			logPath, err, SnapshotFile)
	}
	f, size, err := d.reopenLog(logPath, state, good, replayed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", logPath, err)
	}
	d.cmds = newGroupLog(f, size, func(err error) {
		if log != nil {
			log.Error("embedded redis: its command log cannot be written: no write is acknowledged any more; stop feria, make room or fix the disk, and start it again",
				slog.String("path", logPath), slog.Any("err", err))
		}
	})
	d.compactAt = size + every
	m.RequireAuth(password)
	d.srv.SetPreHook(d.hook)
	if d.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		d.cmds.close()
		m.Close()
		return nil, err
	}
	d.accepted.Add(1)
	go d.accept()
	return d, nil
}

// replay runs the log's records of the snapshot's epoch, each as its
// connection at its time, and sets the next connection id past theirs. It
// returns the length of the log's good part and the log's state.
func (d *durable) replay(logPath string) (good int64, state logState, replayed int, err error) {
	start := time.Now()
	peers := map[uint64]*server.Peer{}
	var maxID uint64
	good, state, err = readLog(logPath, d.epoch, func(r logRecord) error {
		p := peers[r.Conn]
		if p == nil {
			p = server.NewPeer(bufio.NewWriter(io.Discard))
			peers[r.Conn] = p
		}
		maxID = max(maxID, r.Conn)
		d.noteScript(r.Args)
		d.m.SetTime(r.At)
		d.srv.Dispatch(p, r.Args)
		replayed++
		return nil
	})
	d.m.SetTime(time.Time{})
	d.replayCost = time.Since(start)
	d.nextID.Store(maxID)
	return good, state, replayed, err
}

// reopenLog opens the log to append after its good part (a record cut
// short by a crash is dropped), or starts a new one where there is none of
// the snapshot's epoch; it returns the file and its size.
func (d *durable) reopenLog(logPath string, state logState, good int64, replayed int) (*os.File, int64, error) {
	if state != logCurrent { // none yet, or one the snapshot already holds
		return createLog(logPath, d.epoch, nil)
	}
	if fi, err := os.Stat(logPath); err == nil && fi.Size() > good && d.log != nil {
		// Never acknowledged: its answer waited for this write.
		d.log.Warn("embedded redis: the command log's last record was cut short by a crash; it is dropped",
			slog.String("path", logPath), slog.Int64("bytes", fi.Size()-good))
	}
	f, err := openLog(logPath, good)
	if err != nil {
		return nil, 0, err
	}
	if d.log != nil {
		d.log.Info("embedded redis: command log replayed", slog.String("path", logPath), slog.Int("commands", replayed),
			slog.Duration("took", d.replayCost))
	}
	return f, good, nil
}

func (d *durable) accept() {
	defer d.accepted.Done()
	for {
		conn, err := d.ln.Accept()
		if err != nil {
			return
		}
		d.srv.ServeConn(&durableConn{Conn: conn, log: d.cmds, closed: make(chan struct{})})
	}
}

// addr is the loopback address clients connect to.
func (d *durable) addr() string { return d.ln.Addr().String() }

// stop writes a snapshot and an empty log (the next start replays
// nothing), then closes everything; a command arriving meanwhile is
// refused.
func (d *durable) stop() {
	d.mu.Lock()
	d.closed = true // no connection is served after it
	if err := d.compact(); err != nil {
		d.warn("embedded redis: snapshot at stop failed; the command log keeps the data", err)
	}
	d.mu.Unlock()
	d.ln.Close()
	d.accepted.Wait()
	d.m.Close()
	if err := d.cmds.close(); err != nil {
		d.warn("embedded redis: closing the command log", err)
	}
}

// durableConn is a client connection whose answers leave only once the log
// holds every command they may depend on: the batch of the last command
// appended when the answer was written (a later command's batch never
// comes before it). An answer that may leave at once does; others queue,
// in order, for a goroutine that sends them as their batches reach the
// disk, so that a pipeline's commands are logged together and answered
// after one fsync.
type durableConn struct {
	net.Conn
	log *groupLog

	mu      sync.Mutex
	queue   []pendingWrite
	sending bool
	closed  chan struct{}
	once    sync.Once
}

type pendingWrite struct {
	p []byte
	b *batch
}

func (c *durableConn) Write(p []byte) (int, error) {
	b := c.log.last.Load()
	c.mu.Lock()
	if len(c.queue) == 0 && (b == nil || b.durable() && b.err == nil) {
		c.mu.Unlock()
		return c.Conn.Write(p)
	}
	c.queue = append(c.queue, pendingWrite{p: append([]byte(nil), p...), b: b})
	if !c.sending {
		c.sending = true
		go c.send()
	}
	c.mu.Unlock()
	return len(p), nil
}

// send writes the queued answers out as their batches become durable; a
// batch that failed closes the connection, its answers unsent.
func (c *durableConn) send() {
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.sending = false
			c.mu.Unlock()
			return
		}
		w := c.queue[0]
		c.mu.Unlock()
		select {
		case <-w.b.done:
		case <-c.closed:
			return
		}
		if w.b.err != nil {
			c.Close()
			return
		}
		// Every answer queued behind it whose batch is durable too goes
		// in the same write.
		c.mu.Lock()
		n := 0
		bufs := make(net.Buffers, 0, len(c.queue))
		for _, q := range c.queue {
			if !q.b.durable() || q.b.err != nil {
				break
			}
			bufs = append(bufs, q.p)
			n++
		}
		c.mu.Unlock()
		_, err := bufs.WriteTo(c.Conn)
		c.mu.Lock()
		clear(c.queue[:n])
		c.queue = c.queue[n:]
		if err != nil {
			c.queue, c.sending = nil, false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
}

func (c *durableConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}
