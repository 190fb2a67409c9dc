// Package webhookssvc implements the webhooks use cases: notifications made
// in the transaction of the change that causes them (an outbox), their
// delivery one attempt per job with the application's schedule, and the
// reads of the sandbox and of the missed feeds.
package webhookssvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/feria/feria/core/apps"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/core/webhooks"
	"github.com/feria/feria/ports/appsport"
	"github.com/feria/feria/ports/outboxport"
	"github.com/feria/feria/ports/webhooksport"
)

// Deps is what the service needs.
type Deps struct {
	Store  webhooksport.Store
	Apps   appsport.Service
	Outbox outboxport.Outbox
	Sender webhooksport.Sender
	Tx     kernel.Tx
	// Clock is the service clock (received, sent, missed feeds' age).
	Clock kernel.Clock
	// Wall is real time: delays between attempts run on it even while the
	// sandbox clock is frozen.
	Wall kernel.Clock
	// Sleep waits d or until ctx ends (tests set it). Nil: it sleeps for
	// real.
	Sleep func(ctx context.Context, d time.Duration) error `wire:"optional"`
}

// Service implements webhooksport.Service and webhooksport.Jobs.
type Service struct {
	d     Deps
	slots *slots
}

var (
	_ webhooksport.Service = (*Service)(nil)
	_ webhooksport.Jobs    = (*Service)(nil)
)

// New returns the service; it panics when a required port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	if d.Sleep == nil {
		d.Sleep = sleep
	}
	return &Service{d: d, slots: newSlots(webhooks.MaxInFlightPerApp)}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// How a job waits (docs/decisions.md).
const (
	// maxEarly is how early a job may start its attempt and wait for it
	// in place: the job queue schedules retries to the second, so a job may
	// run up to a second before its attempt is due.
	maxEarly = 2 * time.Second
	// slotWait is how long an attempt waits for one of its application's
	// slots before its job steps aside for others' (busyAgain later).
	slotWait  = 50 * time.Millisecond
	busyAgain = 500 * time.Millisecond
	// MaxListed bounds GET /sandbox/notifications: the newest this many.
	MaxListed = 1000
)

// Changed makes the change's notifications, in the caller's transaction:
// one per application that has the topic and whose grants include the
// user; nothing when the resource shows what it showed before.
func (s *Service) Changed(ctx context.Context, c webhooks.Change) error {
	t, ok := webhooks.LookupTopic(c.Topic)
	if !ok {
		return fmt.Errorf("webhooks: a change of unknown topic %q", c.Topic)
	}
	if !t.CreatesOnly {
		fp, err := webhooks.Fingerprint(c.State)
		if err != nil {
			return err
		}
		created, changed, err := s.d.Store.SwapState(ctx, c.Topic, c.Resource, fp)
		if err != nil {
			return err
		}
		if notify, err := t.Notifies(created, changed, fp); err != nil || !notify {
			return err
		}
	}
	subs, err := s.d.Apps.Subscribers(ctx, c.Topic, c.UserID)
	if err != nil || len(subs) == 0 {
		return err
	}
	ids := make([]int64, len(subs))
	for i, a := range subs {
		ids[i] = a.ID
	}
	_, err = s.create(ctx, ids, c)
	return err
}

// create stores one notification per application and queues its delivery
// through the outbox, with the notification id as the job's id.
func (s *Service) create(ctx context.Context, appIDs []int64, c webhooks.Change) ([]webhooks.Notification, error) {
	now := s.d.Clock.Now()
	ns := make([]webhooks.Notification, len(appIDs))
	for i, app := range appIDs {
		ns[i] = webhooks.Notification{ID: kernel.NewUUID(), AppID: app, Topic: c.Topic, Resource: c.Resource,
			UserID: c.UserID, Received: now, State: webhooks.Pending}
	}
	if err := s.d.Store.Add(ctx, ns); err != nil {
		return nil, err
	}
	for _, n := range ns {
		payload, err := json.Marshal(webhooksport.Task{ID: n.ID})
		if err != nil {
			return nil, err
		}
		if err := s.d.Outbox.Add(ctx, outboxport.Message{ID: n.ID, Type: webhooksport.TaskDeliver, Payload: payload, CreatedAt: now}); err != nil {
			return nil, err
		}
	}
	return ns, nil
}

// Trigger creates one notification for an application, as a change would,
// whatever the application chose (docs/sandbox.md).
func (s *Service) Trigger(ctx context.Context, t webhooksport.Trigger) (webhooks.Notification, error) {
	var p kernel.Problems
	if t.AppID <= 0 {
		p.Add("app_id", "app_id must be a positive integer")
	}
	checkTopic(&p, t.Topic, true)
	if !strings.HasPrefix(t.Resource, "/") {
		p.Add("resource", "resource must be a path starting with /, got %q", t.Resource)
	}
	if t.UserID <= 0 {
		p.Add("user_id", "user_id must be a positive integer")
	}
	if err := p.Err(webhooks.ErrInvalid); err != nil {
		return webhooks.Notification{}, err
	}
	if _, err := s.d.Apps.Application(ctx, t.AppID); err != nil {
		return webhooks.Notification{}, err
	}
	var n webhooks.Notification
	err := s.d.Tx.RunInTx(ctx, func(ctx context.Context) error {
		ns, err := s.create(ctx, []int64{t.AppID}, webhooks.Change{Topic: t.Topic, Resource: t.Resource, UserID: t.UserID})
		if err == nil {
			n = ns[0]
		}
		return err
	})
	return n, err
}

func checkTopic(p *kernel.Problems, topic string, required bool) {
	if topic == "" && !required {
		return
	}
	if _, ok := webhooks.LookupTopic(topic); !ok {
		p.Add("topic", "topic must be one of %s, got %q", strings.Join(webhooks.TopicNames(), ", "), topic)
	}
}

// Notifications lists the newest MaxListed notifications that match,
// oldest first; a named application must exist.
func (s *Service) Notifications(ctx context.Context, appID int64, topic string) ([]webhooks.Notification, error) {
	var p kernel.Problems
	checkTopic(&p, topic, false)
	if err := p.Err(webhooks.ErrInvalid); err != nil {
		return nil, err
	}
	if appID != 0 {
		if _, err := s.d.Apps.Application(ctx, appID); err != nil {
			return nil, err
		}
	}
	return s.d.Store.List(ctx, webhooksport.Filter{AppID: appID, Topic: topic}, MaxListed)
}

// MissedFeeds pages through the application's missed feeds of the last
// KeepMissed by the service clock, for its owner only.
func (s *Service) MissedFeeds(ctx context.Context, appID int64, topic string, page paging.Request) ([]webhooks.Notification, paging.Page, error) {
	caller, ok := kernel.CallerFrom(ctx)
	if !ok {
		return nil, paging.Page{}, webhooks.ErrNoCaller
	}
	var p kernel.Problems
	if appID <= 0 {
		p.Add("app_id", "app_id must be a positive integer")
	}
	checkTopic(&p, topic, false)
	if err := p.Err(webhooks.ErrInvalid); err != nil {
		return nil, paging.Page{}, err
	}
	app, err := s.d.Apps.Application(ctx, appID)
	if err != nil {
		return nil, paging.Page{}, err
	}
	if app.OwnerID != caller.UserID {
		return nil, paging.Page{}, webhooks.ErrNotTheOwner.Withf("only the owner of application %d may read its missed feeds", appID)
	}
	since := s.d.Clock.Now().Add(-webhooks.KeepMissed)
	ns, total, err := s.d.Store.Missed(ctx, webhooksport.Filter{AppID: appID, Topic: topic}, since, page)
	if err != nil {
		return nil, paging.Page{}, err
	}
	return ns, page.Of(total), nil
}

// Counts is the metrics' source.
func (s *Service) Counts(ctx context.Context) ([]webhooks.Count, error) { return s.d.Store.Counts(ctx) }

// Deliver makes the notification's next attempt. A job that finds an
// attempt started and never finished (its worker died during it) records
// that attempt as failed first; the receiver may have seen it: delivery is
// at least once, with the same _id.
func (s *Service) Deliver(ctx context.Context, id string) error {
	n, err := s.d.Store.Notification(ctx, id)
	if errors.Is(err, webhooksport.ErrNotFound) {
		return nil // removed by a sandbox reset
	}
	if err != nil {
		return err
	}
	if n.State == webhooks.Delivered || n.State == webhooks.Missed {
		return nil
	}
	app, err := s.d.Apps.Application(ctx, n.AppID)
	if errors.Is(err, apps.ErrApplicationNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if k := len(n.Deliveries); k > 0 && !n.Deliveries[k-1].Done {
		d := n.Deliveries[k-1]
		return s.finish(ctx, app, n, d, webhooks.Exchange{Err: "no answer recorded: the worker stopped during the attempt"})
	}
	if n.Due != nil {
		if wait := n.Due.Sub(s.d.Wall.Now()); wait > maxEarly {
			return &webhooksport.Later{In: wait, Reason: "the next attempt is not due yet"}
		} else if wait > 0 {
			if err := s.d.Sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
	release, ok := s.slots.acquire(ctx, app.ID, slotWait)
	if !ok {
		return &webhooksport.Later{In: busyAgain, Reason: fmt.Sprintf("application %d has %d attempts in flight", app.ID, webhooks.MaxInFlightPerApp)}
	}
	defer release()

	sent := s.d.Clock.Now()
	n.Attempts++
	n.Sent = &sent
	d := webhooks.Delivery{Attempt: n.Attempts, At: webhooks.Stamp(sent), Wall: s.d.Wall.Now()}
	data, err := json.Marshal(n.Body())
	if err != nil {
		return err
	}
	req := webhooks.Request{URL: app.CallbackURL, Headers: webhooks.Headers(), Data: string(data)}
	if ok, err := s.d.Store.StartAttempt(ctx, n.ID, d, req); err != nil || !ok {
		return err // !ok: another job made this attempt
	}
	x := s.d.Sender.Post(ctx, req, app.AckTimeout())
	return s.finish(ctx, app, n, d, x)
}

// finish records an attempt's result and the notification's next state:
// delivered, retrying after the schedule's delay (answered *Later), or
// missed after the last attempt.
func (s *Service) finish(ctx context.Context, app apps.Application, n webhooks.Notification, d webhooks.Delivery, x webhooks.Exchange) error {
	ack := app.AckTimeout()
	ok := x.Succeeded(ack)
	d.Done, d.DurationMS = true, x.Duration.Milliseconds()
	if x.Status != 0 {
		code := x.Status
		d.HTTPCode = &code
	}
	if !ok {
		why := x.Failure(ack)
		d.Error = &why
	}
	state, delay := webhooks.After(d.Attempt, ok, app.Delays())
	res := x.Response()
	n.State, n.Response, n.Due, n.MissedAt = state, &res, nil, nil
	switch state {
	case webhooks.Retrying:
		due := s.d.Wall.Now().Add(delay)
		n.Due = &due
	case webhooks.Missed:
		at := s.d.Clock.Now()
		n.MissedAt = &at
	}
	if done, err := s.d.Store.FinishAttempt(ctx, n, d); err != nil || !done {
		return err
	}
	if state == webhooks.Retrying {
		return &webhooksport.Later{In: delay, Reason: fmt.Sprintf("attempt %d failed: %s", d.Attempt, *d.Error)}
	}
	return nil
}
