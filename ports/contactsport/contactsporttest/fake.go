// Package contactsporttest holds in-memory fakes of the contacts ports for
// use-case tests, and the contract suite every Counters adapter must pass.
package contactsporttest

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/contactsport"
)

type subjectKey struct {
	kind contacts.Kind
	sub  contacts.Subject
}

type bucketKey struct {
	kind  contacts.Kind
	sub   contacts.Subject
	unit  contacts.Unit
	start time.Time
}

// Counters is an in-memory contactsport.Counters.
type Counters struct {
	mu      sync.Mutex
	events  map[string]contacts.Event
	buckets map[bucketKey]int64
	// dates holds every counted event's date per kind and subject, for
	// exact spans.
	dates map[subjectKey][]time.Time
	known map[contacts.Subject]bool
	// Err, when set, is returned by every call (a Redis that is down).
	Err error
}

var _ contactsport.Counters = (*Counters)(nil)

// NewCounters returns empty counters.
func NewCounters() *Counters {
	c := &Counters{}
	c.clear()
	return c
}

func (c *Counters) clear() {
	c.events = map[string]contacts.Event{}
	c.buckets = map[bucketKey]int64{}
	c.dates = map[subjectKey][]time.Time{}
	c.known = map[contacts.Subject]bool{}
}

// Add counts new events.
func (c *Counters) Add(_ context.Context, events []contacts.Event) (contacts.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err != nil {
		return contacts.Result{}, c.Err
	}
	r := contacts.Result{Counted: make([]bool, len(events))}
	for i, e := range events {
		if _, ok := c.events[e.ID]; ok {
			r.Duplicates++
			continue
		}
		c.events[e.ID] = contacts.Event{ID: e.ID, ItemID: e.ItemID, Kind: e.Kind, Date: e.Date.UTC()}
		for _, sub := range []contacts.Subject{contacts.ItemSubject(e.ItemID), contacts.UserSubject(e.SellerID)} {
			c.dates[subjectKey{e.Kind, sub}] = append(c.dates[subjectKey{e.Kind, sub}], e.Date.UTC())
			for _, u := range []contacts.Unit{contacts.Hour, contacts.Day} {
				c.buckets[bucketKey{e.Kind, sub, u, u.Floor(e.Date)}]++
			}
		}
		r.Accepted++
		r.Counted[i] = true
	}
	return r, nil
}

// Read returns bucket counts, exact span totals and known subjects.
func (c *Counters) Read(_ context.Context, q contactsport.Query) (contactsport.Answer, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err != nil {
		return contactsport.Answer{}, c.Err
	}
	out := contactsport.Answer{Series: make([][]int64, len(q.Series)), Spans: make([]int64, len(q.Spans)), Known: make([]bool, len(q.Known))}
	for i, s := range q.Series {
		out.Series[i] = make([]int64, len(s.Starts))
		for j, t := range s.Starts {
			out.Series[i][j] = c.buckets[bucketKey{s.Kind, s.Subject, s.Unit, t.UTC()}]
		}
	}
	for i, s := range q.Spans {
		for _, d := range c.dates[subjectKey{s.Kind, s.Subject}] {
			if !d.Before(s.Range.From) && d.Before(s.Range.To) {
				out.Spans[i]++
			}
		}
	}
	for i, s := range q.Known {
		out.Known[i] = c.known[s]
	}
	return out, nil
}

// MarkKnown records known subjects.
func (c *Counters) MarkKnown(_ context.Context, subs []contacts.Subject) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err != nil {
		return c.Err
	}
	for _, s := range subs {
		c.known[s] = true
	}
	return nil
}

// Event returns a counted event.
func (c *Counters) Event(_ context.Context, id string) (contacts.Event, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.Err != nil {
		return contacts.Event{}, c.Err
	}
	e, ok := c.events[id]
	if !ok {
		return e, contactsport.ErrNotFound
	}
	return e, nil
}

// Reset forgets everything.
func (c *Counters) Reset(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
	return c.Err
}

// Owners is an in-memory contactsport.ItemOwners.
type Owners struct {
	Items map[string]int64
	Users map[int64]bool
}

var _ contactsport.ItemOwners = (*Owners)(nil)

// Sellers returns the seller of every known item.
func (o *Owners) Sellers(_ context.Context, ids []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, id := range ids {
		if s, ok := o.Items[id]; ok {
			out[id] = s
		}
	}
	return out, nil
}

// UserExists reports whether the user is known.
func (o *Owners) UserExists(_ context.Context, id int64) (bool, error) { return o.Users[id], nil }

// Questions is an in-memory contactsport.Questions.
type Questions struct {
	mu   sync.Mutex
	all  []contacts.AskedQuestion
	next int64
}

var _ contactsport.Questions = (*Questions)(nil)

// Add stores a question.
func (q *Questions) Add(_ context.Context, in contacts.AskedQuestion) (contacts.AskedQuestion, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.next++
	in.ID = q.next
	q.all = append(q.all, in)
	return in, nil
}

// Question returns a question by id.
func (q *Questions) Question(_ context.Context, id int64) (contacts.AskedQuestion, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, x := range q.all {
		if x.ID == id {
			return x, nil
		}
	}
	return contacts.AskedQuestion{}, contactsport.ErrNotFound
}

// Answer answers an unanswered question.
func (q *Questions) Answer(_ context.Context, id int64, a contacts.Answer) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, x := range q.all {
		if x.ID == id {
			if x.Answer != nil {
				return contactsport.ErrAnswered
			}
			q.all[i].Answer, q.all[i].Status = &a, contacts.Answered
			return nil
		}
	}
	return contactsport.ErrNotFound
}

// Search pages a seller's questions matching f, newest first.
func (q *Questions) Search(_ context.Context, f contacts.QuestionFilter, p paging.Request) ([]contacts.AskedQuestion, int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var mine []contacts.AskedQuestion
	for _, x := range q.all {
		if x.SellerID == f.SellerID && (f.ItemID == "" || x.ItemID == f.ItemID) && (f.Status == "" || x.Status == f.Status) {
			mine = append(mine, x)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return mine[i].ID > mine[j].ID })
	return paging.Slice(mine, p), len(mine), nil
}

// Delete removes a question.
func (q *Questions) Delete(_ context.Context, id int64) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, x := range q.all {
		if x.ID == id {
			q.all = append(q.all[:i], q.all[i+1:]...)
			return nil
		}
	}
	return contactsport.ErrNotFound
}

// AnsweredOf returns a seller's answered questions.
func (q *Questions) AnsweredOf(_ context.Context, sellerID int64) ([]contacts.AskedQuestion, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []contacts.AskedQuestion
	for _, x := range q.all {
		if x.SellerID == sellerID && x.Answer != nil {
			out = append(out, x)
		}
	}
	return out, nil
}
