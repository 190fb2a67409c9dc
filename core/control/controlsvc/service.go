// Package controlsvc implements the sandbox's test controls on their
// ports: managing fault rules, rate limits and the journal, and the three
// decisions of a public request (which fault answers it, whether a limit
// refuses it, what the journal keeps of it).
package controlsvc

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/feria/feria/core/control"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/ports/controlport"
)

// Deps is what the service needs.
type Deps struct {
	Rules   controlport.Rules
	Limiter controlport.Limiter
	Journal controlport.Journal
	// Operations are the public API's operations, in the contract's
	// order: the rows of the coverage.
	Operations *control.Operations
	// Clock dates a reset, from which the coverage counts.
	Clock kernel.Clock
	// Defaults are the rate limits in force until others are set; none:
	// no limit.
	Defaults []control.RateLimit
	// Roll draws a number in [0, 1) for a rule's probability (tests set
	// it). Nil: math/rand's Float64.
	Roll func() float64 `wire:"optional"`
}

// Service implements controlport.Service.
type Service struct {
	rules    controlport.Rules
	limiter  controlport.Limiter
	journal  controlport.Journal
	defaults []control.RateLimit
	ops      *control.Operations
	clock    kernel.Clock
	// roll draws a number in [0, 1) for a rule's probability.
	roll func() float64
}

var _ controlport.Service = (*Service)(nil)

// New returns the controls on their stores; it panics when a required
// port is nil.
func New(d Deps) *Service {
	kernel.MustWire(d)
	roll := d.Roll
	if roll == nil {
		roll = rand.Float64
	}
	return &Service{rules: d.Rules, limiter: d.Limiter, journal: d.Journal, defaults: d.Defaults,
		ops: d.Operations, clock: d.Clock, roll: roll}
}

func (s *Service) AddFault(ctx context.Context, in control.FaultInput) (control.Fault, error) {
	f, err := control.NewFault(in)
	if err != nil {
		return f, err
	}
	return s.rules.AddFault(ctx, f)
}

func (s *Service) Faults(ctx context.Context) ([]control.Fault, error) { return s.rules.Faults(ctx) }

func (s *Service) DeleteFault(ctx context.Context, id int64) error {
	ok, err := s.rules.DeleteFault(ctx, id)
	if err != nil {
		return err
	}
	if !ok {
		return control.ErrFaultNotFound.Withf("fault rule %d not found", id)
	}
	return nil
}

func (s *Service) DeleteFaults(ctx context.Context) error { return s.rules.DeleteFaults(ctx) }

func (s *Service) RateLimits(ctx context.Context) ([]control.RateLimit, error) {
	snap, err := s.rules.Current(ctx)
	if err != nil {
		return nil, err
	}
	return s.limits(snap), nil
}

func (s *Service) SetRateLimits(ctx context.Context, in []control.RateLimitInput) ([]control.RateLimit, error) {
	limits, err := control.NewRateLimits(in)
	if err != nil {
		return nil, err
	}
	return limits, s.rules.SetLimits(ctx, limits)
}

func (s *Service) Requests(ctx context.Context, f control.Filter) ([]control.Entry, error) {
	entries, err := s.journal.List(ctx)
	if err != nil {
		return nil, err
	}
	out := f.Select(entries)
	for i := range out {
		out[i].Detail = nil
	}
	return out, nil
}

// Request is one entry of the journal with its detail; the newest when
// two share the id (a client may send the same X-Request-Id twice).
func (s *Service) Request(ctx context.Context, id string) (control.Entry, error) {
	entries, err := s.journal.List(ctx)
	if err != nil {
		return control.Entry{}, err
	}
	for _, e := range entries {
		if e.ID == id {
			return e, nil
		}
	}
	return control.Entry{}, control.ErrEntryNotFound
}

func (s *Service) Rules(ctx context.Context) (controlport.Snapshot, error) {
	return s.rules.Current(ctx)
}

// Fault applies docs/sandbox.md: the oldest matching rule applies; a request
// its probability skips is answered normally and not counted. A rule whose
// last use another instance just took is gone: the next oldest applies.
func (s *Service) Fault(ctx context.Context, rules controlport.Snapshot, method, path string) (*control.Fault, error) {
	for i := range rules.Faults {
		f := rules.Faults[i]
		if !f.Matches(method, path) {
			continue
		}
		if f.Probability < 1 && s.roll() >= f.Probability {
			return nil, nil
		}
		ok, err := s.rules.UseFault(ctx, f.ID)
		if err != nil {
			return nil, err
		}
		if ok {
			return &f, nil
		}
	}
	return nil, nil
}

// Allow counts the request under the first matching limit, per caller and
// per generation of the limits (a change starts every count afresh).
func (s *Service) Allow(ctx context.Context, rules controlport.Snapshot, method, path string, caller func() string) (controlport.Limited, error) {
	limits := s.limits(rules)
	i := control.FirstLimit(limits, method, path)
	if i < 0 {
		return controlport.Limited{Verdict: control.Verdict{Allowed: true}}, nil
	}
	rule := limits[i]
	// The rule's index and size name its count: rules are replaced whole,
	// and a replacement is a new generation anyway.
	key := fmt.Sprintf("%s:%d:%d:%s", rules.Generation, i, rule.PerMinute, caller())
	v, err := s.limiter.Allow(ctx, key, rule.PerMinute)
	return controlport.Limited{Verdict: v, Rule: &rule}, err
}

func (s *Service) limits(rules controlport.Snapshot) []control.RateLimit {
	if !rules.LimitsSet {
		return s.defaults
	}
	return rules.Limits
}

func (s *Service) Record(ctx context.Context, e control.Entry) error {
	e.Counted = s.clock.Now()
	return s.journal.Append(ctx, e)
}

func (s *Service) Reset(ctx context.Context) error {
	if err := s.rules.Reset(ctx); err != nil {
		return err
	}
	if err := s.limiter.Reset(ctx); err != nil {
		return err
	}
	return s.journal.Reset(ctx, s.clock.Now())
}

// Coverage lists every operation of the contract with its counts.
func (s *Service) Coverage(ctx context.Context) (control.Coverage, error) {
	counts, since, err := s.journal.Counts(ctx)
	if err != nil {
		return control.Coverage{}, err
	}
	return control.BuildCoverage(s.ops.List(), counts, since), nil
}
