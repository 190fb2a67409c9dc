// Package controlporttest holds in-memory fakes of the controls' driven
// ports (Rules, Limiter, Journal), for use-case tests, and the contract
// suites every adapter of those ports passes.
package controlporttest

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/ports/controlport"
)

// Rules is controlport.Rules in memory.
type Rules struct {
	mu     sync.Mutex
	seq    int64
	faults []control.Fault
	limits []control.RateLimit
	set    bool
	gen    int
}

var _ controlport.Rules = (*Rules)(nil)

// NewRules returns empty rules.
func NewRules() *Rules { return &Rules{} }

func (r *Rules) Current(context.Context) (controlport.Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return controlport.Snapshot{Faults: slices.Clone(r.faults), Limits: slices.Clone(r.limits), LimitsSet: r.set, Generation: strconv.Itoa(r.gen)}, nil
}

func (r *Rules) AddFault(_ context.Context, f control.Fault) (control.Fault, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	f.ID, f.Used = r.seq, 0
	r.faults = append(r.faults, f)
	return f, nil
}

func (r *Rules) Faults(context.Context) ([]control.Fault, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.faults), nil
}

func (r *Rules) DeleteFault(_ context.Context, id int64) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.faults)
	r.faults = slices.DeleteFunc(r.faults, func(f control.Fault) bool { return f.ID == id })
	return len(r.faults) < n, nil
}

func (r *Rules) DeleteFaults(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults = nil
	return nil
}

func (r *Rules) UseFault(_ context.Context, id int64) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := slices.IndexFunc(r.faults, func(f control.Fault) bool { return f.ID == id })
	if i < 0 {
		return false, nil
	}
	r.faults[i].Used++
	if t := r.faults[i].Times; t != nil && r.faults[i].Used >= *t {
		r.faults = slices.Delete(r.faults, i, i+1)
	}
	return true, nil
}

func (r *Rules) SetLimits(_ context.Context, limits []control.RateLimit) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits, r.set = slices.Clone(limits), true
	r.gen++
	return nil
}

func (r *Rules) Reset(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.faults, r.limits, r.set, r.seq = nil, nil, false, 0
	r.gen++
	return nil
}

// Limiter is controlport.Limiter in memory, on a settable clock: a sliding
// count of the requests allowed in the last minute per key.
type Limiter struct {
	mu      sync.Mutex
	Now     func() time.Time
	allowed map[string][]time.Time
}

var _ controlport.Limiter = (*Limiter)(nil)

// NewLimiter returns a limiter on now.
func NewLimiter(now func() time.Time) *Limiter {
	return &Limiter{Now: now, allowed: map[string][]time.Time{}}
}

func (l *Limiter) Allow(_ context.Context, key string, perMinute int) (control.Verdict, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.Now()
	kept := slices.DeleteFunc(l.allowed[key], func(t time.Time) bool { return !t.After(now.Add(-time.Minute)) })
	if len(kept) >= perMinute {
		l.allowed[key] = kept
		return control.Verdict{RetryAfter: kept[len(kept)-perMinute].Add(time.Minute).Sub(now)}, nil
	}
	l.allowed[key] = append(kept, now)
	return control.Verdict{Allowed: true}, nil
}

func (l *Limiter) Reset(context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.allowed = map[string][]time.Time{}
	return nil
}

// Journal is controlport.Journal in memory.
type Journal struct {
	mu      sync.Mutex
	entries []control.Entry // newest first
	counts  map[string]int64
	since   time.Time
}

var _ controlport.Journal = (*Journal)(nil)

// NewJournal returns an empty journal.
func NewJournal() *Journal { return &Journal{} }

func (j *Journal) Append(_ context.Context, e control.Entry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries = append([]control.Entry{e}, j.entries...)
	if len(j.entries) > control.JournalSize {
		j.entries = j.entries[:control.JournalSize]
	}
	if t, ok := e.Tally(); ok {
		if j.counts == nil {
			j.counts = map[string]int64{}
		}
		j.counts[t.Field()]++
		if j.since.IsZero() {
			j.since = e.Counted
		}
	}
	return nil
}

func (j *Journal) Counts(context.Context) (map[string]int64, time.Time, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return maps.Clone(j.counts), j.since, nil
}

func (j *Journal) List(context.Context) ([]control.Entry, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.entries), nil
}

func (j *Journal) Reset(_ context.Context, at time.Time) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.entries, j.counts, j.since = nil, nil, at
	return nil
}
