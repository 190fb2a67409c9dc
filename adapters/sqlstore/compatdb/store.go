// Package compatdb implements compatport.Store on bun, for PostgreSQL and
// SQLite: compatibilities, item states, order snapshots and done copy jobs,
// and the reads of the world (items, categories, domains, products, orders)
// the rules need.
package compatdb

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Store implements compatport.Store.
type Store struct{ db bun.IDB }

var _ compatport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

func (s *Store) idb(ctx context.Context) bun.IDB { return sqlstore.IDB(ctx, s.db) }

func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if sqlstore.IsNoRows(err) {
		return fmt.Errorf("compatdb: %s: %w", op, compatport.ErrNotFound)
	}
	return fmt.Errorf("compatdb: %s: %w", op, err)
}

type itemRow struct {
	ID               string  `bun:"id"`
	SiteID           string  `bun:"site_id"`
	SellerID         int64   `bun:"seller_id"`
	Title            string  `bun:"title"`
	CategoryID       string  `bun:"category_id"`
	DomainID         string  `bun:"domain_id"`
	Status           string  `bun:"status"`
	CatalogProductID *string `bun:"catalog_product_id"`
	PartNumber       *string `bun:"part_number"`
	Settings         *string `bun:"settings"`
}

// Item reads an item with its category's compatibility settings.
func (s *Store) Item(ctx context.Context, id string) (compat.Item, error) {
	var r itemRow
	err := s.idb(ctx).NewRaw(`SELECT i.id, i.site_id, i.seller_id, i.title, i.category_id, i.domain_id, i.status,
		i.catalog_product_id, i.part_number, c.compatibilities AS settings
		FROM items i LEFT JOIN categories c ON c.id = i.category_id WHERE i.id = ?`, id).Scan(ctx, &r)
	if err != nil {
		return compat.Item{}, wrap("item", err)
	}
	it := compat.Item{ID: r.ID, SiteID: r.SiteID, SellerID: r.SellerID, Title: r.Title, CategoryID: r.CategoryID,
		DomainID: r.DomainID, Status: r.Status, CatalogProductID: r.CatalogProductID, PartNumber: r.PartNumber}
	if r.Settings != nil && *r.Settings != "" && *r.Settings != "null" {
		var cs compat.CategorySettings
		if err := json.Unmarshal([]byte(*r.Settings), &cs); err != nil {
			return it, fmt.Errorf("compatdb: category %s settings: %w", r.CategoryID, err)
		}
		it.Category = &cs
	}
	return it, nil
}

type domainRow struct {
	ID              string `bun:"id"`
	SiteID          string `bun:"site_id"`
	Main            bool   `bun:"main"`
	Compatibilities string `bun:"compatibilities"`
}

func (r domainRow) domain() (compat.Domain, error) {
	d := compat.Domain{ID: r.ID, SiteID: r.SiteID, Main: r.Main, Raw: []byte(r.Compatibilities)}
	if err := json.Unmarshal(d.Raw, &d.Links); err != nil {
		return d, fmt.Errorf("compatdb: domain %s: %w", r.ID, err)
	}
	return d, nil
}

// Domain reads one dump entry.
func (s *Store) Domain(ctx context.Context, id string) (compat.Domain, error) {
	var r domainRow
	if err := s.idb(ctx).NewRaw(`SELECT id, site_id, main, compatibilities FROM domains WHERE id = ?`, id).Scan(ctx, &r); err != nil {
		return compat.Domain{}, wrap("domain", err)
	}
	return r.domain()
}

// Domains reads the dump of a site, by domain id.
func (s *Store) Domains(ctx context.Context, siteID string) ([]compat.Domain, error) {
	var rs []domainRow
	if err := s.idb(ctx).NewRaw(`SELECT id, site_id, main, compatibilities FROM domains WHERE site_id = ? ORDER BY id`, siteID).Scan(ctx, &rs); err != nil {
		return nil, wrap("domains", err)
	}
	out := make([]compat.Domain, 0, len(rs))
	for _, r := range rs {
		d, err := r.domain()
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

type productRow struct {
	ID       string  `bun:"id"`
	SiteID   string  `bun:"site_id"`
	DomainID string  `bun:"domain_id"`
	Name     string  `bun:"name"`
	ParentID *string `bun:"parent_id"`
}

func (r productRow) product() compat.Product {
	return compat.Product{ID: r.ID, SiteID: r.SiteID, DomainID: r.DomainID, Name: r.Name, ParentID: r.ParentID}
}

// Products reads those of ids that exist.
func (s *Store) Products(ctx context.Context, ids []string) (map[string]compat.Product, error) {
	out := make(map[string]compat.Product, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rs []productRow
	if err := s.idb(ctx).NewRaw(`SELECT id, site_id, domain_id, name, parent_id FROM products WHERE id IN (?)`, bun.In(ids)).Scan(ctx, &rs); err != nil {
		return nil, wrap("products", err)
	}
	for _, r := range rs {
		out[r.ID] = r.product()
	}
	return out, nil
}

// attrCond is the condition on one product_attributes row (columns
// prefixed with alias) that one selector attribute sets, with its args.
func attrCond(a compat.SelectorAttr, alias string) (string, []any) {
	var parts []string
	var args []any
	if len(a.ValueIDs) > 0 {
		parts = append(parts, alias+"value_id IN (?)")
		args = append(args, bun.In(a.ValueIDs))
	}
	if len(a.ValueNames) > 0 {
		names := make([]string, len(a.ValueNames))
		for i, n := range a.ValueNames {
			names[i] = compat.NormalizeName(n)
		}
		parts = append(parts, alias+"value_name IN (?)")
		args = append(args, bun.In(names))
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// familyScans is the set of product ids whose attributes match the
// selector, parents included: one index-only scan of the (domain,
// attribute, value, product) covering index per attribute, intersected.
func familyScans(sel compat.Selector) (string, []any) {
	var args []any
	scans := make([]string, 0, len(sel.Attributes))
	for _, a := range sel.Attributes {
		cond, cargs := attrCond(a, "")
		args = append(append(args, sel.DomainID, a.ID), cargs...)
		scans = append(scans, "SELECT product_id FROM product_attributes WHERE domain_id = ? AND attribute_id = ? AND "+cond)
	}
	return strings.Join(scans, " INTERSECT "), args
}

// family builds the FROM of a family selector's child products: the scans
// joined with products, which keeps children only.
func family(sel compat.Selector) (string, []any) {
	scans, args := familyScans(sel)
	return " FROM (" + scans + ") f JOIN products p ON p.id = f.product_id AND p.parent_id IS NOT NULL", args
}

// FamilyProducts returns up to limit child products of a family.
func (s *Store) FamilyProducts(ctx context.Context, sel compat.Selector, limit int) ([]compat.Product, error) {
	if len(sel.Attributes) == 0 {
		return nil, nil
	}
	from, args := family(sel)
	var rs []productRow
	err := s.idb(ctx).NewRaw(`SELECT p.id, p.site_id, p.domain_id, p.name, p.parent_id`+from+` ORDER BY p.id LIMIT ?`,
		append(args, limit)...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("family products", err)
	}
	out := make([]compat.Product, len(rs))
	for i, r := range rs {
		out[i] = r.product()
	}
	return out, nil
}

// CountFamily counts the child products of a family as the matching
// products except the domain's parents, all in index-only scans: the
// covering (domain, attribute, value, product) indexes of
// product_attributes (a product's attribute rows carry its domain) and
// products_parents. Joining the matches with products to keep children
// cost a heap lookup per match instead (16 ms p50 at 10,000 matches;
// docs/performance.md).
func (s *Store) CountFamily(ctx context.Context, sel compat.Selector) (int, error) {
	if len(sel.Attributes) == 0 {
		return 0, nil
	}
	scans, args := familyScans(sel)
	// INTERSECT binds tighter than EXCEPT on PostgreSQL; SQLite reads them
	// left to right: both mean (scans) EXCEPT parents.
	q := `SELECT count(*) FROM (` + scans + ` EXCEPT SELECT id FROM products WHERE domain_id = ? AND parent_id IS NULL) f`
	var n int
	if err := s.idb(ctx).NewRaw(q, append(args, sel.DomainID)...).Scan(ctx, &n); err != nil {
		return 0, wrap("count family", err)
	}
	return n, nil
}

type compatRow struct {
	bun.BaseModel `bun:"table:compatibilities"`

	ID             string    `bun:"id,pk"`
	ItemID         string    `bun:"item_id"`
	DomainID       string    `bun:"domain_id"`
	ProductID      string    `bun:"product_id"`
	Source         string    `bun:"source"`
	CreationSource string    `bun:"creation_source"`
	Note           string    `bun:"note"`
	NoteStatus     string    `bun:"note_status"`
	Restrictions   string    `bun:"restrictions"`
	DateCreated    time.Time `bun:"date_created"`
	LastUpdated    time.Time `bun:"last_updated"`
	ProductName    string    `bun:"product_name,scanonly"`
}

func toRow(c compat.Compatibility) compatRow {
	rs := c.Restrictions
	if rs == nil {
		rs = []compat.Restriction{}
	}
	raw, _ := json.Marshal(rs)
	return compatRow{ID: c.ID, ItemID: c.ItemID, DomainID: c.DomainID, ProductID: c.ProductID, Source: c.Source,
		CreationSource: c.CreationSource, Note: c.Note, NoteStatus: c.NoteStatus, Restrictions: string(raw),
		DateCreated: c.DateCreated.UTC(), LastUpdated: c.LastUpdated.UTC()}
}

func (r compatRow) compat() (compat.Compatibility, error) {
	c := compat.Compatibility{ID: r.ID, ItemID: r.ItemID, DomainID: r.DomainID, ProductID: r.ProductID, ProductName: r.ProductName,
		Source: r.Source, CreationSource: r.CreationSource, Note: r.Note, NoteStatus: r.NoteStatus,
		DateCreated: r.DateCreated.UTC(), LastUpdated: r.LastUpdated.UTC()}
	if err := json.Unmarshal([]byte(r.Restrictions), &c.Restrictions); err != nil {
		return c, fmt.Errorf("compatdb: compatibility %s restrictions: %w", r.ID, err)
	}
	if c.Restrictions == nil {
		c.Restrictions = []compat.Restriction{}
	}
	return c, nil
}

const compatCols = `c.id, c.item_id, c.domain_id, c.product_id, c.source, c.creation_source, c.note, c.note_status,
	c.restrictions, c.date_created, c.last_updated, p.name AS product_name`

func rowsToCompat(rs []compatRow) ([]compat.Compatibility, error) {
	out := make([]compat.Compatibility, 0, len(rs))
	for _, r := range rs {
		c, err := r.compat()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Compatibilities lists an item's compatibilities by creation, then by
// vehicle (one request creates many at the same instant).
func (s *Store) Compatibilities(ctx context.Context, itemID string) ([]compat.Compatibility, error) {
	var rs []compatRow
	err := s.idb(ctx).NewRaw(`SELECT `+compatCols+` FROM compatibilities c JOIN products p ON p.id = c.product_id
		WHERE c.item_id = ? ORDER BY c.date_created, c.product_id`, itemID).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("compatibilities", err)
	}
	return rowsToCompat(rs)
}

// Compatibility reads one compatibility of an item.
func (s *Store) Compatibility(ctx context.Context, itemID, id string) (compat.Compatibility, error) {
	var r compatRow
	err := s.idb(ctx).NewRaw(`SELECT `+compatCols+` FROM compatibilities c JOIN products p ON p.id = c.product_id
		WHERE c.item_id = ? AND c.id = ?`, itemID, id).Scan(ctx, &r)
	if err != nil {
		return compat.Compatibility{}, wrap("compatibility", err)
	}
	return r.compat()
}

// AddCompatibilities inserts those whose vehicle the item does not have yet,
// in one multi-row insert.
func (s *Store) AddCompatibilities(ctx context.Context, cs []compat.Compatibility) ([]compat.Compatibility, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	byItem := map[string]map[string]bool{}
	for _, c := range cs {
		if byItem[c.ItemID] != nil {
			continue
		}
		var present []string
		if err := s.idb(ctx).NewRaw(`SELECT product_id FROM compatibilities WHERE item_id = ?`, c.ItemID).Scan(ctx, &present); err != nil {
			return nil, wrap("add compatibilities", err)
		}
		m := make(map[string]bool, len(present))
		for _, p := range present {
			m[p] = true
		}
		byItem[c.ItemID] = m
	}
	var added []compat.Compatibility
	var rows []compatRow
	for _, c := range cs {
		if byItem[c.ItemID][c.ProductID] {
			continue
		}
		byItem[c.ItemID][c.ProductID] = true
		added = append(added, c)
		rows = append(rows, toRow(c))
	}
	if len(rows) == 0 {
		return nil, nil
	}
	if _, err := s.idb(ctx).NewInsert().Model(&rows).Exec(ctx); err != nil {
		return nil, wrap("add compatibilities", err)
	}
	return added, nil
}

// UpdateCompatibility stores note, status and restrictions of c.
func (s *Store) UpdateCompatibility(ctx context.Context, c compat.Compatibility) error {
	r := toRow(c)
	res, err := s.idb(ctx).NewUpdate().Model(&r).Column("note", "note_status", "restrictions", "last_updated").WherePK().Exec(ctx)
	if err != nil {
		return wrap("update compatibility", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return wrap("update compatibility", compatport.ErrNotFound)
	}
	return nil
}

// SetNoteStatus moves a note to status when it is still note.
func (s *Store) SetNoteStatus(ctx context.Context, id, note, status string, at time.Time) (bool, error) {
	res, err := s.idb(ctx).NewRaw(`UPDATE compatibilities SET note_status = ?, last_updated = ? WHERE id = ? AND note = ?`,
		status, at.UTC(), id, note).Exec(ctx)
	if err != nil {
		return false, wrap("set note status", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// DeleteCompatibilities deletes ids of the item (all when ids is nil).
func (s *Store) DeleteCompatibilities(ctx context.Context, itemID string, ids []string) ([]string, error) {
	if ids != nil && len(ids) == 0 {
		return []string{}, nil
	}
	q := `SELECT id FROM compatibilities WHERE item_id = ?`
	args := []any{itemID}
	if ids != nil {
		q += ` AND id IN (?)`
		args = append(args, bun.In(ids))
	}
	var found []string
	if err := s.idb(ctx).NewRaw(q+` ORDER BY date_created, id`, args...).Scan(ctx, &found); err != nil {
		return nil, wrap("delete compatibilities", err)
	}
	if len(found) == 0 {
		return []string{}, nil
	}
	if _, err := s.idb(ctx).NewRaw(`DELETE FROM compatibilities WHERE item_id = ? AND id IN (?)`, itemID, bun.In(found)).Exec(ctx); err != nil {
		return nil, wrap("delete compatibilities", err)
	}
	return found, nil
}

type stateRow struct {
	bun.BaseModel `bun:"table:item_compat_state"`

	ItemID             string     `bun:"item_id,pk"`
	Universal          bool       `bun:"universal"`
	UniversalDomainIDs string     `bun:"universal_domain_ids"`
	HasException       bool       `bun:"has_exception"`
	ExceptionComment   string     `bun:"exception_comment"`
	ExceptionDate      *time.Time `bun:"exception_date"`
}

// State reads an item's state; the zero state when none is stored.
func (s *Store) State(ctx context.Context, itemID string) (compat.State, error) {
	var r stateRow
	err := s.idb(ctx).NewSelect().Model(&r).Where("item_id = ?", itemID).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return compat.State{ItemID: itemID, UniversalDomainIDs: []string{}}, nil
	}
	if err != nil {
		return compat.State{}, wrap("state", err)
	}
	st := compat.State{ItemID: r.ItemID, Universal: r.Universal, HasException: r.HasException,
		ExceptionComment: r.ExceptionComment, ExceptionDate: r.ExceptionDate}
	if err := json.Unmarshal([]byte(r.UniversalDomainIDs), &st.UniversalDomainIDs); err != nil {
		return st, fmt.Errorf("compatdb: state %s: %w", itemID, err)
	}
	if st.UniversalDomainIDs == nil {
		st.UniversalDomainIDs = []string{}
	}
	return st, nil
}

// PutState upserts an item's state.
func (s *Store) PutState(ctx context.Context, st compat.State) error {
	ids := st.UniversalDomainIDs
	if ids == nil {
		ids = []string{}
	}
	raw, _ := json.Marshal(ids)
	r := stateRow{ItemID: st.ItemID, Universal: st.Universal, UniversalDomainIDs: string(raw), HasException: st.HasException,
		ExceptionComment: st.ExceptionComment, ExceptionDate: st.ExceptionDate}
	_, err := s.idb(ctx).NewInsert().Model(&r).On("CONFLICT (item_id) DO UPDATE").
		Set("universal = EXCLUDED.universal").Set("universal_domain_ids = EXCLUDED.universal_domain_ids").
		Set("has_exception = EXCLUDED.has_exception").Set("exception_comment = EXCLUDED.exception_comment").
		Set("exception_date = EXCLUDED.exception_date").Exec(ctx)
	return wrap("put state", err)
}

type countRow struct {
	ID string `bun:"id"`
	N  int    `bun:"n"`
}

// Claims counts, per compatibility, the orders with a claim whose snapshot
// confirmed it.
func (s *Store) Claims(ctx context.Context, ids []string) (map[string]int, error) {
	out := map[string]int{}
	if len(ids) == 0 {
		return out, nil
	}
	var rs []countRow
	err := s.idb(ctx).NewRaw(`SELECT s.compatibility_id AS id, count(*) AS n FROM compat_snapshots s
		JOIN orders o ON o.id = s.order_id
		WHERE s.compatibility_id IN (?) AND s.status = ? AND o.has_claim = ?
		GROUP BY s.compatibility_id`, bun.In(ids), compat.Confirmed, true).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("claims", err)
	}
	for _, r := range rs {
		out[r.ID] = r.N
	}
	return out, nil
}

// Suggestions returns the vehicles of other active items sharing the item's
// catalog product or part number that the item lacks.
func (s *Store) Suggestions(ctx context.Context, it compat.Item) ([]compat.Product, error) {
	var conds []string
	args := []any{it.ID, "active"}
	if it.CatalogProductID != nil && *it.CatalogProductID != "" {
		conds = append(conds, "o.catalog_product_id = ?")
		args = append(args, *it.CatalogProductID)
	}
	if it.PartNumber != nil && *it.PartNumber != "" {
		conds = append(conds, "o.part_number = ?")
		args = append(args, *it.PartNumber)
	}
	if len(conds) == 0 {
		return []compat.Product{}, nil
	}
	args = append(args, it.ID)
	var rs []productRow
	err := s.idb(ctx).NewRaw(`SELECT DISTINCT p.id, p.site_id, p.domain_id, p.name, p.parent_id
		FROM items o JOIN compatibilities c ON c.item_id = o.id JOIN products p ON p.id = c.product_id
		WHERE o.id <> ? AND o.status = ? AND (`+strings.Join(conds, " OR ")+`)
		AND NOT EXISTS (SELECT 1 FROM compatibilities m WHERE m.item_id = ? AND m.product_id = c.product_id)
		ORDER BY p.id`, args...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("suggestions", err)
	}
	out := make([]compat.Product, len(rs))
	for i, r := range rs {
		out[i] = r.product()
	}
	return out, nil
}

type summaryRow struct {
	ItemID       string `bun:"item_id"`
	N            int    `bun:"n"`
	Notes        int    `bun:"notes"`
	Restrictions int    `bun:"restrictions"`
}

// Counts returns the summary counts per item.
func (s *Store) Counts(ctx context.Context, domainID string, itemIDs []string) (map[string]compat.Summary, error) {
	out := map[string]compat.Summary{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	dom, args := "", []any{bun.In(itemIDs)}
	if domainID != "" {
		dom = " AND c.domain_id = ?"
		args = append(args, domainID)
	}
	var rs []summaryRow
	err := s.idb(ctx).NewRaw(`SELECT c.item_id, count(*) AS n,
		SUM(CASE WHEN c.note <> '' THEN 1 ELSE 0 END) AS notes,
		SUM(CASE WHEN c.restrictions <> '[]' THEN 1 ELSE 0 END) AS restrictions
		FROM compatibilities c WHERE c.item_id IN (?)`+dom+` GROUP BY c.item_id`, args...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("counts", err)
	}
	for _, r := range rs {
		out[r.ItemID] = compat.Summary{ItemID: r.ItemID, Compatibility: r.N, Notes: r.Notes, Restrictions: r.Restrictions}
	}
	var cs []countRow
	err = s.idb(ctx).NewRaw(`SELECT c.item_id AS id, count(*) AS n FROM compat_snapshots s
		JOIN orders o ON o.id = s.order_id JOIN compatibilities c ON c.id = s.compatibility_id
		WHERE c.item_id IN (?)`+dom+` AND s.status = ? AND o.has_claim = ? GROUP BY c.item_id`,
		append(args, compat.Confirmed, true)...).Scan(ctx, &cs)
	if err != nil {
		return nil, wrap("counts", err)
	}
	for _, r := range cs {
		sm := out[r.ID]
		sm.Claims = r.N
		out[r.ID] = sm
	}
	return out, nil
}

type orderRow struct {
	ID       int64 `bun:"id"`
	SellerID int64 `bun:"seller_id"`
	HasClaim bool  `bun:"has_claim"`
}

// Order reads what the snapshot needs of an order.
func (s *Store) Order(ctx context.Context, id int64) (compat.Order, error) {
	var r orderRow
	if err := s.idb(ctx).NewRaw(`SELECT id, seller_id, has_claim FROM orders WHERE id = ?`, id).Scan(ctx, &r); err != nil {
		return compat.Order{}, wrap("order", err)
	}
	return compat.Order{ID: r.ID, SellerID: r.SellerID, HasClaim: r.HasClaim}, nil
}

type snapshotRow struct {
	bun.BaseModel `bun:"table:compat_snapshots"`

	OrderID              int64     `bun:"order_id,pk"`
	ItemID               string    `bun:"item_id"`
	SellerID             int64     `bun:"seller_id"`
	ProductID            string    `bun:"product_id"`
	UserSelection        *string   `bun:"user_selection"`
	Status               string    `bun:"status"`
	CompatibilityID      string    `bun:"compatibility_id"`
	Note                 string    `bun:"note"`
	Restrictions         string    `bun:"restrictions"`
	CompatibilityDeleted bool      `bun:"compatibility_deleted"`
	DateCreated          time.Time `bun:"date_created"`
	DateUpdated          time.Time `bun:"date_updated"`
}

// AddSnapshot stores a snapshot unless the order has one.
func (s *Store) AddSnapshot(ctx context.Context, sn compat.Snapshot) error {
	rs := sn.Restrictions
	if rs == nil {
		rs = []compat.Restriction{}
	}
	raw, _ := json.Marshal(rs)
	r := snapshotRow{OrderID: sn.OrderID, ItemID: sn.ItemID, SellerID: sn.SellerID, ProductID: sn.ProductID,
		Status: sn.Status, CompatibilityID: sn.CompatibilityID, Note: sn.Note, Restrictions: string(raw),
		CompatibilityDeleted: sn.CompatibilityDeleted, DateCreated: sn.DateCreated.UTC(), DateUpdated: sn.DateUpdated.UTC()}
	if sn.UserSelection != nil {
		u := string(sn.UserSelection)
		r.UserSelection = &u
	}
	_, err := s.idb(ctx).NewInsert().Model(&r).On("CONFLICT (order_id) DO NOTHING").Exec(ctx)
	return wrap("add snapshot", err)
}

// Snapshot reads an order's snapshot.
func (s *Store) Snapshot(ctx context.Context, orderID int64) (compat.Snapshot, error) {
	var r snapshotRow
	if err := s.idb(ctx).NewSelect().Model(&r).Where("order_id = ?", orderID).Scan(ctx); err != nil {
		return compat.Snapshot{}, wrap("snapshot", err)
	}
	sn := compat.Snapshot{OrderID: r.OrderID, ItemID: r.ItemID, SellerID: r.SellerID, ProductID: r.ProductID,
		Status: r.Status, CompatibilityID: r.CompatibilityID, Note: r.Note, CompatibilityDeleted: r.CompatibilityDeleted,
		DateCreated: r.DateCreated.UTC(), DateUpdated: r.DateUpdated.UTC()}
	if r.UserSelection != nil {
		sn.UserSelection = []byte(*r.UserSelection)
	}
	if err := json.Unmarshal([]byte(r.Restrictions), &sn.Restrictions); err != nil {
		return sn, fmt.Errorf("compatdb: snapshot %d: %w", orderID, err)
	}
	return sn, nil
}

// MarkSnapshotsDeleted flags the snapshots of deleted compatibilities.
func (s *Store) MarkSnapshotsDeleted(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := s.idb(ctx).NewRaw(`UPDATE compat_snapshots SET compatibility_deleted = ?, date_updated = ?
		WHERE compatibility_id IN (?) AND compatibility_deleted = ?`, true, at.UTC(), bun.In(ids), false).Exec(ctx)
	return wrap("mark snapshots deleted", err)
}

// MarkJobDone records a job id; false when it was recorded before.
func (s *Store) MarkJobDone(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := s.idb(ctx).NewRaw(`INSERT INTO compat_jobs (id, done_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING`, id, at.UTC()).Exec(ctx)
	if err != nil {
		return false, wrap("mark job done", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
