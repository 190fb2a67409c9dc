// Package worldsdb is the registry of worlds, a table of the default
// world's database.
package worldsdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/worlds"
	"github.com/feria/feria/ports/worldsport"
)

// Store implements worldsport.Registry.
type Store struct{ db *bun.DB }

var _ worldsport.Registry = (*Store)(nil)

// New returns the registry in db.
func New(db *bun.DB) *Store { return &Store{db: db} }

type worldRow struct {
	bun.BaseModel `bun:"table:worlds"`

	Name       string    `bun:"name,pk"`
	SandboxKey string    `bun:"sandbox_key"`
	CreatedAt  time.Time `bun:"created_at"`
	LastUsedAt time.Time `bun:"last_used_at"`
}

func (r worldRow) world() worlds.World {
	return worlds.World{Name: r.Name, SandboxKey: r.SandboxKey, CreatedAt: r.CreatedAt.UTC(), LastUsedAt: r.LastUsedAt.UTC()}
}

// Create counts and inserts in one transaction that holds the registry's
// lock on PostgreSQL (a transaction-scoped advisory lock), so that
// processes creating at once never pass max between them; SQLite's
// transactions already take its one write lock first (_txlock=immediate).
func (s *Store) Create(ctx context.Context, w worlds.World, max int) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if sqlstore.IsPostgres(s.db) {
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended('feria:worlds:' || coalesce(current_schema(), ''), 0))"); err != nil {
				return err
			}
		}
		exists, err := tx.NewSelect().Model((*worldRow)(nil)).Where("name = ?", w.Name).Exists(ctx)
		if err != nil {
			return err
		}
		if exists {
			return worldsport.ErrExists
		}
		if max > 0 {
			n, err := tx.NewSelect().Model((*worldRow)(nil)).Count(ctx)
			if err != nil {
				return err
			}
			if n >= int64(max) {
				return worldsport.ErrFull
			}
		}
		r := worldRow{Name: w.Name, SandboxKey: w.SandboxKey, CreatedAt: w.CreatedAt, LastUsedAt: w.LastUsedAt}
		_, err = tx.NewInsert().Model(&r).Exec(ctx)
		if sqlstore.IsUniqueViolation(err) {
			return worldsport.ErrExists
		}
		return err
	})
	if err != nil && err != worldsport.ErrExists && err != worldsport.ErrFull {
		return fmt.Errorf("worldsdb: create: %w", err)
	}
	return err
}

// SetKey replaces the world's key.
func (s *Store) SetKey(ctx context.Context, name, key string) error {
	res, err := s.db.NewUpdate().Model((*worldRow)(nil)).Set("sandbox_key = ?", key).Where("name = ?", name).Exec(ctx)
	return affected("set key", res, err)
}

// Get reads one world.
func (s *Store) Get(ctx context.Context, name string) (worlds.World, error) {
	var r worldRow
	err := s.db.NewSelect().Model(&r).Where("name = ?", name).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return worlds.World{}, worldsport.ErrNotFound
	}
	if err != nil {
		return worlds.World{}, fmt.Errorf("worldsdb: get: %w", err)
	}
	return r.world(), nil
}

// List reads a page by name and the count of all.
func (s *Store) List(ctx context.Context, p paging.Request) ([]worlds.World, int, error) {
	var rows []worldRow
	total, err := s.db.NewSelect().Model(&rows).Order("name").Limit(int64(p.Limit)).Offset(int64(p.Offset)).ScanAndCount(ctx)
	if err != nil && !sqlstore.IsNoRows(err) {
		return nil, 0, fmt.Errorf("worldsdb: list: %w", err)
	}
	out := make([]worlds.World, len(rows))
	for i, r := range rows {
		out[i] = r.world()
	}
	return out, int(total), nil
}

// Delete removes the world's row.
func (s *Store) Delete(ctx context.Context, name string) error {
	res, err := s.db.NewDelete().Model((*worldRow)(nil)).Where("name = ?", name).Exec(ctx)
	return affected("delete", res, err)
}

// Touch moves the world's last use forward.
func (s *Store) Touch(ctx context.Context, name string, at time.Time) error {
	_, err := s.db.NewUpdate().Model((*worldRow)(nil)).Set("last_used_at = ?", at).
		Where("name = ?", name).Where("last_used_at < ?", at).Exec(ctx)
	if err != nil {
		return fmt.Errorf("worldsdb: touch: %w", err)
	}
	return nil
}

// Idle names the worlds last used before before.
func (s *Store) Idle(ctx context.Context, before time.Time) ([]string, error) {
	var names []string
	err := s.db.NewSelect().Model((*worldRow)(nil)).Column("name").Where("last_used_at < ?", before).Order("name").Scan(ctx, &names)
	if err != nil && !sqlstore.IsNoRows(err) {
		return nil, fmt.Errorf("worldsdb: idle: %w", err)
	}
	return names, nil
}

func affected(what string, res interface{ RowsAffected() (int64, error) }, err error) error {
	if err != nil {
		return fmt.Errorf("worldsdb: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("worldsdb: %s: %w", what, err)
	}
	if n == 0 {
		return worldsport.ErrNotFound
	}
	return nil
}
