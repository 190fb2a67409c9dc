package sqlstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"
)

// Schema is the PostgreSQL schema of the named part of db (a world): its
// current schema's name, "world_" and the name with '-' as '_' ("public"
// gives world_ci_42). A name that would pass PostgreSQL's 63 bytes is
// hashed instead, after a double '_' that no name maps to.
func Schema(ctx context.Context, db *bun.DB, name string) (string, error) {
	var current string
	if err := db.NewRaw("SELECT current_schema()").Scan(ctx, &current); err != nil {
		return "", fmt.Errorf("postgres: current schema: %w", err)
	}
	lead := "world_"
	if current != "public" {
		lead = current + "_world_"
	}
	if s := lead + strings.ReplaceAll(name, "-", "_"); len(s) <= 63 {
		return s, nil
	}
	sum := sha256.Sum256([]byte(current + "\x00" + name))
	return "world__" + hex.EncodeToString(sum[:])[:40], nil
}

// OpenSchema opens a pool of conns connections to db's server as db
// connects to it, but with schema alone as its search_path: whatever runs
// on it names no table of another schema. The schema must exist.
func OpenSchema(ctx context.Context, db *bun.DB, schema string, conns int) (*bun.DB, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	defer c.Close()
	var cfg *pgx.ConnConfig
	err = c.Raw(func(dc any) error {
		pc, ok := dc.(*conn)
		if !ok {
			return fmt.Errorf("postgres: a %T is not a connection of OpenPostgres", dc)
		}
		cfg = pc.cn.Conn().Config().Copy()
		return nil
	})
	if err != nil {
		return nil, err
	}
	cfg.RuntimeParams["search_path"] = schema
	return openPostgres(ctx, cfg, conns)
}

// CreateSchema makes schema in db's database unless it exists.
func CreateSchema(ctx context.Context, db *bun.DB, schema string) error {
	_, err := db.ExecContext(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	return err
}

// DropSchema removes schema and everything in it; an absent one is fine.
func DropSchema(ctx context.Context, db *bun.DB, schema string) error {
	_, err := db.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// SQLiteDir is the directory of db's main database file.
func SQLiteDir(ctx context.Context, db *bun.DB) (string, error) {
	rows, err := db.QueryContext(ctx, "PRAGMA database_list")
	if err != nil {
		return "", fmt.Errorf("sqlite: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq int
		var name string
		var file sql.NullString
		if err := rows.Scan(&seq, &name, &file); err != nil {
			return "", fmt.Errorf("sqlite: %w", err)
		}
		if name == "main" {
			if file.String == "" {
				return "", fmt.Errorf("sqlite: the database is in memory, not in a file")
			}
			return filepath.Dir(file.String), rows.Err()
		}
	}
	return "", fmt.Errorf("sqlite: no main database")
}
