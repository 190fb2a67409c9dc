// Package fiscaldb stores fiscal documents through bun, and reads packs from
// the sales module's orders.
package fiscaldb

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/fiscal"
	"github.com/feria/feria/ports/fiscalport"
)

// Store implements the storage ports of the fiscal module.
type Store struct{ db bun.IDB }

var (
	_ fiscalport.Documents = (*Store)(nil)
	_ fiscalport.Packs     = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type docRow struct {
	bun.BaseModel `bun:"table:fiscal_documents"`

	ID          string    `bun:"id,pk"`
	PackID      int64     `bun:"pack_id"`
	SellerID    int64     `bun:"seller_id"`
	FileType    string    `bun:"file_type"`
	Filename    string    `bun:"filename"`
	ContentType string    `bun:"content_type"`
	Size        int64     `bun:"size"`
	BlobKey     string    `bun:"blob_key"`
	DateCreated time.Time `bun:"date_created"`
}

func (r docRow) doc() fiscal.Document {
	return fiscal.Document{ID: r.ID, PackID: r.PackID, SellerID: r.SellerID, FileType: fiscal.FileType(r.FileType),
		Filename: r.Filename, ContentType: r.ContentType, Size: r.Size, Key: r.BlobKey, DateCreated: r.DateCreated.UTC()}
}

// packRow marks a pack whose documents were removed (DeleteBySeller).
type packRow struct {
	bun.BaseModel `bun:"table:fiscal_packs"`

	PackID      int64     `bun:"pack_id,pk"`
	FirstUpload time.Time `bun:"first_upload"`
}

// ByPack returns the pack's documents, oldest first.
func (s *Store) ByPack(ctx context.Context, packID int64) ([]fiscal.Document, error) {
	var rows []docRow
	// Every read of a pack's documents (a download) asks it: prepared once
	// per connection.
	if err := sqlstore.All(ctx, s.db, &rows, `SELECT id, pack_id, seller_id, file_type, filename, content_type, size, blob_key,
		date_created FROM fiscal_documents WHERE pack_id = $1 ORDER BY date_created, file_type`, packID); err != nil {
		return nil, fmt.Errorf("fiscaldb: documents of pack %d: %w", packID, err)
	}
	out := make([]fiscal.Document, len(rows))
	for i, r := range rows {
		out[i] = r.doc()
	}
	return out, nil
}

// Add inserts documents; the unique (pack_id, file_type) index refuses a
// second document of a type, whatever the race.
func (s *Store) Add(ctx context.Context, docs []fiscal.Document) error {
	if len(docs) == 0 {
		return nil
	}
	rows := make([]docRow, len(docs))
	for i, d := range docs {
		rows[i] = docRow{ID: d.ID, PackID: d.PackID, SellerID: d.SellerID, FileType: string(d.FileType), Filename: d.Filename,
			ContentType: d.ContentType, Size: d.Size, BlobKey: d.Key, DateCreated: d.DateCreated}
	}
	db := sqlstore.IDB(ctx, s.db)
	if _, err := db.NewInsert().Model(&rows).Exec(ctx); err != nil {
		if sqlstore.IsUniqueViolation(err) {
			return fmt.Errorf("fiscaldb: add documents: %w", fiscalport.ErrConflict.Wrap(err))
		}
		return fmt.Errorf("fiscaldb: add documents: %w", err)
	}
	return nil
}

// DeleteBySeller removes the seller's documents of the pack.
func (s *Store) DeleteBySeller(ctx context.Context, packID, sellerID int64) ([]fiscal.Document, error) {
	var rows []docRow
	db := sqlstore.IDB(ctx, s.db)
	if err := db.NewSelect().Model(&rows).Where("pack_id = ? AND seller_id = ?", packID, sellerID).
		OrderExpr("date_created, file_type").Scan(ctx); err != nil {
		return nil, fmt.Errorf("fiscaldb: delete documents: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	ids := make([]string, len(rows))
	out := make([]fiscal.Document, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
		out[i] = r.doc()
	}
	if _, err := db.NewDelete().Model((*docRow)(nil)).Where("id IN (?)", bun.In(ids)).Exec(ctx); err != nil {
		return nil, fmt.Errorf("fiscaldb: delete documents: %w", err)
	}
	// The pack's mark is written when documents go, not when they come:
	// while a pack holds documents they say it did, and an upload (the hot
	// path) saves a statement. Packs marked by uploads of earlier versions
	// keep their marks.
	mark := packRow{PackID: packID, FirstUpload: out[0].DateCreated}
	if _, err := db.NewInsert().Model(&mark).On("CONFLICT (pack_id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("fiscaldb: mark pack: %w", err)
	}
	return out, nil
}

// Stored returns which of keys a document row names.
func (s *Store) Stored(ctx context.Context, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(keys) == 0 {
		return out, nil
	}
	var found []string
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model((*docRow)(nil)).Column("blob_key").Where("blob_key IN (?)", bun.In(keys)).Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("fiscaldb: stored keys: %w", err)
	}
	for _, k := range found {
		out[k] = true
	}
	return out, nil
}

// EverHad reports whether the pack ever held a document: it holds one, or
// its mark says its documents were removed.
func (s *Store) EverHad(ctx context.Context, packID int64) (bool, error) {
	var had bool
	err := sqlstore.IDB(ctx, s.db).QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM fiscal_packs WHERE pack_id = ?)
		OR EXISTS (SELECT 1 FROM fiscal_documents WHERE pack_id = ?)`, packID, packID).Scan(&had)
	if err != nil {
		return false, fmt.Errorf("fiscaldb: pack marker: %w", err)
	}
	return had, nil
}

type orderRow struct {
	bun.BaseModel `bun:"table:orders"`

	ID       int64  `bun:"id"`
	SiteID   string `bun:"site_id"`
	SellerID int64  `bun:"seller_id"`
	BuyerID  int64  `bun:"buyer_id"`
	Shipping string `bun:"shipping"`
}

// Pack reads the pack from its orders (the first by id speaks for the pack:
// a pack's orders share site, seller, buyer and shipment).
func (s *Store) Pack(ctx context.Context, id int64) (fiscal.Pack, error) {
	var rows []orderRow
	// Every fiscal request starts here: prepared once per connection.
	if err := sqlstore.All(ctx, s.db, &rows, `SELECT id, site_id, seller_id, buyer_id, shipping FROM orders
		WHERE pack = $1 ORDER BY id LIMIT 1`, id); err != nil {
		return fiscal.Pack{}, fmt.Errorf("fiscaldb: pack %d: %w", id, err)
	}
	if len(rows) == 0 {
		return fiscal.Pack{}, fmt.Errorf("fiscaldb: pack %d: %w", id, fiscalport.ErrPackNotFound)
	}
	return rows[0].pack(id)
}

// pack is the pack whose first order r is.
func (r orderRow) pack(id int64) (fiscal.Pack, error) {
	var ship struct {
		LogisticType string `json:"logistic_type"`
	}
	if r.Shipping != "" {
		if err := json.Unmarshal([]byte(r.Shipping), &ship); err != nil {
			return fiscal.Pack{}, fmt.Errorf("fiscaldb: pack %d shipping: %w", id, err)
		}
	}
	return fiscal.Pack{ID: id, SiteID: r.SiteID, SellerID: r.SellerID, BuyerID: r.BuyerID, LogisticType: ship.LogisticType}, nil
}

// withDocumentsSQL is the pack's first order joined to every document of
// the pack (none: one row of NULLs read as empty), oldest first.
const withDocumentsSQL = `SELECT o.site_id, o.seller_id, o.buyer_id, o.shipping, COALESCE(d.id, ''), COALESCE(d.seller_id, 0),
	COALESCE(d.file_type, ''), COALESCE(d.filename, ''), COALESCE(d.content_type, ''), COALESCE(d.size, 0),
	COALESCE(d.blob_key, ''), d.date_created
	FROM (SELECT site_id, seller_id, buyer_id, shipping FROM orders WHERE pack = $1 ORDER BY id LIMIT 1) AS o
	LEFT JOIN fiscal_documents AS d ON d.pack_id = $1
	ORDER BY d.date_created, d.file_type`

// WithDocuments reads the pack as Pack does and its documents as ByPack
// does, in one statement (scanned by hand: every upload, list and download
// asks it).
func (s *Store) WithDocuments(ctx context.Context, id int64) (fiscal.Pack, []fiscal.Document, error) {
	var (
		o       orderRow
		r       docRow
		created sqlstore.Time
		found   bool
		docs    []fiscal.Document
	)
	dest := []any{&o.SiteID, &o.SellerID, &o.BuyerID, &o.Shipping, &r.ID, &r.SellerID, &r.FileType, &r.Filename,
		&r.ContentType, &r.Size, &r.BlobKey, &created}
	err := sqlstore.EachReplanned(ctx, s.db, dest, func() error {
		found = true
		if r.ID != "" {
			r.PackID, r.DateCreated = id, created.Time
			docs = append(docs, r.doc())
		}
		return nil
	}, withDocumentsSQL, id)
	if err != nil {
		return fiscal.Pack{}, nil, fmt.Errorf("fiscaldb: pack %d with its documents: %w", id, err)
	}
	if !found {
		return fiscal.Pack{}, nil, fmt.Errorf("fiscaldb: pack %d: %w", id, fiscalport.ErrPackNotFound)
	}
	p, err := o.pack(id)
	if docs == nil {
		docs = []fiscal.Document{}
	}
	return p, docs, err
}
