package accountdb

import (
	"context"
	"sync"
	"time"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/account"
)

// Announcer tells every other process that the tokens or users changed,
// returning once each has dropped what it held (or a bound passed).
type Announcer interface {
	Announce(ctx context.Context)
}

// heldFor bounds how long a token read is trusted without reading it
// again: a change is announced to every process, so this matters only
// when a notice is lost without the subscription noticing.
const heldFor = time.Second

// maxHeld bounds the tokens held; past it they are all dropped and read
// again as they are used.
const maxHeld = 50_000

// Held is the tokens one process resolved, with their users' sites, kept
// so that an authenticated request reads none while nothing changed: a
// process that writes a token or a user drops its own copy once the write
// committed and announces the change to the others, which drop theirs
// before the write's call returns. While the notices cannot reach the
// process (Live(false)) nothing is held.
type Held struct {
	mu      sync.Mutex
	gen     uint64 // counts the drops: a read begun before one is not kept
	live    bool
	tokens  map[string]heldToken
	notices Announcer
}

type heldToken struct {
	token account.Token
	site  string
	read  time.Time
}

// NewHeld returns an empty Held, holding nothing until Tell gives it its
// notices and they report Live(true).
func NewHeld() *Held { return &Held{tokens: map[string]heldToken{}} }

// Tell sets what announces this process's changes to the others.
func (h *Held) Tell(a Announcer) { h.notices = a }

// Changed drops every token held: another process changed tokens or users.
func (h *Held) Changed() {
	h.mu.Lock()
	h.dropLocked()
	h.mu.Unlock()
}

// Live records whether the notices reach this process; either way what is
// held is dropped (notices may have been missed while they did not).
func (h *Held) Live(up bool) {
	h.mu.Lock()
	h.live = up
	h.dropLocked()
	h.mu.Unlock()
}

func (h *Held) dropLocked() {
	h.gen++
	clear(h.tokens)
}

// Reset drops every token held here and in every other process: the
// sandbox's reset, after its tables were emptied.
func (h *Held) Reset(ctx context.Context) error {
	h.wrote(ctx)
	return nil
}

// wrote follows a committed change of tokens or users made here.
func (h *Held) wrote(ctx context.Context) {
	h.mu.Lock()
	h.dropLocked()
	live := h.live
	h.mu.Unlock()
	if live && h.notices != nil {
		h.notices.Announce(ctx)
	}
}

// get returns the token held for hash, if read less than heldFor ago;
// else the generation a read begun now must find unchanged to be kept,
// and whether it may be kept at all.
func (h *Held) get(hash string) (t heldToken, found bool, gen uint64, keep bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.live {
		return t, false, 0, false
	}
	t, found = h.tokens[hash]
	if found && time.Since(t.read) < heldFor {
		return t, true, 0, false
	}
	return heldToken{}, false, h.gen, true
}

// put keeps a token read at generation gen, unless something was dropped
// since: the read may have seen rows that a change has replaced.
func (h *Held) put(gen uint64, hash string, t heldToken) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.live || h.gen != gen {
		return
	}
	if len(h.tokens) >= maxHeld {
		clear(h.tokens)
	}
	h.tokens[hash] = t
}

// Holding returns a store that keeps the tokens it resolves outside a
// transaction in h, and drops them in h (and every process) after each
// write of a token or a user commits.
func (s *Store) Holding(h *Held) *Store { return &Store{db: s.db, held: h} }

// changed drops the tokens held once the write ctx carries commits.
func (s *Store) changed(ctx context.Context) {
	if s.held != nil {
		sqlstore.AfterCommit(ctx, func() { s.held.wrote(context.WithoutCancel(ctx)) })
	}
}
