package compatdb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/compat"
)

type stateRow struct {
	bun.BaseModel `bun:"table:item_compat_state"`

	ItemID             string     `bun:"item_id,pk"`
	Universal          bool       `bun:"universal"`
	UniversalDomainIDs string     `bun:"universal_domain_ids"`
	HasException       bool       `bun:"has_exception"`
	ExceptionComment   string     `bun:"exception_comment"`
	ExceptionDate      *time.Time `bun:"exception_date"`
}

// LockItem locks the item's row until the transaction ends (PostgreSQL:
// SELECT ... FOR UPDATE). SQLite needs nothing more: its transactions begin
// IMMEDIATE (sqlstore.OpenSQLite), taking the database's write lock before
// their first read, so writers never interleave.
func (s *Store) LockItem(ctx context.Context, itemID string) error {
	if !sqlstore.IsPostgres(s.db) {
		return nil
	}
	var ids []string
	err := s.idb(ctx).NewSelect().Table("items").Column("id").Where("id = ?", itemID).For("UPDATE").Scan(ctx, &ids)
	return wrap("lock item", err)
}

// State reads an item's state; the zero state when none is stored.
func (s *Store) State(ctx context.Context, itemID string) (compat.State, error) {
	var r stateRow
	// Prepared once per connection: every read and write of an item's
	// compatibilities asks it.
	err := sqlstore.One(ctx, s.db, &r, `SELECT item_id, universal, universal_domain_ids, has_exception, exception_comment,
		exception_date FROM item_compat_state WHERE item_id = $1`, itemID)
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
