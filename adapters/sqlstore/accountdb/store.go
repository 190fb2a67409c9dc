// Package accountdb stores users and hashed tokens through bun.
package accountdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/account"
	"github.com/feria/feria/ports/accountport"
)

// Store implements the account ports on bun.
type Store struct {
	db   bun.IDB
	held *Held // nil: every token is read (Holding)
}

var (
	_ accountport.Users  = (*Store)(nil)
	_ accountport.Tokens = (*Store)(nil)
	_ accountport.Codes  = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type userRow struct {
	bun.BaseModel `bun:"table:users"`
	account.User
}

type tokenRow struct {
	bun.BaseModel `bun:"table:tokens"`

	Hash      string     `bun:"hash,pk"`
	UserID    int64      `bun:"user_id"`
	AppID     int64      `bun:"app_id,nullzero"` // NULL: no application
	ExpiresAt time.Time  `bun:"expires_at"`
	RevokedAt *time.Time `bun:"revoked_at"`
}

func (r tokenRow) token() account.Token {
	return account.Token{Hash: r.Hash, UserID: r.UserID, AppID: r.AppID, ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt}
}

type refreshRow struct {
	bun.BaseModel `bun:"table:refresh_tokens"`

	UserID int64  `bun:"user_id,pk"`
	AppID  int64  `bun:"app_id,pk"` // 0: tokens without an application
	Hash   string `bun:"hash"`
}

// UpsertUser stores a user, replacing any with the same id; the creation
// date of an existing user is kept.
func (s *Store) UpsertUser(ctx context.Context, u account.User) error {
	row := userRow{User: u}
	if row.Tags == nil {
		row.Tags = []string{}
	}
	_, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).
		On("CONFLICT (id) DO UPDATE").
		Set("nickname = EXCLUDED.nickname, site_id = EXCLUDED.site_id, user_type = EXCLUDED.user_type, reputation = EXCLUDED.reputation, tags = EXCLUDED.tags, messaging_allowed = EXCLUDED.messaging_allowed").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("accountdb: upsert user %d: %w", u.ID, err)
	}
	s.changed(ctx) // a held token carries its user's site
	return nil
}

// User returns a user or accountport.ErrNotFound.
func (s *Store) User(ctx context.Context, id int64) (account.User, error) {
	var row userRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return account.User{}, fmt.Errorf("accountdb: user %d: %w", id, accountport.ErrNotFound)
	}
	if err != nil {
		return account.User{}, fmt.Errorf("accountdb: user %d: %w", id, err)
	}
	return row.User, nil
}

// Users returns the stored users among ids in one query.
func (s *Store) Users(ctx context.Context, ids []int64) ([]account.User, error) {
	if len(ids) == 0 {
		return []account.User{}, nil
	}
	var rows []userRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("accountdb: users %v: %w", ids, err)
	}
	out := make([]account.User, len(rows))
	for i, r := range rows {
		out[i] = r.User
	}
	return out, nil
}

// AddToken stores a token; re-adding the same value renews it, which lets a
// fixture name a fixed token again after it expired.
func (s *Store) AddToken(ctx context.Context, t account.Token) error {
	row := tokenRow{Hash: t.Hash, UserID: t.UserID, AppID: t.AppID, ExpiresAt: t.ExpiresAt, RevokedAt: t.RevokedAt}
	_, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).
		On("CONFLICT (hash) DO UPDATE").
		Set("user_id = EXCLUDED.user_id, app_id = EXCLUDED.app_id, expires_at = EXCLUDED.expires_at, revoked_at = NULL").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("accountdb: add token: %w", err)
	}
	s.changed(ctx) // a renewed token may be held with its old expiry
	return nil
}

// Token returns a token by hash with the site of its user: the one held
// (Holding) when it is, outside a transaction.
func (s *Store) Token(ctx context.Context, hash string) (account.Token, string, error) {
	if s.held == nil {
		return s.token(ctx, hash)
	}
	if _, outside := sqlstore.Outside(ctx, s.db); !outside {
		return s.token(ctx, hash)
	}
	held, found, gen, keep := s.held.get(hash)
	if found {
		return held.token, held.site, nil
	}
	read := time.Now()
	t, site, err := s.token(ctx, hash)
	if err == nil && keep {
		s.held.put(gen, hash, heldToken{token: t, site: site, read: read})
	}
	return t, site, err
}

func (s *Store) token(ctx context.Context, hash string) (account.Token, string, error) {
	var out struct {
		tokenRow
		SiteID string `bun:"site_id"`
	}
	// Every authenticated request asks it: prepared once per connection.
	err := sqlstore.One(ctx, s.db, &out, `SELECT t.hash, t.user_id, t.app_id, t.expires_at, t.revoked_at, u.site_id
		FROM tokens AS t JOIN users AS u ON u.id = t.user_id WHERE t.hash = $1`, hash)
	if sqlstore.IsNoRows(err) {
		return account.Token{}, "", fmt.Errorf("accountdb: token: %w", accountport.ErrNotFound)
	}
	if err != nil {
		return account.Token{}, "", fmt.Errorf("accountdb: token: %w", err)
	}
	return out.token(), out.SiteID, nil
}

// RevokeToken marks a token revoked.
func (s *Store) RevokeToken(ctx context.Context, hash string, at time.Time) error {
	res, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*tokenRow)(nil)).
		Set("revoked_at = ?", at).Where("hash = ?", hash).Exec(ctx)
	if err != nil {
		return fmt.Errorf("accountdb: revoke token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("accountdb: revoke token: %w", accountport.ErrNotFound)
	}
	s.changed(ctx)
	return nil
}

// SetRefresh keeps one refresh token per user and application: the newest.
func (s *Store) SetRefresh(ctx context.Context, userID, appID int64, hash string) error {
	row := refreshRow{UserID: userID, AppID: appID, Hash: hash}
	_, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).
		On("CONFLICT (user_id, app_id) DO UPDATE").Set("hash = EXCLUDED.hash").Exec(ctx)
	if err != nil {
		return fmt.Errorf("accountdb: set refresh token: %w", err)
	}
	return nil
}

// Refresh returns the user and application of a refresh token.
func (s *Store) Refresh(ctx context.Context, hash string) (int64, int64, error) {
	var row refreshRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("hash = ?", hash).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return 0, 0, fmt.Errorf("accountdb: refresh token: %w", accountport.ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("accountdb: refresh token: %w", err)
	}
	return row.UserID, row.AppID, nil
}

// TakeRefresh deletes the refresh token and returns its user and
// application, in one statement so that two concurrent refreshes cannot
// both succeed.
func (s *Store) TakeRefresh(ctx context.Context, hash string) (int64, int64, error) {
	var row refreshRow
	err := sqlstore.IDB(ctx, s.db).NewDelete().Model((*refreshRow)(nil)).
		Where("hash = ?", hash).Returning("user_id, app_id").Scan(ctx, &row.UserID, &row.AppID)
	if sqlstore.IsNoRows(err) {
		return 0, 0, fmt.Errorf("accountdb: refresh token: %w", accountport.ErrNotFound)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("accountdb: refresh token: %w", err)
	}
	return row.UserID, row.AppID, nil
}

// SiteUsers lists up to limit users of a site, by id.
func (s *Store) SiteUsers(ctx context.Context, siteID string, limit int) ([]account.User, error) {
	var rows []userRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("site_id = ?", siteID).
		OrderExpr("id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("accountdb: users of site %s: %w", siteID, err)
	}
	out := make([]account.User, len(rows))
	for i, r := range rows {
		out[i] = r.User
	}
	return out, nil
}

type codeRow struct {
	bun.BaseModel `bun:"table:oauth_codes"`

	Hash        string     `bun:"hash,pk"`
	AppID       int64      `bun:"app_id"`
	UserID      int64      `bun:"user_id"`
	RedirectURI string     `bun:"redirect_uri"`
	Challenge   string     `bun:"challenge"`
	Method      string     `bun:"method"`
	ExpiresAt   time.Time  `bun:"expires_at"`
	UsedAt      *time.Time `bun:"used_at"`
}

// AddCode stores an authorization code.
func (s *Store) AddCode(ctx context.Context, c account.AuthCode) error {
	row := codeRow{Hash: c.Hash, AppID: c.AppID, UserID: c.UserID, RedirectURI: c.RedirectURI,
		Challenge: c.Challenge, Method: c.Method, ExpiresAt: c.ExpiresAt}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("accountdb: add code: %w", err)
	}
	return nil
}

// Code returns an unused code or accountport.ErrNotFound.
func (s *Store) Code(ctx context.Context, hash string) (account.AuthCode, error) {
	var row codeRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("hash = ?", hash).Where("used_at IS NULL").Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return account.AuthCode{}, fmt.Errorf("accountdb: code: %w", accountport.ErrNotFound)
	}
	if err != nil {
		return account.AuthCode{}, fmt.Errorf("accountdb: code: %w", err)
	}
	return account.AuthCode{Hash: row.Hash, AppID: row.AppID, UserID: row.UserID, RedirectURI: row.RedirectURI,
		Challenge: row.Challenge, Method: row.Method, ExpiresAt: row.ExpiresAt}, nil
}

// TakeCode marks the code used in one conditional UPDATE: of two exchanges
// at once, only one changes the row.
func (s *Store) TakeCode(ctx context.Context, hash string, now time.Time) error {
	res, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*codeRow)(nil)).Set("used_at = ?", now).
		Where("hash = ?", hash).Where("used_at IS NULL").Where("expires_at > ?", now).Exec(ctx)
	if err != nil {
		return fmt.Errorf("accountdb: take code: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("accountdb: take code: %w", accountport.ErrNotFound)
	}
	return nil
}
