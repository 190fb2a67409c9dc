// Package contactsdb is the database side of contact statistics: who sells
// an item and whether a user exists (on the shared items and users tables),
// and the questions buyers ask.
package contactsdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
)

// Store implements contactsport.ItemOwners and contactsport.Questions.
type Store struct{ db bun.IDB }

var (
	_ contactsport.ItemOwners = (*Store)(nil)
	_ contactsport.Questions  = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

// Sellers returns the seller of each known item in one query.
func (s *Store) Sellers(ctx context.Context, ids []string) (map[string]int64, error) {
	out := make(map[string]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	var rows []struct {
		ID       string `bun:"id"`
		SellerID int64  `bun:"seller_id"`
	}
	err := sqlstore.IDB(ctx, s.db).NewSelect().Table("items").Column("id", "seller_id").
		Where("id IN (?)", bun.In(ids)).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("contactsdb: sellers: %w", err)
	}
	for _, r := range rows {
		out[r.ID] = r.SellerID
	}
	return out, nil
}

// UserExists reports whether the user is known.
func (s *Store) UserExists(ctx context.Context, id int64) (bool, error) {
	ok, err := sqlstore.IDB(ctx, s.db).NewSelect().Table("users").Where("id = ?", id).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("contactsdb: user %d: %w", id, err)
	}
	return ok, nil
}

type questionRow struct {
	bun.BaseModel `bun:"table:questions"`

	ID          int64     `bun:"id,pk,autoincrement"`
	ItemID      string    `bun:"item_id"`
	SellerID    int64     `bun:"seller_id"`
	FromID      int64     `bun:"from_id"`
	Text        string    `bun:"text"`
	Status      string    `bun:"status"`
	DateCreated time.Time `bun:"date_created"`
	// The answer's columns are null while the question is unanswered.
	AnswerText *string    `bun:"answer_text"`
	AnswerDate *time.Time `bun:"answer_date"`
}

func (r questionRow) question() contacts.AskedQuestion {
	q := contacts.AskedQuestion{ID: r.ID, ItemID: r.ItemID, SellerID: r.SellerID, FromID: r.FromID,
		Text: r.Text, Status: r.Status, DateCreated: r.DateCreated.UTC()}
	if r.AnswerText != nil && r.AnswerDate != nil {
		q.Answer = &contacts.Answer{Text: *r.AnswerText, Status: contacts.AnswerActive, DateCreated: r.AnswerDate.UTC()}
	}
	return q
}

// Answer answers an unanswered question in one UPDATE, whose condition
// makes the first of two answers at once the only one.
func (s *Store) Answer(ctx context.Context, id int64, a contacts.Answer) error {
	db := sqlstore.IDB(ctx, s.db)
	res, err := db.NewUpdate().Model((*questionRow)(nil)).
		Set("answer_text = ?", a.Text).Set("answer_date = ?", a.DateCreated.UTC()).Set("status = ?", contacts.Answered).
		Where("id = ?", id).Where("answer_text IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("contactsdb: answer question %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("contactsdb: answer question %d: %w", id, err)
	} else if n == 1 {
		return nil
	}
	if _, err := s.Question(ctx, id); err != nil {
		return err
	}
	return fmt.Errorf("contactsdb: question %d: %w", id, contactsport.ErrAnswered)
}

// Add stores a question and assigns its id.
func (s *Store) Add(ctx context.Context, q contacts.AskedQuestion) (contacts.AskedQuestion, error) {
	row := questionRow{ItemID: q.ItemID, SellerID: q.SellerID, FromID: q.FromID, Text: q.Text,
		Status: q.Status, DateCreated: q.DateCreated.UTC()}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&row).Returning("id").Exec(ctx); err != nil {
		return contacts.AskedQuestion{}, fmt.Errorf("contactsdb: add question: %w", err)
	}
	return row.question(), nil
}

// Question returns a question or contactsport.ErrNotFound.
func (s *Store) Question(ctx context.Context, id int64) (contacts.AskedQuestion, error) {
	var row questionRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&row).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return contacts.AskedQuestion{}, fmt.Errorf("contactsdb: question %d: %w", id, contactsport.ErrNotFound)
	}
	if err != nil {
		return contacts.AskedQuestion{}, fmt.Errorf("contactsdb: question %d: %w", id, err)
	}
	return row.question(), nil
}

// Search pages a seller's questions matching f, newest first.
func (s *Store) Search(ctx context.Context, f contacts.QuestionFilter, p paging.Request) ([]contacts.AskedQuestion, int, error) {
	var rows []questionRow
	q := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("seller_id = ?", f.SellerID)
	if f.ItemID != "" {
		q = q.Where("item_id = ?", f.ItemID)
	}
	if f.Status != "" {
		q = q.Where("status = ?", f.Status)
	}
	var total int64
	var err error
	if p.Limit == 0 { // bun reads Limit(0) as "no limit"
		total, err = q.Count(ctx)
	} else {
		total, err = q.OrderExpr("id DESC").Limit(int64(p.Limit)).Offset(int64(p.Offset)).ScanAndCount(ctx)
	}
	if err != nil && !sqlstore.IsNoRows(err) {
		return nil, 0, fmt.Errorf("contactsdb: questions of seller %d: %w", f.SellerID, err)
	}
	out := make([]contacts.AskedQuestion, len(rows))
	for i, r := range rows {
		out[i] = r.question()
	}
	return out, int(total), nil
}

// Delete removes a question.
func (s *Store) Delete(ctx context.Context, id int64) error {
	res, err := sqlstore.IDB(ctx, s.db).NewDelete().Model((*questionRow)(nil)).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("contactsdb: delete question %d: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("contactsdb: delete question %d: %w", id, err)
	} else if n == 0 {
		return fmt.Errorf("contactsdb: question %d: %w", id, contactsport.ErrNotFound)
	}
	return nil
}

// AnsweredOf returns every answered question of a seller.
func (s *Store) AnsweredOf(ctx context.Context, sellerID int64) ([]contacts.AskedQuestion, error) {
	var rows []questionRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("seller_id = ? AND answer_text IS NOT NULL", sellerID).Scan(ctx)
	if err != nil && !sqlstore.IsNoRows(err) {
		return nil, fmt.Errorf("contactsdb: answered questions of seller %d: %w", sellerID, err)
	}
	out := make([]contacts.AskedQuestion, len(rows))
	for i, r := range rows {
		out[i] = r.question()
	}
	return out, nil
}
