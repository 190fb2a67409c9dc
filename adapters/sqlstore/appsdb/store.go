// Package appsdb stores integrators' applications through bun: the
// application as put, and its topics and grants as rows the subscribers of
// a change are found by.
package appsdb

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/ports/appsport"
)

// Store implements appsport.Store on bun.
type Store struct{ db bun.IDB }

var _ appsport.Store = (*Store)(nil)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type appRow struct {
	bun.BaseModel `bun:"table:applications"`

	ID            int64    `bun:"id,pk"`
	Name          string   `bun:"name"`
	OwnerID       int64    `bun:"owner_id"`
	ClientSecret  string   `bun:"client_secret"`
	CallbackURL   string   `bun:"callback_url"`
	Topics        []string `bun:"topics,type:jsonb"`
	Users         []int64  `bun:"users,type:jsonb"`
	AckTimeoutMS  int64    `bun:"ack_timeout_ms"`
	RetryDelaysMS []int64  `bun:"retry_delays_ms,type:jsonb"` // NULL: the default schedule
}

type grantRow struct {
	bun.BaseModel `bun:"table:application_grants"`

	AppID  int64 `bun:"app_id,pk"`
	UserID int64 `bun:"user_id,pk"`
}

// redirectRow is one redirect URI of an application, in its place.
type redirectRow struct {
	bun.BaseModel `bun:"table:application_redirect_uris"`

	AppID    int64  `bun:"app_id,pk"`
	Position int    `bun:"position,pk"`
	URI      string `bun:"uri"`
}

type topicRow struct {
	bun.BaseModel `bun:"table:application_topics"`

	AppID int64  `bun:"app_id,pk"`
	Topic string `bun:"topic,pk"`
}

func (r appRow) app() apps.Application {
	return apps.Application{ID: r.ID, Name: r.Name, OwnerID: r.OwnerID, ClientSecret: r.ClientSecret,
		CallbackURL: r.CallbackURL, Topics: r.Topics, Users: r.Users, AckTimeoutMS: r.AckTimeoutMS, RetryDelaysMS: r.RetryDelaysMS}
}

// Upsert stores an application and replaces its topics and grants, in one
// transaction.
func (s *Store) Upsert(ctx context.Context, a apps.Application) error {
	row := appRow{ID: a.ID, Name: a.Name, OwnerID: a.OwnerID, ClientSecret: a.ClientSecret, CallbackURL: a.CallbackURL,
		Topics: a.Topics, Users: a.Users, AckTimeoutMS: a.AckTimeoutMS, RetryDelaysMS: a.RetryDelaysMS}
	if row.Topics == nil {
		row.Topics = []string{}
	}
	if row.Users == nil {
		row.Users = []int64{}
	}
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		if _, err := db.NewInsert().Model(&row).On("CONFLICT (id) DO UPDATE").
			Set("name = EXCLUDED.name, owner_id = EXCLUDED.owner_id, client_secret = EXCLUDED.client_secret").
			Set("callback_url = EXCLUDED.callback_url, topics = EXCLUDED.topics, users = EXCLUDED.users").
			Set("ack_timeout_ms = EXCLUDED.ack_timeout_ms, retry_delays_ms = EXCLUDED.retry_delays_ms").
			Exec(ctx); err != nil {
			return err
		}
		for _, m := range []any{(*grantRow)(nil), (*topicRow)(nil), (*redirectRow)(nil)} {
			if _, err := db.NewDelete().Model(m).Where("app_id = ?", a.ID).Exec(ctx); err != nil {
				return err
			}
		}
		grants := make([]grantRow, 0, len(a.Users)+1)
		for _, u := range a.Grants() {
			grants = append(grants, grantRow{AppID: a.ID, UserID: u})
		}
		if _, err := db.NewInsert().Model(&grants).Exec(ctx); err != nil {
			return err
		}
		if len(a.RedirectURIs) > 0 {
			uris := make([]redirectRow, len(a.RedirectURIs))
			for i, u := range a.RedirectURIs {
				uris[i] = redirectRow{AppID: a.ID, Position: i, URI: u}
			}
			if _, err := db.NewInsert().Model(&uris).Exec(ctx); err != nil {
				return err
			}
		}
		if len(a.Topics) == 0 {
			return nil
		}
		topics := make([]topicRow, len(a.Topics))
		for i, t := range a.Topics {
			topics[i] = topicRow{AppID: a.ID, Topic: t}
		}
		_, err := db.NewInsert().Model(&topics).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("appsdb: upsert application %d: %w", a.ID, err)
	}
	return nil
}

// Application returns an application or appsport.ErrNotFound.
func (s *Store) Application(ctx context.Context, id int64) (apps.Application, error) {
	var row appRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return apps.Application{}, fmt.Errorf("appsdb: application %d: %w", id, appsport.ErrNotFound)
	}
	if err != nil {
		return apps.Application{}, fmt.Errorf("appsdb: application %d: %w", id, err)
	}
	a := row.app()
	var uris []redirectRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&uris).Where("app_id = ?", id).OrderExpr("position").Scan(ctx); err != nil {
		return apps.Application{}, fmt.Errorf("appsdb: redirect URIs of application %d: %w", id, err)
	}
	for _, u := range uris {
		a.RedirectURIs = append(a.RedirectURIs, u.URI)
	}
	return a, nil
}

// Grant adds userID to the application's users and grants, once. The
// application's row is locked first (PostgreSQL: SELECT ... FOR UPDATE;
// SQLite's transactions take the write lock before their first read), so
// that two approvals at once both land in the users list.
func (s *Store) Grant(ctx context.Context, appID, userID int64) error {
	err := sqlstore.Tx{DB: s.db}.RunInTx(ctx, func(ctx context.Context) error {
		db := sqlstore.IDB(ctx, s.db)
		var row appRow
		q := db.NewSelect().Model(&row).Where("id = ?", appID)
		if sqlstore.IsPostgres(s.db) {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); sqlstore.IsNoRows(err) {
			return appsport.ErrNotFound
		} else if err != nil {
			return err
		}
		if row.app().Granted(userID) {
			return nil
		}
		users := append(row.Users, userID)
		if _, err := db.NewUpdate().Model((*appRow)(nil)).Set("users = ?", users).Where("id = ?", appID).Exec(ctx); err != nil {
			return err
		}
		_, err := db.NewInsert().Model(&grantRow{AppID: appID, UserID: userID}).On("CONFLICT DO NOTHING").Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("appsdb: grant application %d to user %d: %w", appID, userID, err)
	}
	return nil
}

// Subscribers lists the applications with the topic and a grant of userID,
// by id.
func (s *Store) Subscribers(ctx context.Context, topic string, userID int64) ([]apps.Application, error) {
	var rows []appRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).
		Where("id IN (SELECT app_id FROM application_topics WHERE topic = ?)", topic).
		Where("id IN (SELECT app_id FROM application_grants WHERE user_id = ?)", userID).
		OrderExpr("id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("appsdb: subscribers of %s for user %d: %w", topic, userID, err)
	}
	out := make([]apps.Application, len(rows))
	for i, r := range rows {
		out[i] = r.app()
	}
	return out, nil
}
