// Package compatsvc runs the use cases of area B on the compatport ports:
// validation against the catalog, the item state table, notes sent to
// moderation and copies sent to the bulk queue through the outbox, reads with
// reputation and suggestions, and the order snapshots.
package compatsvc

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/compatport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/salesport"
)

// Service implements compatport.Service, compatport.Jobs and the order
// observer that takes snapshots.
type Service struct {
	store  compatport.Store
	tx     compatport.Tx
	outbox outboxport.Outbox
	notes  compatport.NoteChecker
	clock  kernel.Clock
}

var (
	_ compatport.Service      = (*Service)(nil)
	_ compatport.Jobs         = (*Service)(nil)
	_ salesport.OrderObserver = (*Service)(nil)
)

// New returns the service.
func New(store compatport.Store, tx compatport.Tx, outbox outboxport.Outbox, notes compatport.NoteChecker, clock kernel.Clock) *Service {
	return &Service{store: store, tx: tx, outbox: outbox, notes: notes, clock: clock}
}

// newID returns a random UUID (version 4).
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

func internal(err error) error {
	var ke *kernel.Error
	if errors.As(err, &ke) {
		return err
	}
	return &kernel.Error{Kind: kernel.Internal, Err: err}
}

// item reads an item by its path id: 400 badly formatted, 404 absent.
func (s *Service) item(ctx context.Context, id string) (compat.Item, error) {
	if !compat.ValidItemID(id) {
		return compat.Item{}, compat.ErrBadFormat.WithCause("item_id", "item id "+id+" is badly formatted")
	}
	it, err := s.store.Item(ctx, id)
	if errors.Is(err, compatport.ErrNotFound) {
		return it, compat.ErrItemNotFound.Withf("item %s not found", id)
	}
	if err != nil {
		return it, internal(err)
	}
	return it, nil
}

// owned reads an item and checks that the caller sells it (403 otherwise).
func (s *Service) owned(ctx context.Context, id string) (compat.Item, error) {
	it, err := s.item(ctx, id)
	if err != nil {
		return it, err
	}
	c, ok := kernel.CallerFrom(ctx)
	if !ok || c.UserID != it.SellerID {
		return it, compat.ErrNotSeller.Withf("the caller has no permission on item %s", id)
	}
	return it, nil
}

func (s *Service) domain(ctx context.Context, id string) (compat.Domain, error) {
	d, err := s.store.Domain(ctx, id)
	if errors.Is(err, compatport.ErrNotFound) {
		return d, compat.ErrDomainNotFound.Withf("domain %s not found", id)
	}
	if err != nil {
		return d, internal(err)
	}
	return d, nil
}

// Dump serves the cross-domain compatibility dump of a site.
func (s *Service) Dump(ctx context.Context, siteID string) ([]compat.Domain, error) {
	if _, ok := kernel.LookupSite(siteID); !ok {
		return nil, kernel.E(kernel.Invalid, "bad_request", "invalid site_id "+siteID).WithCause("site_id", "unknown site")
	}
	ds, err := s.store.Domains(ctx, siteID)
	if err != nil {
		return nil, internal(err)
	}
	return ds, nil
}

// CountFamily counts the child products of a family.
func (s *Service) CountFamily(ctx context.Context, sel compat.Selector) (int, error) {
	if err := compat.CheckSelector(sel, ""); err != nil {
		return 0, err
	}
	if _, err := s.domain(ctx, sel.DomainID); err != nil {
		return 0, err
	}
	n, err := s.store.CountFamily(ctx, sel)
	return n, internal0(err)
}

func internal0(err error) error {
	if err == nil {
		return nil
	}
	return internal(err)
}

// RestrictionValues serves the values restrictions may take between a
// vehicle (main) domain and a part (secondary) domain.
func (s *Service) RestrictionValues(ctx context.Context, mainID, secondaryID string) ([]compat.RestrictionValue, error) {
	if mainID == "" || secondaryID == "" {
		return nil, compat.ErrIncomplete.WithCause("main_domain_id", "main_domain_id and secondary_domain_id are required")
	}
	if !compat.ValidDomainID(mainID) || !compat.ValidDomainID(secondaryID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain ids must be <site_id>-<DOMAIN_NAME>")
	}
	d, err := s.domain(ctx, secondaryID)
	if err != nil {
		return nil, err
	}
	if _, err := s.domain(ctx, mainID); err != nil {
		return nil, err
	}
	l, ok := d.Link(mainID)
	if !ok || l.RestrictionValues == nil {
		return []compat.RestrictionValue{}, nil
	}
	return l.RestrictionValues, nil
}

// target is one vehicle product a request resolved to.
type target struct {
	product  compat.Product
	creation string
	note     *string
	restr    *[]compat.Restriction
	link     compat.DomainLink
}

// resolve turns nodes into vehicle products, applying the rules of the spec
// in the order of its error table. counted carries the products already
// named by other nodes of the same request (the 200 limit is per request).
func (s *Service) resolve(ctx context.Context, it compat.Item, n compat.Nodes, op compat.Op, counted map[string]bool) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	add := func(t target) {
		if seen[t.product.ID] {
			return
		}
		seen[t.product.ID] = true
		counted[t.product.ID] = true
		out = append(out, t)
	}
	var ids []string
	for _, p := range n.Products {
		ids = append(ids, p.ID)
	}
	for _, g := range n.Groups {
		ids = append(ids, g.IDs...)
	}
	if len(ids) > compat.MaxProducts {
		return nil, compat.ErrTooManyProducts.WithCause("products", fmt.Sprintf("%d products specified; at most 200", len(ids)))
	}
	products, err := s.store.Products(ctx, ids)
	if err != nil {
		return nil, internal(err)
	}
	check := func(id string) (compat.Product, error) {
		p, ok := products[id]
		if !ok {
			return p, compat.ErrProductNotFound.Withf("product %s not found", id).WithCause("products", "product "+id+" does not exist")
		}
		if p.SiteID != it.SiteID {
			return p, compat.ErrOtherSite.WithCause("products", "product "+id+" is not of site "+it.SiteID)
		}
		if p.ParentID == nil {
			return p, compat.ErrNotChildren.WithCause("products", "product "+id+" is a parent product")
		}
		return p, nil
	}
	for _, e := range n.Products {
		p, err := check(e.ID)
		if err != nil {
			return nil, err
		}
		add(target{product: p, creation: e.CreationSource, note: e.Note, restr: e.Restrictions})
	}
	for _, g := range n.Groups {
		for _, id := range g.IDs {
			p, err := check(id)
			if err != nil {
				return nil, err
			}
			add(target{product: p, creation: g.CreationSource, note: g.Note, restr: g.Restrictions})
		}
	}
	for _, f := range n.Families {
		d, err := s.domain(ctx, f.DomainID)
		if err != nil {
			return nil, err
		}
		if d.SiteID != it.SiteID {
			return nil, compat.ErrOtherSite.WithCause("products_families.domain_id", "domain "+f.DomainID+" is not of site "+it.SiteID)
		}
		ps, err := s.store.FamilyProducts(ctx, f.Selector, compat.MaxProducts+1)
		if err != nil {
			return nil, internal(err)
		}
		for _, p := range ps {
			add(target{product: p, creation: f.CreationSource, note: f.Note, restr: f.Restrictions})
		}
		if len(counted) > compat.MaxProducts {
			break
		}
	}
	if len(counted) > compat.MaxProducts {
		return nil, compat.ErrTooManyProducts.WithCause("products", "more than 200 products in the request, families included")
	}
	domains := map[string]bool{}
	for _, t := range out {
		domains[t.product.DomainID] = true
	}
	for _, f := range n.Families {
		domains[f.DomainID] = true
	}
	if op != compat.OpUpdate && len(domains) > compat.MaxDomains {
		return nil, compat.ErrTooManyDomains.WithCause("domains", fmt.Sprintf("%d product domains; at most 10", len(domains)))
	}
	if op == compat.OpDelete {
		return out, nil
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return nil, internal(err)
	}
	names := make([]string, 0, len(domains))
	for d := range domains {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if _, ok := own.Link(d); !ok {
			return nil, compat.ErrDomainMismatch.WithCause("domain_id", "item domain "+it.DomainID+" is not compatible with "+d)
		}
	}
	for i := range out {
		t := &out[i]
		t.link, _ = own.Link(t.product.DomainID)
		if t.note != nil && *t.note != "" && !it.Category.NotesAllowed() {
			return nil, compat.ErrNoteNotAllowed.WithCause("note", "category "+it.CategoryID+" does not allow notes")
		}
		if t.restr != nil && len(*t.restr) > 0 {
			if !it.Category.RestrictionsAllowed() {
				return nil, compat.ErrRestrNotAllowed.WithCause("restrictions", "category "+it.CategoryID+" does not allow restrictions")
			}
			rs, err := compat.CheckRestrictions(*t.restr, t.link)
			if err != nil {
				return nil, err
			}
			t.restr = &rs
		}
	}
	return out, nil
}

// build makes new compatibility rows of targets.
func (s *Service) build(it compat.Item, ts []target) []compat.Compatibility {
	now := s.clock.Now()
	out := make([]compat.Compatibility, 0, len(ts))
	for _, t := range ts {
		c := compat.Compatibility{ID: newID(), ItemID: it.ID, DomainID: t.product.DomainID, ProductID: t.product.ID,
			ProductName: t.product.Name, Source: compat.SourceSeller, CreationSource: t.creation,
			NoteStatus: compat.NoteNone, Restrictions: []compat.Restriction{}, DateCreated: now, LastUpdated: now}
		if c.CreationSource == "" {
			c.CreationSource = compat.CreationManual
		}
		if t.note != nil && *t.note != "" {
			c.Note, c.NoteStatus = *t.note, compat.NotePending
		}
		if t.restr != nil {
			c.Restrictions = *t.restr
		}
		out = append(out, c)
	}
	return out
}

// moderate queues the moderation of the notes of cs, in the caller's tx.
func (s *Service) moderate(ctx context.Context, it compat.Item, cs []compat.Compatibility) error {
	for _, c := range cs {
		if c.NoteStatus != compat.NotePending {
			continue
		}
		payload, _ := json.Marshal(compatport.NoteJob{CompatibilityID: c.ID, ItemID: it.ID, Note: c.Note})
		if err := s.outbox.Add(ctx, outboxport.Message{ID: "note-" + newID(), Type: compatport.TaskModerateNote,
			Payload: payload, CreatedAt: s.clock.Now()}); err != nil {
			return internal(err)
		}
	}
	return nil
}

func (s *Service) state(ctx context.Context, itemID string) (compat.State, []compat.Compatibility, error) {
	st, err := s.store.State(ctx, itemID)
	if err != nil {
		return st, nil, internal(err)
	}
	cs, err := s.store.Compatibilities(ctx, itemID)
	if err != nil {
		return st, nil, internal(err)
	}
	return st, cs, nil
}

// errArguments is the universal row's general message with its detail.
func errArguments() error {
	return compat.ErrInvalidArguments.
		WithCause("body", "at least one of products, products_groups, products_families or universal must be sent").
		WithCause("universal", "with universal no products may be sent")
}

// Create applies a POST of products, groups, families or universal.
func (s *Service) Create(ctx context.Context, itemID string, n compat.Nodes) (int, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return 0, err
	}
	universal := n.Universal != nil && *n.Universal
	if universal && !n.Empty() || !universal && n.Empty() {
		return 0, errArguments()
	}
	if err := compat.CheckNodes(n, ""); err != nil {
		return 0, err
	}
	var count int
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if universal {
			count, err = s.setUniversal(ctx, it)
			return err
		}
		count, err = s.create(ctx, it, n, map[string]bool{})
		return err
	})
	return count, err
}

// create adds the compatibilities of n to a non-universal item.
func (s *Service) create(ctx context.Context, it compat.Item, n compat.Nodes, counted map[string]bool) (int, error) {
	st, err := s.store.State(ctx, it.ID)
	if err != nil {
		return 0, internal(err)
	}
	if st.Universal {
		return 0, compat.ErrIsUniversal
	}
	if it.Category == nil {
		return 0, compat.ErrNoCategory.WithCause("category_id", "category "+it.CategoryID+" takes no compatibilities")
	}
	ts, err := s.resolve(ctx, it, n, compat.OpCreate, counted)
	if err != nil {
		return 0, err
	}
	added, err := s.store.AddCompatibilities(ctx, s.build(it, ts))
	if err != nil {
		return 0, internal(err)
	}
	return len(added), s.moderate(ctx, it, added)
}

// setUniversal marks an item universal (the state table's universal rows).
func (s *Service) setUniversal(ctx context.Context, it compat.Item) (int, error) {
	if it.Category == nil {
		return 0, compat.ErrNoCategory.WithCause("category_id", "category "+it.CategoryID+" takes no compatibilities")
	}
	if !it.Category.UniversalAllowed() {
		return 0, compat.ErrNoUniversal.WithCause("category_id", "category "+it.CategoryID+" does not allow universal compatibilities")
	}
	st, cs, err := s.state(ctx, it.ID)
	if err != nil {
		return 0, err
	}
	if len(cs) > 0 {
		return 0, compat.ErrHasCompat
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return 0, internal(err)
	}
	st.ItemID, st.Universal, st.UniversalDomainIDs = it.ID, true, own.TopDomains()
	st.HasException, st.ExceptionComment, st.ExceptionDate = false, "", nil
	return 1, internal0(s.store.PutState(ctx, st))
}

// CopyLater checks a copy and queues it on the bulk queue.
func (s *Service) CopyLater(ctx context.Context, itemID string, req compat.CopyRequest) error {
	it, src, err := s.copyCheck(ctx, itemID, req)
	if err != nil {
		return err
	}
	return s.tx.RunInTx(ctx, func(ctx context.Context) error {
		st, err := s.store.State(ctx, it.ID)
		if err != nil {
			return internal(err)
		}
		if st.Universal {
			return compat.ErrIsUniversal
		}
		j := compatport.CopyJob{ID: "copy-" + newID(), ItemID: it.ID, SourceID: src.ID, Extended: req.ExtendedInformation}
		payload, _ := json.Marshal(j)
		return internal0(s.outbox.Add(ctx, outboxport.Message{ID: j.ID, Type: compatport.TaskCopy, Payload: payload, CreatedAt: s.clock.Now()}))
	})
}

func (s *Service) copyCheck(ctx context.Context, itemID string, req compat.CopyRequest) (compat.Item, compat.Item, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return it, it, err
	}
	if req.ItemID == "" {
		return it, it, compat.ErrIncomplete.WithCause("item_to_copy.item_id", "item_id is required")
	}
	src, err := s.owned(ctx, req.ItemID)
	if err != nil {
		return it, src, err
	}
	return it, src, nil
}

// Copy is the copy job: idempotent through its id, so that a retried job
// (a worker that crashed after committing) copies nothing twice.
func (s *Service) Copy(ctx context.Context, j compatport.CopyJob) error {
	return s.tx.RunInTx(ctx, func(ctx context.Context) error {
		first, err := s.store.MarkJobDone(ctx, j.ID, s.clock.Now())
		if err != nil || !first {
			return err
		}
		it, err := s.store.Item(ctx, j.ItemID)
		if errors.Is(err, compatport.ErrNotFound) {
			return nil // the item is gone: nothing to copy onto
		}
		if err != nil {
			return err
		}
		st, err := s.store.State(ctx, it.ID)
		if err != nil || st.Universal {
			return err
		}
		_, err = s.copyInto(ctx, it, j.SourceID, j.Extended)
		return err
	})
}

// copyInto copies the source's compatibilities onto it: all of them onto an
// item without any, only vehicles not yet present otherwise (the same thing,
// since a vehicle is on an item at most once). Vehicles whose domain the
// target's domain is not compatible with are skipped; notes and restrictions
// travel only with extended and where the target's category allows them.
func (s *Service) copyInto(ctx context.Context, it compat.Item, sourceID string, extended bool) ([]compat.Compatibility, error) {
	src, err := s.store.Compatibilities(ctx, sourceID)
	if err != nil {
		return nil, internal(err)
	}
	own, err := s.store.Domain(ctx, it.DomainID)
	if err != nil && !errors.Is(err, compatport.ErrNotFound) {
		return nil, internal(err)
	}
	now := s.clock.Now()
	var cs []compat.Compatibility
	for _, c := range src {
		link, ok := own.Link(c.DomainID)
		if !ok {
			continue
		}
		n := compat.Compatibility{ID: newID(), ItemID: it.ID, DomainID: c.DomainID, ProductID: c.ProductID, ProductName: c.ProductName,
			Source: compat.SourceSeller, CreationSource: compat.CreationCopy, NoteStatus: compat.NoteNone,
			Restrictions: []compat.Restriction{}, DateCreated: now, LastUpdated: now}
		if extended && c.Note != "" && it.Category.NotesAllowed() {
			n.Note, n.NoteStatus = c.Note, compat.NotePending
		}
		if extended && len(c.Restrictions) > 0 && it.Category.RestrictionsAllowed() {
			if rs, err := compat.CheckRestrictions(c.Restrictions, link); err == nil {
				n.Restrictions = rs
			}
		}
		cs = append(cs, n)
	}
	added, err := s.store.AddCompatibilities(ctx, cs)
	if err != nil {
		return nil, internal(err)
	}
	return added, s.moderate(ctx, it, added)
}

// Put applies a PUT: delete, then update, then create nodes, in one
// transaction; or a synchronous copy.
func (s *Service) Put(ctx context.Context, itemID string, req compat.PutRequest) (compatport.PutResult, error) {
	var res compatport.PutResult
	if req.CopyFrom != nil {
		it, src, err := s.copyCheck(ctx, itemID, *req.CopyFrom)
		if err != nil {
			return res, err
		}
		err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
			st, err := s.store.State(ctx, it.ID)
			if err != nil {
				return internal(err)
			}
			if st.Universal {
				return compat.ErrIsUniversal
			}
			added, err := s.copyInto(ctx, it, src.ID, req.CopyFrom.ExtendedInformation)
			if err != nil {
				return err
			}
			l, err := s.entries(ctx, added)
			res.Copied = &compatport.List{Entries: l}
			res.Created = len(added)
			return err
		})
		return res, err
	}
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return res, err
	}
	var create, update, del compat.Nodes
	if req.Create != nil {
		create = *req.Create
	}
	if req.Update != nil {
		update = *req.Update
	}
	if req.Delete != nil {
		del = *req.Delete
	}
	universal := req.Universal
	if create.Universal != nil {
		universal = create.Universal
	}
	if create.Empty() && update.Empty() && del.Empty() && universal == nil {
		return res, errArguments()
	}
	if universal != nil && *universal && !(create.Empty() && update.Empty()) {
		return res, errArguments()
	}
	for _, c := range []struct {
		n    compat.Nodes
		node string
	}{{create, "create."}, {update, "update."}, {del, "delete."}} {
		if err := compat.CheckNodes(c.n, c.node); err != nil {
			return res, err
		}
	}
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		counted := map[string]bool{}
		if !del.Empty() {
			ts, err := s.resolve(ctx, it, del, compat.OpDelete, counted)
			if err != nil {
				return err
			}
			if res.Deleted, err = s.deleteProducts(ctx, it, ts); err != nil {
				return err
			}
		}
		if universal != nil && !*universal {
			if err := s.clearUniversal(ctx, it.ID); err != nil {
				return err
			}
		}
		if !update.Empty() {
			if res.Updated, err = s.update(ctx, it, update, counted); err != nil {
				return err
			}
		}
		if universal != nil && *universal {
			res.Universal = true
			res.Created, err = s.setUniversal(ctx, it)
			return err
		}
		if !create.Empty() {
			res.Created, err = s.create(ctx, it, create, counted)
		}
		return err
	})
	return res, err
}

func (s *Service) clearUniversal(ctx context.Context, itemID string) error {
	st, err := s.store.State(ctx, itemID)
	if err != nil {
		return internal(err)
	}
	if !st.Universal {
		return nil
	}
	st.Universal, st.UniversalDomainIDs = false, []string{}
	return internal0(s.store.PutState(ctx, st))
}

// update changes note and restrictions of existing compatibilities.
func (s *Service) update(ctx context.Context, it compat.Item, n compat.Nodes, counted map[string]bool) (int, error) {
	ts, err := s.resolve(ctx, it, n, compat.OpUpdate, counted)
	if err != nil {
		return 0, err
	}
	cs, err := s.store.Compatibilities(ctx, it.ID)
	if err != nil {
		return 0, internal(err)
	}
	byProduct := make(map[string]compat.Compatibility, len(cs))
	for _, c := range cs {
		byProduct[c.ProductID] = c
	}
	now := s.clock.Now()
	var changed []compat.Compatibility
	for _, t := range ts {
		c, ok := byProduct[t.product.ID]
		if !ok {
			if len(n.Families) > 0 && len(n.Products) == 0 && len(n.Groups) == 0 {
				continue // a family updates the item's vehicles it covers
			}
			return 0, compat.ErrCompatibilityNotFound.Withf("the item has no compatibility with product %s", t.product.ID)
		}
		if t.note != nil && *t.note != c.Note {
			c.Note, c.NoteStatus = *t.note, compat.NotePending
			if c.Note == "" {
				c.NoteStatus = compat.NoteNone
			}
		}
		if t.restr != nil {
			c.Restrictions = *t.restr
		}
		c.LastUpdated = now
		if err := s.store.UpdateCompatibility(ctx, c); err != nil {
			return 0, internal(err)
		}
		changed = append(changed, c)
	}
	return len(changed), s.moderate(ctx, it, changed)
}

// deleteProducts deletes the item's compatibilities with the targets.
func (s *Service) deleteProducts(ctx context.Context, it compat.Item, ts []target) ([]string, error) {
	cs, err := s.store.Compatibilities(ctx, it.ID)
	if err != nil {
		return nil, internal(err)
	}
	want := map[string]bool{}
	for _, t := range ts {
		want[t.product.ID] = true
	}
	ids := []string{}
	for _, c := range cs {
		if want[c.ProductID] {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == 0 {
		return ids, nil
	}
	return s.deleteIDs(ctx, it.ID, ids)
}

func (s *Service) deleteIDs(ctx context.Context, itemID string, ids []string) ([]string, error) {
	deleted, err := s.store.DeleteCompatibilities(ctx, itemID, ids)
	if err != nil {
		return nil, internal(err)
	}
	if err := s.store.MarkSnapshotsDeleted(ctx, deleted, s.clock.Now()); err != nil {
		return nil, internal(err)
	}
	if deleted == nil {
		deleted = []string{}
	}
	return deleted, nil
}

// entries adds reputation to compatibilities.
func (s *Service) entries(ctx context.Context, cs []compat.Compatibility) ([]compatport.Entry, error) {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	claims, err := s.store.Claims(ctx, ids)
	if err != nil {
		return nil, internal(err)
	}
	out := make([]compatport.Entry, len(cs))
	for i, c := range cs {
		out[i] = compatport.Entry{Compatibility: c, Reputation: compat.ReputationOf(claims[c.ID])}
	}
	return out, nil
}

// List lists an item's compatibilities.
func (s *Service) List(ctx context.Context, itemID string) (compatport.List, error) {
	var l compatport.List
	if _, err := s.owned(ctx, itemID); err != nil {
		return l, err
	}
	st, cs, err := s.state(ctx, itemID)
	if err != nil {
		return l, err
	}
	if l.Entries, err = s.entries(ctx, cs); err != nil {
		return l, err
	}
	if st.Universal {
		l.UniversalDomains = append([]string{}, st.UniversalDomainIDs...)
	}
	return l, nil
}

func (s *Service) one(ctx context.Context, itemID, compatID string) (compat.Compatibility, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return compat.Compatibility{}, err
	}
	c, err := s.store.Compatibility(ctx, itemID, compatID)
	if errors.Is(err, compatport.ErrNotFound) {
		return c, compat.ErrCompatibilityNotFound.Withf("compatibility %s not found", compatID)
	}
	return c, internal0(err)
}

// Get reads one compatibility.
func (s *Service) Get(ctx context.Context, itemID, compatID string) (compatport.Entry, error) {
	c, err := s.one(ctx, itemID, compatID)
	if err != nil {
		return compatport.Entry{}, err
	}
	es, err := s.entries(ctx, []compat.Compatibility{c})
	if err != nil {
		return compatport.Entry{}, err
	}
	return es[0], nil
}

// Note reads the note of one compatibility.
func (s *Service) Note(ctx context.Context, itemID, compatID string) (string, error) {
	c, err := s.one(ctx, itemID, compatID)
	return c.Note, err
}

// ExtendedCheck tells whether the item's category allows notes and
// restrictions.
func (s *Service) ExtendedCheck(ctx context.Context, itemID string) (bool, bool, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return false, false, err
	}
	return it.Category.NotesAllowed(), it.Category.RestrictionsAllowed(), nil
}

// DeleteOne deletes one compatibility.
func (s *Service) DeleteOne(ctx context.Context, itemID, compatID string) ([]string, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return nil, err
	}
	var deleted []string
	err := s.tx.RunInTx(ctx, func(ctx context.Context) error {
		var err error
		if deleted, err = s.deleteIDs(ctx, itemID, []string{compatID}); err != nil {
			return err
		}
		if len(deleted) == 0 {
			return compat.ErrCompatibilityNotFound.Withf("compatibility %s not found", compatID)
		}
		return nil
	})
	return deleted, err
}

// Delete deletes all of an item's compatibilities (and its universal state),
// or those of families.
func (s *Service) Delete(ctx context.Context, itemID string, families []compat.Selector) ([]string, error) {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return nil, err
	}
	n := compat.Nodes{}
	for _, f := range families {
		n.Families = append(n.Families, compat.FamilyEntry{Selector: f})
	}
	if err := compat.CheckNodes(n, ""); err != nil {
		return nil, err
	}
	var deleted []string
	err = s.tx.RunInTx(ctx, func(ctx context.Context) error {
		if len(families) == 0 {
			cs, err := s.store.Compatibilities(ctx, it.ID)
			if err != nil {
				return internal(err)
			}
			ids := make([]string, len(cs))
			for i, c := range cs {
				ids[i] = c.ID
			}
			deleted = []string{}
			if len(ids) > 0 {
				if deleted, err = s.deleteIDs(ctx, it.ID, ids); err != nil {
					return err
				}
			}
			return s.clearUniversal(ctx, it.ID)
		}
		ts, err := s.resolve(ctx, it, n, compat.OpDelete, map[string]bool{})
		if err != nil {
			return err
		}
		deleted, err = s.deleteProducts(ctx, it, ts)
		return err
	})
	return deleted, err
}

// ReportException reports that no vehicle of the catalog fits the item.
func (s *Service) ReportException(ctx context.Context, itemID string, comment *string) error {
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return err
	}
	return s.tx.RunInTx(ctx, func(ctx context.Context) error {
		st, cs, err := s.state(ctx, it.ID)
		if err != nil {
			return err
		}
		switch {
		case !it.Active():
			return compat.ErrItemInactive.Withf("item %s is %s", it.ID, it.Status)
		case len(cs) > 0 || st.Universal:
			return compat.ErrExceptionCompat
		case it.Category == nil || !it.Category.Required:
			return compat.ErrExceptionNoCat
		case st.HasException:
			return compat.ErrExceptionTwice
		}
		if err := compat.CheckComment(comment); err != nil {
			return err
		}
		now := s.clock.Now()
		st.ItemID, st.HasException, st.ExceptionComment, st.ExceptionDate = it.ID, true, *comment, &now
		if st.UniversalDomainIDs == nil {
			st.UniversalDomainIDs = []string{}
		}
		return internal0(s.store.PutState(ctx, st))
	})
}

// Exception reads whether an exception stands: only while the item has no
// compatibility.
func (s *Service) Exception(ctx context.Context, itemID string) (bool, error) {
	if _, err := s.owned(ctx, itemID); err != nil {
		return false, err
	}
	st, cs, err := s.state(ctx, itemID)
	if err != nil {
		return false, err
	}
	return st.HasException && len(cs) == 0 && !st.Universal, nil
}

// MaxSummaryItems bounds a summary request (docs/decisions.md).
const MaxSummaryItems = 100

// Summary counts compatibilities, claims, notes and restrictions per item.
func (s *Service) Summary(ctx context.Context, domainID string, itemIDs []string) ([]compat.Summary, error) {
	if domainID != "" && !compat.ValidDomainID(domainID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	if len(itemIDs) == 0 {
		return nil, compat.ErrIncomplete.WithCause("items", "items are required")
	}
	if len(itemIDs) > MaxSummaryItems {
		return nil, compat.ErrTooManyItems.WithCause("items", "at most 100 items")
	}
	titles := make(map[string]string, len(itemIDs))
	for _, id := range itemIDs {
		it, err := s.owned(ctx, id)
		if err != nil {
			return nil, err
		}
		titles[id] = it.Title
	}
	counts, err := s.store.Counts(ctx, domainID, itemIDs)
	if err != nil {
		return nil, internal(err)
	}
	out := make([]compat.Summary, 0, len(itemIDs))
	for _, id := range itemIDs {
		c := counts[id]
		c.ItemID, c.ItemTitle = id, titles[id]
		out = append(out, c)
	}
	return out, nil
}

// Cards counts the compatibilities with a RED reputation and the suggestions
// of an item.
func (s *Service) Cards(ctx context.Context, domainID, itemID, productID string, filters []string) ([]compatport.Card, error) {
	if itemID == "" {
		return nil, compat.ErrIncomplete.WithCause("item_id", "item_id is required")
	}
	if len(filters) == 0 {
		return nil, compat.ErrBadFilters.WithCause("filters", "filters are required")
	}
	for _, f := range filters {
		if f != compat.FilterReputation && f != compat.FilterSuggested {
			return nil, compat.ErrBadFilters.WithCause("filters", "unknown filter "+f)
		}
	}
	if productID != "" && !compat.ValidProductID(productID) {
		return nil, compat.ErrBadFormat.WithCause("product_id", "product id "+productID+" is badly formatted")
	}
	if !compat.ValidDomainID(domainID) {
		return nil, compat.ErrBadFormat.WithCause("domain_id", "domain_id must be <site_id>-<DOMAIN_NAME>")
	}
	it, err := s.owned(ctx, itemID)
	if err != nil {
		return nil, err
	}
	if _, err := s.domain(ctx, domainID); err != nil {
		return nil, err
	}
	out := make([]compatport.Card, 0, len(filters))
	for _, f := range filters {
		switch f {
		case compat.FilterReputation:
			cs, err := s.store.Compatibilities(ctx, it.ID)
			if err != nil {
				return nil, internal(err)
			}
			es, err := s.entries(ctx, cs)
			if err != nil {
				return nil, err
			}
			red := 0
			for _, e := range es {
				if e.Reputation.Level == compat.LevelRed {
					red++
				}
			}
			out = append(out, compatport.Card{Title: "Compatibilities with claims",
				Subtitle: "Vehicles buyers reported as not fitting this item", Filter: f, Quantity: red})
		case compat.FilterSuggested:
			sg, err := s.store.Suggestions(ctx, it)
			if err != nil {
				return nil, internal(err)
			}
			out = append(out, compatport.Card{Title: "Suggested compatibilities",
				Subtitle: "Vehicles that similar items fit and this item lacks", Filter: f, Quantity: len(sg)})
		}
	}
	return out, nil
}

// Snapshot reads the compatibility snapshot of an order with a claim.
func (s *Service) Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error) {
	snap, err := s.store.Snapshot(ctx, orderID)
	if errors.Is(err, compatport.ErrNotFound) {
		return snap, compat.ErrSnapshotNotFound
	}
	if err != nil {
		return snap, internal(err)
	}
	o, err := s.store.Order(ctx, orderID)
	if errors.Is(err, compatport.ErrNotFound) {
		return snap, compat.ErrSnapshotNotFound
	}
	if err != nil {
		return snap, internal(err)
	}
	c, ok := kernel.CallerFrom(ctx)
	if !ok || c.UserID != snap.SellerID {
		return snap, compat.ErrSnapshotSeller
	}
	if !o.HasClaim {
		return snap, compat.ErrSnapshotNoClaim
	}
	return snap, nil
}

// OrderStored takes the snapshot of a new order, in its storing transaction,
// from the compatibilities of its (first) item at that moment.
func (s *Service) OrderStored(ctx context.Context, o sales.Order, first bool) error {
	if !first || len(o.Items) == 0 {
		return nil
	}
	it, err := s.store.Item(ctx, o.Items[0].ItemID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.clock.Now()
	snap := compat.Snapshot{OrderID: o.ID, ItemID: it.ID, SellerID: it.SellerID, Status: compat.NoUserSelection,
		Restrictions: []compat.Restriction{}, DateCreated: now, DateUpdated: now}
	if sel := o.CompatibilitySelection; sel != nil {
		snap.ProductID = sel.ProductID
		lv := sel.LabelValues
		if lv == nil {
			lv = []sales.LabelValue{}
		}
		snap.UserSelection, _ = json.Marshal(lv)
		snap.Status = compat.Incompatible
		cs, err := s.store.Compatibilities(ctx, it.ID)
		if err != nil {
			return err
		}
		for _, c := range cs {
			if c.ProductID == sel.ProductID {
				snap.Status, snap.CompatibilityID = compat.Confirmed, c.ID
				if c.NoteStatus == compat.NoteApproved || c.NoteStatus == compat.NoteChecked {
					snap.Note = c.Note
				}
				snap.Restrictions = c.Restrictions
			}
		}
	}
	return s.store.AddSnapshot(ctx, snap)
}

// ModerateNote is the moderation job: it checks a PENDING note against the
// messaging rules and moves it to APPROVED or REJECTED. A note changed since
// the job was queued is left to its own job.
func (s *Service) ModerateNote(ctx context.Context, j compatport.NoteJob) error {
	it, err := s.store.Item(ctx, j.ItemID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	c, err := s.store.Compatibility(ctx, j.ItemID, j.CompatibilityID)
	if errors.Is(err, compatport.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Note != j.Note || c.NoteStatus != compat.NotePending {
		return nil
	}
	status := compat.NoteApproved
	if err := s.notes.CheckNote(ctx, it.SiteID, j.Note); err != nil {
		switch kernel.KindOf(err) {
		case kernel.NotAcceptable, kernel.Invalid:
			status = compat.NoteRejected
		default:
			return err // a fault of the checker: retry
		}
	}
	_, err = s.store.SetNoteStatus(ctx, c.ID, j.Note, status, s.clock.Now())
	return err
}
