package compatporttest

import (
	"context"
	"encoding/json"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/outboxport"
)

// Memory is an in-memory compatport.Store, kernel.Tx and outbox (its
// Seed method is the Seeder), for the use-case unit tests of compatsvc. TestStore runs against
// it too, so that it behaves as the SQL adapters do. A transaction that
// fails rolls back every change, outbox messages included.
type Memory struct {
	mu   sync.Mutex
	txMu sync.Mutex // transactions run one at a time, which is what LockItem asks
	w    memRows
}

var (
	_ compatport.Store  = (*Memory)(nil)
	_ kernel.Tx         = (*Memory)(nil)
	_ outboxport.Outbox = (*Memory)(nil)
	_ Seeder            = memSeeder{}
)

type memOrder struct {
	sellerID int64
	itemID   string
	hasClaim bool
}

type memCategory struct {
	siteID   string
	settings *compat.CategorySettings
}

// memRows is every row the fake holds; clone copies it for rollback.
type memRows struct {
	users      map[int64]bool
	categories map[string]memCategory
	domains    map[string]compat.Domain
	products   map[string]compat.Product
	attrs      map[string][]Attr
	items      map[string]compat.Item
	orders     map[int64]memOrder
	compats    []compat.Compatibility
	states     map[string]compat.State
	snapshots  map[int64]compat.Snapshot
	jobs       map[string]bool
	outbox     []outboxport.Message
}

func cloneMap[K comparable, V any](m map[K]V) map[K]V {
	out := make(map[K]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// clone copies the containers; stored values are never mutated in place.
func (w memRows) clone() memRows {
	return memRows{users: cloneMap(w.users), categories: cloneMap(w.categories), domains: cloneMap(w.domains),
		products: cloneMap(w.products), attrs: cloneMap(w.attrs), items: cloneMap(w.items), orders: cloneMap(w.orders),
		compats: append([]compat.Compatibility(nil), w.compats...), states: cloneMap(w.states),
		snapshots: cloneMap(w.snapshots), jobs: cloneMap(w.jobs), outbox: append([]outboxport.Message(nil), w.outbox...)}
}

// NewMemory returns an empty fake.
func NewMemory() *Memory {
	return &Memory{w: memRows{users: map[int64]bool{}, categories: map[string]memCategory{}, domains: map[string]compat.Domain{},
		products: map[string]compat.Product{}, attrs: map[string][]Attr{}, items: map[string]compat.Item{},
		orders: map[int64]memOrder{}, states: map[string]compat.State{}, snapshots: map[int64]compat.Snapshot{},
		jobs: map[string]bool{}}}
}

// Env is the fake as a contract-suite environment.
func (m *Memory) Env() Env { return Env{Store: m, Tx: m, Seed: m.Seed()} }

// Seed returns the Seeder that writes the fake's memRows rows.
func (m *Memory) Seed() Seeder { return memSeeder{m} }

// memSeeder is the fake's Seeder (its Item and Domain would clash with the
// Store's methods on Memory itself).
type memSeeder struct{ m *Memory }

type txKey struct{}

// RunInTx runs fn; when fn fails every change made meanwhile is undone.
// Nested calls join the outer transaction.
func (m *Memory) RunInTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if ctx.Value(txKey{}) != nil {
		return fn(ctx)
	}
	m.txMu.Lock()
	defer m.txMu.Unlock()
	m.mu.Lock()
	saved := m.w.clone()
	m.mu.Unlock()
	if err := fn(context.WithValue(ctx, txKey{}, true)); err != nil {
		m.mu.Lock()
		m.w = saved
		m.mu.Unlock()
		return err
	}
	return nil
}

// LockItem needs nothing more: the fake's transactions never interleave.
func (m *Memory) LockItem(context.Context, string) error { return nil }

// Add records an outbox message (in the caller's transaction).
func (m *Memory) Add(_ context.Context, msg outboxport.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.outbox = append(m.w.outbox, msg)
	return nil
}

// Messages returns the outbox messages recorded so far.
func (m *Memory) Messages() []outboxport.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]outboxport.Message(nil), m.w.outbox...)
}

// --- Seeder ---

// User records a user.
func (s memSeeder) User(_ testing.TB, id int64) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.w.users[id] = true
}

// Category records a category with its settings (nil: no compatibilities).
func (s memSeeder) Category(_ testing.TB, id, siteID string, settings *compat.CategorySettings) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	var cs *compat.CategorySettings
	if settings != nil {
		c := *settings
		cs = &c
	}
	s.m.w.categories[id] = memCategory{siteID: siteID, settings: cs}
}

// Domain records a dump entry.
func (s memSeeder) Domain(t testing.TB, id, siteID string, links []compat.DomainLink) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	ls := append([]compat.DomainLink{}, links...)
	raw, err := json.Marshal(ls)
	if err != nil {
		t.Fatal(err)
	}
	s.m.w.domains[id] = compat.Domain{ID: id, SiteID: siteID, Raw: raw, Links: ls}
}

// Product records a product and its attributes.
func (s memSeeder) Product(_ testing.TB, p compat.Product, attrs ...Attr) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.w.products[p.ID] = p
	s.m.w.attrs[p.ID] = append([]Attr{}, attrs...)
}

// Item records an item; its category settings are read from the category.
func (s memSeeder) Item(_ testing.TB, it compat.Item) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	it.Category = nil
	s.m.w.items[it.ID] = it
}

// Order records an order of one item.
func (s memSeeder) Order(_ testing.TB, id, sellerID, _ int64, itemID string, hasClaim bool) {
	s.m.mu.Lock()
	defer s.m.mu.Unlock()
	s.m.w.orders[id] = memOrder{sellerID: sellerID, itemID: itemID, hasClaim: hasClaim}
}

// SetItemStatus changes a seeded item's status (closed, paused...).
func (m *Memory) SetItemStatus(id, status string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it := m.w.items[id]
	it.Status = status
	m.w.items[id] = it
}

// SetClaim sets whether an order has a claim.
func (m *Memory) SetClaim(id int64, hasClaim bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.w.orders[id]
	o.hasClaim = hasClaim
	m.w.orders[id] = o
}

// --- Store: the memRows ---

func (m *Memory) lock() func() {
	m.mu.Lock()
	return m.mu.Unlock
}

// Item returns the item with its category's settings.
func (m *Memory) Item(_ context.Context, id string) (compat.Item, error) {
	defer m.lock()()
	it, ok := m.w.items[id]
	if !ok {
		return compat.Item{}, compatport.ErrNotFound
	}
	if c := m.w.categories[it.CategoryID].settings; c != nil {
		s := *c
		it.Category = &s
	}
	return it, nil
}

// Domain returns one dump entry.
func (m *Memory) Domain(_ context.Context, id string) (compat.Domain, error) {
	defer m.lock()()
	d, ok := m.w.domains[id]
	if !ok {
		return compat.Domain{}, compatport.ErrNotFound
	}
	return d, nil
}

// Domains returns the dump of a site, by id.
func (m *Memory) Domains(_ context.Context, siteID string) ([]compat.Domain, error) {
	defer m.lock()()
	out := []compat.Domain{}
	for _, d := range m.w.domains {
		if d.SiteID == siteID {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Products returns those of ids that exist.
func (m *Memory) Products(_ context.Context, ids []string) (map[string]compat.Product, error) {
	defer m.lock()()
	out := make(map[string]compat.Product, len(ids))
	for _, id := range ids {
		if p, ok := m.w.products[id]; ok {
			out[id] = p
		}
	}
	return out, nil
}

// matches reports whether product p is a child of the family sel.
func (m *Memory) matches(p compat.Product, sel compat.Selector) bool {
	if p.DomainID != sel.DomainID || p.ParentID == nil || len(sel.Attributes) == 0 {
		return false
	}
	for _, sa := range sel.Attributes {
		ok := false
		for _, a := range m.w.attrs[p.ID] {
			if a.ID != sa.ID {
				continue
			}
			for _, v := range sa.ValueIDs {
				ok = ok || a.ValueID == v
			}
			for _, v := range sa.ValueNames {
				ok = ok || compat.NormalizeName(a.ValueName) == compat.NormalizeName(v)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func (m *Memory) family(sel compat.Selector) []compat.Product {
	out := []compat.Product{}
	for _, p := range m.w.products {
		if m.matches(p, sel) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// FamilyProducts returns up to limit child products of the family, by id.
func (m *Memory) FamilyProducts(_ context.Context, sel compat.Selector, limit int) ([]compat.Product, error) {
	defer m.lock()()
	ps := m.family(sel)
	if len(ps) > limit {
		ps = ps[:limit]
	}
	return ps, nil
}

// CountFamily counts the child products of the family.
func (m *Memory) CountFamily(_ context.Context, sel compat.Selector) (int, error) {
	defer m.lock()()
	if _, ok := m.w.domains[sel.DomainID]; !ok {
		return 0, compatport.ErrNotFound
	}
	return len(m.family(sel)), nil
}

// --- Store: compatibilities ---

func (m *Memory) withName(c compat.Compatibility) compat.Compatibility {
	c.ProductName = m.w.products[c.ProductID].Name
	c.Restrictions = append([]compat.Restriction{}, c.Restrictions...)
	return c
}

func (m *Memory) sorted(itemID string) []compat.Compatibility {
	out := []compat.Compatibility{}
	for _, c := range m.w.compats {
		if c.ItemID == itemID {
			out = append(out, m.withName(c))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].DateCreated.Equal(out[j].DateCreated) {
			return out[i].DateCreated.Before(out[j].DateCreated)
		}
		return out[i].ProductID < out[j].ProductID
	})
	return out
}

// Compatibilities lists an item's compatibilities by creation, then vehicle.
func (m *Memory) Compatibilities(_ context.Context, itemID string) ([]compat.Compatibility, error) {
	defer m.lock()()
	return m.sorted(itemID), nil
}

// Compatibility reads one compatibility of an item.
func (m *Memory) Compatibility(_ context.Context, itemID, id string) (compat.Compatibility, error) {
	defer m.lock()()
	for _, c := range m.w.compats {
		if c.ItemID == itemID && c.ID == id {
			return m.withName(c), nil
		}
	}
	return compat.Compatibility{}, compatport.ErrNotFound
}

// AddCompatibilities inserts those whose (item, product) is new.
func (m *Memory) AddCompatibilities(_ context.Context, cs []compat.Compatibility) ([]compat.Compatibility, error) {
	defer m.lock()()
	present := map[[2]string]bool{}
	for _, c := range m.w.compats {
		present[[2]string{c.ItemID, c.ProductID}] = true
	}
	var added []compat.Compatibility
	for _, c := range cs {
		k := [2]string{c.ItemID, c.ProductID}
		if present[k] {
			continue
		}
		present[k] = true
		added = append(added, c)
		c.DateCreated, c.LastUpdated = utc(c.DateCreated), utc(c.LastUpdated)
		if c.Restrictions == nil {
			c.Restrictions = []compat.Restriction{}
		}
		c.ProductName = ""
		m.w.compats = append(m.w.compats, c)
	}
	return added, nil
}

func utc(t time.Time) time.Time { return t.UTC() }

// UpdateCompatibility stores note, status and restrictions of c.
func (m *Memory) UpdateCompatibility(_ context.Context, c compat.Compatibility) error {
	defer m.lock()()
	for i, o := range m.w.compats {
		if o.ID == c.ID {
			rs := c.Restrictions
			if rs == nil {
				rs = []compat.Restriction{}
			}
			o.Note, o.NoteStatus, o.Restrictions, o.LastUpdated = c.Note, c.NoteStatus, rs, utc(c.LastUpdated)
			m.w.compats[i] = o
			return nil
		}
	}
	return compatport.ErrNotFound
}

// SetNoteStatus moves a note to status when it is still note.
func (m *Memory) SetNoteStatus(_ context.Context, id, note, status string, at time.Time) (bool, error) {
	defer m.lock()()
	for i, o := range m.w.compats {
		if o.ID == id && o.Note == note {
			o.NoteStatus, o.LastUpdated = status, utc(at)
			m.w.compats[i] = o
			return true, nil
		}
	}
	return false, nil
}

// DeleteCompatibilities deletes ids of the item (all when ids is nil).
func (m *Memory) DeleteCompatibilities(_ context.Context, itemID string, ids []string) ([]string, error) {
	defer m.lock()()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	var gone []compat.Compatibility
	kept := m.w.compats[:0:0]
	for _, c := range m.w.compats {
		if c.ItemID == itemID && (ids == nil || want[c.ID]) {
			gone = append(gone, c)
			continue
		}
		kept = append(kept, c)
	}
	m.w.compats = kept
	sort.SliceStable(gone, func(i, j int) bool {
		if !gone[i].DateCreated.Equal(gone[j].DateCreated) {
			return gone[i].DateCreated.Before(gone[j].DateCreated)
		}
		return gone[i].ID < gone[j].ID
	})
	out := make([]string, len(gone))
	for i, c := range gone {
		out[i] = c.ID
	}
	return out, nil
}

// --- Store: states, snapshots, jobs ---

// State returns the item's state (the zero state when none is stored).
func (m *Memory) State(_ context.Context, itemID string) (compat.State, error) {
	defer m.lock()()
	st, ok := m.w.states[itemID]
	if !ok {
		return compat.State{ItemID: itemID, UniversalDomainIDs: []string{}}, nil
	}
	st.UniversalDomainIDs = append([]string{}, st.UniversalDomainIDs...)
	return st, nil
}

// PutState upserts an item's state.
func (m *Memory) PutState(_ context.Context, st compat.State) error {
	defer m.lock()()
	st.UniversalDomainIDs = append([]string{}, st.UniversalDomainIDs...)
	if st.ExceptionDate != nil {
		d := st.ExceptionDate.UTC()
		st.ExceptionDate = &d
	}
	m.w.states[st.ItemID] = st
	return nil
}

// claimed reports whether snapshot s confirmed a compatibility of an
// order with a claim.
func (m *Memory) claimed(s compat.Snapshot) bool {
	o, ok := m.w.orders[s.OrderID]
	return ok && o.hasClaim && s.Status == compat.Confirmed
}

// Claims counts, per compatibility, the orders with a claim whose snapshot
// confirmed it.
func (m *Memory) Claims(_ context.Context, ids []string) (map[string]int, error) {
	defer m.lock()()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[string]int{}
	for _, s := range m.w.snapshots {
		if want[s.CompatibilityID] && m.claimed(s) {
			out[s.CompatibilityID]++
		}
	}
	return out, nil
}

// Suggestions returns the vehicles of other active items sharing the item's
// catalog product or part number that the item lacks.
func (m *Memory) Suggestions(_ context.Context, it compat.Item) ([]compat.Product, error) {
	defer m.lock()()
	same := func(a, b *string) bool { return a != nil && b != nil && *a != "" && *a == *b }
	others := map[string]bool{}
	for _, o := range m.w.items {
		if o.ID != it.ID && o.Status == "active" && (same(it.CatalogProductID, o.CatalogProductID) || same(it.PartNumber, o.PartNumber)) {
			others[o.ID] = true
		}
	}
	has := map[string]bool{}
	for _, c := range m.w.compats {
		if c.ItemID == it.ID {
			has[c.ProductID] = true
		}
	}
	seen := map[string]bool{}
	out := []compat.Product{}
	for _, c := range m.w.compats {
		if others[c.ItemID] && !has[c.ProductID] && !seen[c.ProductID] {
			seen[c.ProductID] = true
			out = append(out, m.w.products[c.ProductID])
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// Counts returns the summary counts per item.
func (m *Memory) Counts(_ context.Context, domainID string, itemIDs []string) (map[string]compat.Summary, error) {
	defer m.lock()()
	want := map[string]bool{}
	for _, id := range itemIDs {
		want[id] = true
	}
	out := map[string]compat.Summary{}
	of := map[string]string{} // compatibility id -> item id, of the counted ones
	for _, c := range m.w.compats {
		if !want[c.ItemID] || domainID != "" && c.DomainID != domainID {
			continue
		}
		of[c.ID] = c.ItemID
		s := out[c.ItemID]
		s.ItemID = c.ItemID
		s.Compatibility++
		if c.Note != "" {
			s.Notes++
		}
		if len(c.Restrictions) > 0 {
			s.Restrictions++
		}
		out[c.ItemID] = s
	}
	for _, sn := range m.w.snapshots {
		if item, ok := of[sn.CompatibilityID]; ok && m.claimed(sn) {
			s := out[item]
			s.Claims++
			out[item] = s
		}
	}
	return out, nil
}

// Order reads what the snapshot needs of an order.
func (m *Memory) Order(_ context.Context, id int64) (compat.Order, error) {
	defer m.lock()()
	o, ok := m.w.orders[id]
	if !ok {
		return compat.Order{}, compatport.ErrNotFound
	}
	return compat.Order{ID: id, SellerID: o.sellerID, HasClaim: o.hasClaim}, nil
}

// AddSnapshot stores a snapshot unless the order has one.
func (m *Memory) AddSnapshot(_ context.Context, s compat.Snapshot) error {
	defer m.lock()()
	if _, ok := m.w.snapshots[s.OrderID]; ok {
		return nil
	}
	if s.Restrictions == nil {
		s.Restrictions = []compat.Restriction{}
	}
	s.DateCreated, s.DateUpdated = utc(s.DateCreated), utc(s.DateUpdated)
	m.w.snapshots[s.OrderID] = s
	return nil
}

// Snapshot reads an order's snapshot.
func (m *Memory) Snapshot(_ context.Context, orderID int64) (compat.Snapshot, error) {
	defer m.lock()()
	s, ok := m.w.snapshots[orderID]
	if !ok {
		return compat.Snapshot{}, compatport.ErrNotFound
	}
	s.Restrictions = append([]compat.Restriction{}, s.Restrictions...)
	return s, nil
}

// MarkSnapshotsDeleted flags the snapshots of deleted compatibilities.
func (m *Memory) MarkSnapshotsDeleted(_ context.Context, ids []string, at time.Time) error {
	defer m.lock()()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	for k, s := range m.w.snapshots {
		if want[s.CompatibilityID] && !s.CompatibilityDeleted {
			s.CompatibilityDeleted, s.DateUpdated = true, utc(at)
			m.w.snapshots[k] = s
		}
	}
	return nil
}

// MarkJobDone records a job id; false when it was recorded before.
func (m *Memory) MarkJobDone(_ context.Context, id string, _ time.Time) (bool, error) {
	defer m.lock()()
	if m.w.jobs[id] {
		return false, nil
	}
	m.w.jobs[id] = true
	return true, nil
}

// Listing is the item's seller and state with Compatibilities, each with
// its Claims.
func (m *Memory) Listing(ctx context.Context, itemID string) (compatport.Listing, error) {
	var l compatport.Listing
	it, err := m.Item(ctx, itemID)
	if err != nil {
		return l, err
	}
	st, err := m.State(ctx, itemID)
	if err != nil {
		return l, err
	}
	cs, err := m.Compatibilities(ctx, itemID)
	if err != nil {
		return l, err
	}
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	claims, err := m.Claims(ctx, ids)
	if err != nil {
		return l, err
	}
	l.SellerID, l.Compatibilities = it.SellerID, make([]compatport.Claimed, len(cs))
	if st.Universal {
		l.UniversalDomainIDs = st.UniversalDomainIDs
	}
	for i, c := range cs {
		l.Compatibilities[i] = compatport.Claimed{Compatibility: c, Claims: claims[c.ID]}
	}
	return l, nil
}
