// Package messagingdb stores the messages of packs' after-sale
// conversations through bun.
package messagingdb

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/messaging"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/messagingport"
)

// Store implements messagingport.Messages and messagingport.Attachments.
type Store struct{ db bun.IDB }

var (
	_ messagingport.Messages    = (*Store)(nil)
	_ messagingport.Attachments = (*Store)(nil)
)

// New returns a store on db.
func New(db bun.IDB) *Store { return &Store{db: db} }

type messageRow struct {
	bun.BaseModel `bun:"table:messages"`

	ID          string     `bun:"id,pk"`
	PackID      int64      `bun:"pack_id"`
	FromUserID  int64      `bun:"from_user_id"`
	ToUserID    int64      `bun:"to_user_id"`
	Kind        string     `bun:"kind"`
	Text        string     `bun:"text"`
	DateCreated time.Time  `bun:"date_created"`
	DateRead    *time.Time `bun:"date_read"`
}

type attachmentRow struct {
	bun.BaseModel `bun:"table:message_attachments"`

	ID          string    `bun:"id,pk"`
	UserID      int64     `bun:"user_id"`
	Filename    string    `bun:"filename"`
	ContentType string    `bun:"content_type"`
	Size        int64     `bun:"size"`
	MessageID   *string   `bun:"message_id"`
	DateCreated time.Time `bun:"date_created"`
}

func (r attachmentRow) attachment() messaging.Attachment {
	a := messaging.Attachment{ID: r.ID, UserID: r.UserID, Filename: r.Filename, ContentType: r.ContentType, Size: r.Size,
		DateCreated: r.DateCreated.UTC()}
	if r.MessageID != nil {
		a.MessageID = *r.MessageID
	}
	return a
}

// Add stores a message.
func (s *Store) Add(ctx context.Context, m messaging.Message) error {
	r := messageRow{ID: m.ID, PackID: m.PackID, FromUserID: m.FromUserID, ToUserID: m.ToUserID, Kind: m.Kind, Text: m.Text, DateCreated: m.DateCreated}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&r).Exec(ctx); err != nil {
		return fmt.Errorf("messagingdb: add message: %w", err)
	}
	return nil
}

// Message returns a message or messagingport.ErrNotFound.
func (s *Store) Message(ctx context.Context, id string) (messaging.Message, error) {
	var r messageRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return messaging.Message{}, fmt.Errorf("messagingdb: message %s: %w", id, messagingport.ErrNotFound)
	}
	if err != nil {
		return messaging.Message{}, fmt.Errorf("messagingdb: message %s: %w", id, err)
	}
	out := []messaging.Message{r.message()}
	if err := s.withFiles(ctx, out); err != nil {
		return messaging.Message{}, err
	}
	return out[0], nil
}

func (r messageRow) message() messaging.Message {
	m := messaging.Message{ID: r.ID, PackID: r.PackID, FromUserID: r.FromUserID, ToUserID: r.ToUserID,
		Kind: r.Kind, Text: r.Text, DateCreated: r.DateCreated.UTC()}
	if r.DateRead != nil {
		at := r.DateRead.UTC()
		m.DateRead = &at
	}
	return m
}

// withFiles fills the messages' attachments in one query.
func (s *Store) withFiles(ctx context.Context, msgs []messaging.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	ids := make([]string, len(msgs))
	at := make(map[string]int, len(msgs))
	for i, m := range msgs {
		ids[i], at[m.ID] = m.ID, i
	}
	var rows []attachmentRow
	if err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("message_id IN (?)", bun.In(ids)).
		OrderExpr("message_id, date_created, id").Scan(ctx); err != nil {
		return fmt.Errorf("messagingdb: attachments of messages: %w", err)
	}
	for _, r := range rows {
		i := at[*r.MessageID]
		msgs[i].Attachments = append(msgs[i].Attachments, r.attachment())
	}
	return nil
}

// MarkRead dates the pack's unread messages to userID.
func (s *Store) MarkRead(ctx context.Context, packID, userID int64, at time.Time) error {
	_, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*messageRow)(nil)).Set("date_read = ?", at.UTC()).
		Where("pack_id = ?", packID).Where("to_user_id = ?", userID).Where("date_read IS NULL").Exec(ctx)
	if err != nil {
		return fmt.Errorf("messagingdb: mark pack %d read for %d: %w", packID, userID, err)
	}
	return nil
}

// AddAttachment stores an attachment that no message carries yet.
func (s *Store) AddAttachment(ctx context.Context, a messaging.Attachment) error {
	r := attachmentRow{ID: a.ID, UserID: a.UserID, Filename: a.Filename, ContentType: a.ContentType, Size: a.Size, DateCreated: a.DateCreated}
	if _, err := sqlstore.IDB(ctx, s.db).NewInsert().Model(&r).Exec(ctx); err != nil {
		return fmt.Errorf("messagingdb: add attachment: %w", err)
	}
	return nil
}

// Attachment returns an attachment or messagingport.ErrNotFound.
func (s *Store) Attachment(ctx context.Context, id string) (messaging.Attachment, error) {
	var r attachmentRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&r).Where("id = ?", id).Scan(ctx)
	if sqlstore.IsNoRows(err) {
		return messaging.Attachment{}, fmt.Errorf("messagingdb: attachment %s: %w", id, messagingport.ErrNotFound)
	}
	if err != nil {
		return messaging.Attachment{}, fmt.Errorf("messagingdb: attachment %s: %w", id, err)
	}
	return r.attachment(), nil
}

// Attach gives the uploader's unsent attachments to a message: one
// statement whose condition on message_id makes two sends of one file
// give it once.
func (s *Store) Attach(ctx context.Context, messageID string, userID int64, ids []string) (int, error) {
	res, err := sqlstore.IDB(ctx, s.db).NewUpdate().Model((*attachmentRow)(nil)).Set("message_id = ?", messageID).
		Where("id IN (?)", bun.In(ids)).Where("user_id = ?", userID).Where("message_id IS NULL").Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("messagingdb: attach to %s: %w", messageID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("messagingdb: attach to %s: %w", messageID, err)
	}
	return int(n), nil
}

// ByPack returns a page of a pack's messages, oldest first.
func (s *Store) ByPack(ctx context.Context, packID int64, page paging.Request) ([]messaging.Message, int, error) {
	var rows []messageRow
	q := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("pack_id = ?", packID).OrderExpr("date_created, id")
	total, err := q.Limit(int64(page.Limit)).Offset(int64(page.Offset)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("messagingdb: messages of pack %d: %w", packID, err)
	}
	out := make([]messaging.Message, len(rows))
	for i, r := range rows {
		out[i] = r.message()
	}
	if err := s.withFiles(ctx, out); err != nil {
		return nil, 0, err
	}
	return out, int(total), nil
}

// Unsent lists old attachments that no message carries, for the retention
// job.
func (s *Store) Unsent(ctx context.Context, before time.Time, limit int) ([]messaging.Attachment, error) {
	var rows []attachmentRow
	err := sqlstore.IDB(ctx, s.db).NewSelect().Model(&rows).Where("message_id IS NULL").Where("date_created < ?", before.UTC()).
		OrderExpr("date_created, id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("messagingdb: unsent attachments: %w", err)
	}
	out := make([]messaging.Attachment, len(rows))
	for i, r := range rows {
		out[i] = r.attachment()
	}
	return out, nil
}

// DeleteUnsent removes an attachment no message carries: the condition on
// message_id keeps a file a send took meanwhile.
func (s *Store) DeleteUnsent(ctx context.Context, id string) (bool, error) {
	res, err := sqlstore.IDB(ctx, s.db).NewDelete().Model((*attachmentRow)(nil)).Where("id = ?", id).Where("message_id IS NULL").Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("messagingdb: delete attachment %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("messagingdb: delete attachment %s: %w", id, err)
	}
	return n == 1, nil
}
