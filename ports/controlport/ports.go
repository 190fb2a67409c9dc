// Package controlport declares the ports of the sandbox's test controls:
// the Service the middleware and the sandbox routes call, and where their
// state lives (Rules, Limiter, Journal), shared by every instance of the
// service.
package controlport

import (
	"context"
	"time"

	"github.com/feria/feria/core/control"
)

// Service is the controls as HTTP sees them: the sandbox's management
// calls, and the three steps of a public request (Rules once at its start,
// Fault and Allow before the route runs, Record before the answer leaves).
type Service interface {
	AddFault(ctx context.Context, in control.FaultInput) (control.Fault, error)
	Faults(ctx context.Context) ([]control.Fault, error)
	// DeleteFault removes one rule; an unknown id is control.ErrFaultNotFound.
	DeleteFault(ctx context.Context, id int64) error
	DeleteFaults(ctx context.Context) error
	RateLimits(ctx context.Context) ([]control.RateLimit, error)
	// SetRateLimits replaces the limits and forgets every count.
	SetRateLimits(ctx context.Context, in []control.RateLimitInput) ([]control.RateLimit, error)
	// Requests lists the journal's entries without their Detail.
	Requests(ctx context.Context, f control.Filter) ([]control.Entry, error)
	// Request is one entry with its Detail; control.ErrEntryNotFound when
	// the journal does not hold it.
	Request(ctx context.Context, id string) (control.Entry, error)

	// Rules are the rules in force, read once per request.
	Rules(ctx context.Context) (Snapshot, error)
	// Fault returns the fault rule that answers the request, if any: the
	// oldest matching rule, when its probability lets it and its use is
	// granted (counted once across instances).
	Fault(ctx context.Context, rules Snapshot, method, path string) (*control.Fault, error)
	// Allow counts the request against the first matching rate limit;
	// caller names whom it counts for and is called only when a limit
	// matches (it may authenticate). No matching limit: allowed.
	Allow(ctx context.Context, rules Snapshot, method, path string, caller func() string) (Limited, error)
	// Record writes a request to the journal and counts it in the
	// coverage.
	Record(ctx context.Context, e control.Entry) error
	// Coverage is what the public API was asked since the last reset, for
	// every operation of the contract.
	Coverage(ctx context.Context) (control.Coverage, error)

	// Reset removes the fault rules, the journal and the coverage counts
	// and puts the default rate limits back, with fresh counts (DELETE
	// /sandbox).
	Reset(ctx context.Context) error
}

// Limited is Allow's answer: the verdict and the rule that gave it (nil
// when no rule matched).
type Limited struct {
	control.Verdict
	Rule *control.RateLimit
}

// Snapshot is the state of the rules at one moment.
type Snapshot struct {
	// Faults, oldest first.
	Faults []control.Fault
	// Limits are the rate limits set; LimitsSet false means none were set
	// since the last reset, and the defaults apply.
	Limits    []control.RateLimit
	LimitsSet bool
	// Generation names the limits set: a replacement is a new generation,
	// and counts are kept per generation, so it starts every count afresh.
	Generation string
	// OverQuota, above zero, says that the world these rules are of is
	// over its requests a minute, as its journal last counted them: its
	// requests are refused for that long (a world's quota; the default
	// world has none).
	OverQuota time.Duration
}

// Rules keeps the fault rules and the rate limits, shared by every
// instance.
type Rules interface {
	// Current returns the rules in force. It is on every public request's
	// path: no round trip when nothing changed, if it can be helped.
	Current(ctx context.Context) (Snapshot, error)
	// AddFault stores a rule under a new id, newer than every other.
	AddFault(ctx context.Context, f control.Fault) (control.Fault, error)
	// Faults lists the rules, oldest first, with their uses.
	Faults(ctx context.Context) ([]control.Fault, error)
	// DeleteFault reports whether the rule existed.
	DeleteFault(ctx context.Context, id int64) (bool, error)
	DeleteFaults(ctx context.Context) error
	// UseFault counts one use of a rule, atomically across instances, and
	// removes the rule with its last use (times). false: the rule is gone
	// (another instance took its last use, or it was deleted).
	UseFault(ctx context.Context, id int64) (bool, error)
	// SetLimits replaces the rate limits (a new generation).
	SetLimits(ctx context.Context, limits []control.RateLimit) error
	// Reset removes every fault rule and the limits set (the defaults apply
	// again); the counts are the Limiter's to forget.
	Reset(ctx context.Context) error
}

// Limiter counts requests per key across instances.
type Limiter interface {
	// Allow counts one request under key against perMinute requests in
	// any 60 seconds (a burst of perMinute allowed); a refused request is
	// not counted.
	Allow(ctx context.Context, key string, perMinute int) (control.Verdict, error)
	// Reset forgets every count.
	Reset(ctx context.Context) error
}

// Journal keeps the last control.JournalSize public requests and the
// coverage counts of every request since the last reset, shared by every
// instance.
type Journal interface {
	// Append writes one entry and counts its Tally, if it has one: on
	// every public request's path, one round trip for both.
	Append(ctx context.Context, e control.Entry) error
	// List returns the entries kept, newest first.
	List(ctx context.Context) ([]control.Entry, error)
	// Counts returns the coverage counts by control.Tally field and since
	// when they are kept: the last reset's instant, or before any reset
	// the first entry counted (zero when none was).
	Counts(ctx context.Context) (map[string]int64, time.Time, error)
	// Reset removes the entries and the counts; counting starts afresh at.
	Reset(ctx context.Context, at time.Time) error
}
