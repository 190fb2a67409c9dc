// Package control holds the rules of the sandbox's test controls
// (docs/sandbox.md "Faults, rate limits and the request journal"): fault rules
// that answer a request with an error or a delay, rate limits counted per
// caller, and the journal of the last public requests. It decides what a
// rule is and which request it matches; where the rules live and how a use
// or a request is counted across instances is the ports' business.
package control

import (
	"time"

	"github.com/feria/feria/core/kernel"
)

// Limits of the controls, named once: the messages and the tests use them.
const (
	// JournalSize is how many public requests the journal keeps (docs/sandbox.md).
	JournalSize = 1000
	// DefaultJournalLimit and MaxJournalLimit bound GET /sandbox/requests.
	DefaultJournalLimit = 50
	MaxJournalLimit     = JournalSize
	// MaxLatency bounds a fault's delay: the server's write timeout is 60 s,
	// and a longer delay would be cut by it, not answered.
	MaxLatency = 30 * time.Second
	// MaxRetryAfter bounds a fault's Retry-After (one day).
	MaxRetryAfter = 86400
	// MaxPerMinute bounds a rate limit; more is no limit at all.
	MaxPerMinute = 1_000_000
	// MaxRateLimits bounds the rules of one PUT /sandbox/rate_limits: every
	// request is matched against all of them.
	MaxRateLimits = 100
	// MaxPatternLen bounds a rule's path pattern.
	MaxPatternLen = 1024
	// DefaultRetryAfter is a fault's Retry-After when the rule names none.
	DefaultRetryAfter = 1
)

// Fault is a fault rule: requests it matches are answered with Status (in
// the route's error shape) after LatencyMS, or, with Status 0, answered
// normally after the delay.
type Fault struct {
	ID int64 `json:"id"`
	// Method nil matches any method.
	Method      *string `json:"method"`
	Path        string  `json:"path"`
	Status      int     `json:"status"`
	Error       string  `json:"error"`
	Message     string  `json:"message"`
	LatencyMS   int     `json:"latency_ms"`
	Probability float64 `json:"probability"`
	// Times nil never expires; otherwise the rule leaves the list after
	// answering that many requests.
	Times      *int `json:"times"`
	RetryAfter int  `json:"retry_after"`
	// Used counts the requests the rule answered so far (a field docs/sandbox.md
	// does not name, added so that a test can see a rule fire).
	Used int `json:"used"`
}

// Matches reports whether the rule applies to a public request.
func (f Fault) Matches(method, path string) bool {
	return methodMatches(f.Method, method) && PathMatches(f.Path, path)
}

// Latency is the rule's delay.
func (f Fault) Latency() time.Duration { return time.Duration(f.LatencyMS) * time.Millisecond }

// RateLimit lets each caller make PerMinute requests matching Method and
// Path in any 60 seconds, a burst of PerMinute included.
type RateLimit struct {
	Method    *string `json:"method"`
	Path      string  `json:"path"`
	PerMinute int     `json:"per_minute"`
}

// Matches reports whether the limit counts a public request.
func (l RateLimit) Matches(method, path string) bool {
	return methodMatches(l.Method, method) && PathMatches(l.Path, path)
}

// Verdict is a rate limiter's answer for one request.
type Verdict struct {
	Allowed bool
	// RetryAfter is when the caller may try again, when refused.
	RetryAfter time.Duration
}

// RetryAfterSeconds is the Retry-After header of a refusal: whole seconds,
// rounded up, at least 1 (a client told 0 would retry at once and be
// refused again).
func (v Verdict) RetryAfterSeconds() int {
	s := int((v.RetryAfter + time.Second - 1) / time.Second)
	if s < 1 {
		return 1
	}
	return s
}

// Entry is one public request in the journal. Query has every
// access_token value masked before the entry exists (MaskQuery).
type Entry struct {
	ID         string    `json:"id"`
	At         time.Time `json:"at"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Query      string    `json:"query"`
	Status     int       `json:"status"`
	DurationMS float64   `json:"duration_ms"`
	UserID     *int64    `json:"user_id"`
	// FaultID names the fault rule that answered the request (a field
	// docs/sandbox.md does not name: "a matched rule shows in the journal").
	FaultID *int64 `json:"fault_id"`
	// Detail is the exchange itself (headers, bodies, the rate limit that
	// refused it): kept in the journal and shown by the console, left out
	// of GET /sandbox/requests' list.
	Detail *Detail `json:"detail,omitempty"`
	// Operation is the contract's operation that served the request
	// (Operation.Key; "" when none did) and RateLimited whether a rate
	// limit refused it: what its coverage counts, not shown in the journal.
	Operation   string `json:"-"`
	RateLimited bool   `json:"-"`
	// Counted is the service clock when the entry was recorded: the
	// coverage's start when it is the first counted since the beginning.
	Counted time.Time `json:"-"`
}

// Tally is how the entry counts in the coverage; false when no operation
// of the contract served it (docs/sandbox.md: such a request is in the
// journal only).
func (e Entry) Tally() (Tally, bool) {
	if e.Operation == "" {
		return Tally{}, false
	}
	return Tally{Op: e.Operation, Status: e.Status, Faulted: e.FaultID != nil, RateLimited: e.RateLimited}, true
}

// Filter selects journal entries: Method, Path, Status and UserID exact
// when set.
type Filter struct {
	Method string
	Path   string
	Status int   // 0: any
	UserID int64 // 0: any
	Limit  int
}

// Keep reports whether an entry passes the filter.
func (f Filter) Keep(e Entry) bool {
	return (f.Method == "" || e.Method == f.Method) &&
		(f.Path == "" || e.Path == f.Path) &&
		(f.Status == 0 || e.Status == f.Status) &&
		(f.UserID == 0 || e.UserID != nil && *e.UserID == f.UserID)
}

// Select returns the entries (newest first) that pass the filter, at most
// f.Limit of them.
func (f Filter) Select(entries []Entry) []Entry {
	out := make([]Entry, 0, min(f.Limit, len(entries)))
	for _, e := range entries {
		if len(out) >= f.Limit {
			break
		}
		if f.Keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// Sentinels of the controls.
var (
	ErrInvalid       = kernel.E(kernel.Invalid, "bad_request", "invalid control rule")
	ErrFaultNotFound = kernel.E(kernel.NotExist, "not_found", "fault rule not found")
	ErrBadFilter     = kernel.E(kernel.Invalid, "bad_request", "invalid journal filter")
	ErrEntryNotFound = kernel.E(kernel.NotExist, "not_found", "request not in the journal")
)

// TooManyRequests is the body of a rate limit's refusal: the same on every
// route, whatever the route's error shape (docs/sandbox.md).
const TooManyRequests = `{"message":"Too Many Requests","error":"too_many_requests","status":429,"cause":[]}`
