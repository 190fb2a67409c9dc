// Package compatdb implements compatport.Store on bun, for PostgreSQL and
// SQLite: compatibilities, item states, order snapshots and done copy jobs,
// and the reads of other modules' tables (items, categories, domains,
// products, orders) the rules need.
package compatdb

import (
	"context"
	"fmt"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/ports/compatport"
)

// Store implements compatport.Store.
type Store struct {
	db     bun.IDB
	lists  *listCache
	counts *lru.Cache[string, counted]
}

var _ compatport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db, lists: newListCache(), counts: newCountCache()} }

func (s *Store) idb(ctx context.Context) bun.IDB { return sqlstore.IDB(ctx, s.db) }

// wrap names the failing operation and maps no rows to
// compatport.ErrNotFound, which the service turns into the contract's 404s.
func wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if sqlstore.IsNoRows(err) {
		return fmt.Errorf("compatdb: %s: %w", op, compatport.ErrNotFound)
	}
	return fmt.Errorf("compatdb: %s: %w", op, err)
}
