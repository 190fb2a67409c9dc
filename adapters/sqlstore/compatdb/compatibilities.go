package compatdb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

type compatRow struct {
	bun.BaseModel `bun:"table:compatibilities,alias:c"`

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
	Claims         int       `bun:"claims,scanonly"`
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
	if r.Restrictions == "[]" { // most have none: nothing to decode
		c.Restrictions = []compat.Restriction{}
		return c, nil
	}
	if err := json.Unmarshal([]byte(r.Restrictions), &c.Restrictions); err != nil {
		return c, fmt.Errorf("compatdb: compatibility %s restrictions: %w", r.ID, err)
	}
	if c.Restrictions == nil {
		c.Restrictions = []compat.Restriction{}
	}
	return c, nil
}

// withProductName selects compatibilities with their vehicle's name (kept
// on each row by triggers: migration 20261125000200).
func (s *Store) withProductName(ctx context.Context, model any) *bun.SelectQuery {
	return s.idb(ctx).NewSelect().Model(model).ColumnExpr("c.*")
}

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

// listSQL lists an item's compatibilities with their vehicle's name by
// creation, then by vehicle (one request creates many at the same
// instant); %[1]s is the claims column, %[2]s what it joins, %[3]s more
// conditions. A hot read (the list of up to thousands of rows), prepared
// once per connection.
const listSQL = `SELECT c.id, c.item_id, c.domain_id, c.product_id, c.source, c.creation_source, c.note, c.note_status,
	c.restrictions, c.date_created, c.last_updated, c.product_name, %[1]s AS claims
	FROM compatibilities AS c %[2]s
	WHERE c.item_id = $1%[3]s ORDER BY c.date_created, c.product_id`

var (
	compatibilitiesSQL = fmt.Sprintf(listSQL, "0", "", "")
	// listedSQL counts, per compatibility, the orders with a claim whose
	// snapshot confirmed it (one grouped read of the item's snapshots: a
	// confirmed snapshot is of the item of its compatibility), and reads
	// nothing when $2 is the item's version (the list cache holds that
	// version's rows): an uncorrelated condition, evaluated once before
	// the scan.
	listedSQL = fmt.Sprintf(listSQL, "COALESCE(cl.n, 0)", `LEFT JOIN (SELECT s.compatibility_id, count(*) AS n FROM compat_snapshots s JOIN orders o ON o.id = s.order_id
		WHERE s.item_id = $1 AND s.status = '`+compat.Confirmed+`' AND o.has_claim GROUP BY s.compatibility_id) AS cl
	ON cl.compatibility_id = c.id`, `
		AND NOT EXISTS (SELECT 1 FROM compat_versions WHERE item_id = $1 AND v = $2 AND $2 <> 0)`)
)

// Compatibilities lists an item's compatibilities by creation, then by
// vehicle.
func (s *Store) Compatibilities(ctx context.Context, itemID string) ([]compat.Compatibility, error) {
	var rs []compatRow
	if err := sqlstore.All(ctx, s.db, &rs, compatibilitiesSQL, itemID); err != nil {
		return nil, wrap("compatibilities", err)
	}
	return rowsToCompat(rs)
}

// listingSQL is the list of an item's compatibilities with its seller,
// universal state and list version in one round trip: the item's row joined
// to its state, its version and every compatibility with its claims
// (listedSQL; none when $2 is the version), NULLs of an item with none read
// as empty. One of the hottest reads: scanned by hand, column by
// column, where bun's scanner spent a quarter of the request.
var listingSQL = `SELECT i.seller_id, COALESCE(st.universal, false), COALESCE(st.universal_domain_ids, '[]'), COALESCE(v.v, 0),
	COALESCE(c.id, ''), COALESCE(c.item_id, ''), COALESCE(c.domain_id, ''), COALESCE(c.product_id, ''),
	COALESCE(c.source, ''), COALESCE(c.creation_source, ''), COALESCE(c.note, ''), COALESCE(c.note_status, ''),
	COALESCE(c.restrictions, '[]'), c.date_created, c.last_updated, COALESCE(c.product_name, ''), COALESCE(c.claims, 0)
	FROM items AS i LEFT JOIN item_compat_state AS st ON st.item_id = i.id
	LEFT JOIN compat_versions AS v ON v.item_id = i.id
	LEFT JOIN (` + listedSQL + `) AS c ON true
	WHERE i.id = $1 ORDER BY c.date_created, c.product_id`

// Listing reads the item's seller, its universal domains when universal,
// and its compatibilities as Compatibilities lists them, each with its
// Claims, in one statement; the compatibilities come from the list cache
// when the item's version is the one it holds. Inside a transaction the
// cache is neither read nor written (uncommitted rows are no version).
// The compatibilities may be shared with other reads: read-only.
func (s *Store) Listing(ctx context.Context, itemID string) (compatport.Listing, error) {
	var l compatport.Listing
	_, cacheable := sqlstore.Outside(ctx, s.db)
	var kept listed
	if cacheable {
		kept = s.lists.get(itemID)
	}
	var (
		universal bool
		domains   string
		version   int64
		r         compatRow
		created   sqlstore.Time
		updated   sqlstore.Time
		found     bool
	)
	dest := []any{&l.SellerID, &universal, &domains, &version, &r.ID, &r.ItemID, &r.DomainID, &r.ProductID, &r.Source,
		&r.CreationSource, &r.Note, &r.NoteStatus, &r.Restrictions, &created, &updated, &r.ProductName, &r.Claims}
	err := sqlstore.Each(ctx, s.db, dest, func() error {
		found = true
		if r.ID == "" { // the item's one row when it has no compatibility, or they are kept
			return nil
		}
		r.DateCreated, r.LastUpdated = created.Time, updated.Time
		c, err := r.compat()
		l.Compatibilities = append(l.Compatibilities, compatport.Claimed{Compatibility: c, Claims: r.Claims})
		return err
	}, listingSQL, itemID, kept.version)
	if err != nil {
		return l, wrap("listing", err)
	}
	switch {
	case !found:
		return l, compatport.ErrNotFound
	case version != 0 && version == kept.version:
		l.Compatibilities, l.Derived = kept.cs, kept.derived
	case version != 0 && cacheable:
		l.Derived = s.lists.put(itemID, version, l.Compatibilities)
	}
	if universal {
		if err := json.Unmarshal([]byte(domains), &l.UniversalDomainIDs); err != nil {
			return l, fmt.Errorf("compatdb: state %s: %w", itemID, err)
		}
		if l.UniversalDomainIDs == nil {
			l.UniversalDomainIDs = []string{}
		}
	}
	return l, nil
}

// Compatibility reads one compatibility of an item.
func (s *Store) Compatibility(ctx context.Context, itemID, id string) (compat.Compatibility, error) {
	var r compatRow
	err := s.withProductName(ctx, &r).Where("c.item_id = ?", itemID).Where("c.id = ?", id).Scan(ctx)
	if err != nil {
		return compat.Compatibility{}, wrap("compatibility", err)
	}
	return r.compat()
}

// AddCompatibilities inserts those whose vehicle the item does not have
// yet, in one multi-row insert that skips what is stored (ON CONFLICT DO
// NOTHING on the (item, product) unique index) and returns the ids it
// inserted: two requests adding the same vehicle at once both succeed and
// only one counts it, where a read-then-insert let the second fail on the
// index.
func (s *Store) AddCompatibilities(ctx context.Context, cs []compat.Compatibility) ([]compat.Compatibility, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	type key struct{ item, product string }
	seen := make(map[key]bool, len(cs))
	rows := make([]compatRow, 0, len(cs))
	for _, c := range cs {
		if k := (key{c.ItemID, c.ProductID}); !seen[k] {
			seen[k] = true
			rows = append(rows, toRow(c))
		}
	}
	var ids []string
	err := s.idb(ctx).NewInsert().Model(&rows).On("CONFLICT (item_id, product_id) DO NOTHING").Returning("id").Scan(ctx, &ids)
	if err != nil && !sqlstore.IsNoRows(err) {
		return nil, wrap("add compatibilities", err)
	}
	inserted := make(map[string]bool, len(ids))
	for _, id := range ids {
		inserted[id] = true
	}
	var added []compat.Compatibility
	for _, c := range cs {
		if inserted[c.ID] {
			delete(inserted, c.ID) // a compatibility is added once
			added = append(added, c)
		}
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
	res, err := s.idb(ctx).NewUpdate().Model((*compatRow)(nil)).Set("note_status = ?", status).Set("last_updated = ?", at.UTC()).
		Where("id = ?", id).Where("note = ?", note).Exec(ctx)
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
	q := s.idb(ctx).NewSelect().Model((*compatRow)(nil)).Column("id").Where("item_id = ?", itemID)
	if ids != nil {
		q = q.Where("id IN (?)", bun.In(ids))
	}
	var found []string
	if err := q.Order("date_created", "id").Scan(ctx, &found); err != nil {
		return nil, wrap("delete compatibilities", err)
	}
	if len(found) == 0 {
		return []string{}, nil
	}
	if _, err := s.idb(ctx).NewDelete().Model((*compatRow)(nil)).Where("item_id = ?", itemID).Where("id IN (?)", bun.In(found)).Exec(ctx); err != nil {
		return nil, wrap("delete compatibilities", err)
	}
	return found, nil
}
