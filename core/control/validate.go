package control

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/feria/feria/core/kernel"
)

// FaultInput is the body of POST /sandbox/faults as sent: nil is an
// omitted (or null) field.
type FaultInput struct {
	Method      *string  `json:"method"`
	Path        *string  `json:"path"`
	Status      *int     `json:"status"`
	Error       *string  `json:"error"`
	Message     *string  `json:"message"`
	LatencyMS   *int     `json:"latency_ms"`
	Probability *float64 `json:"probability"`
	Times       *int     `json:"times"`
	RetryAfter  *int     `json:"retry_after"`
}

// NewFault checks a fault rule and fills in the defaults of docs/sandbox.md
// (method any, latency 0, probability 1, times never, retry_after 1) and
// feria's own: status 0 (answer normally after the delay). The HTTP
// adapter names an error status's error and message when the rule does not
// (they are the status's words).
func NewFault(in FaultInput) (Fault, error) {
	var p kernel.Problems
	f := Fault{Probability: 1, RetryAfter: DefaultRetryAfter}
	f.Method = checkMethod(&p, in.Method)
	f.Path = checkPattern(&p, in.Path)
	if in.Status != nil {
		f.Status = *in.Status
		if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
			p.Add("status", "status must be 0 (answer normally after the delay) or an error status 400..599, got %d", f.Status)
		}
	}
	if in.Error != nil {
		f.Error = strings.TrimSpace(*in.Error)
	}
	if in.Message != nil {
		f.Message = *in.Message
	}
	if in.LatencyMS != nil {
		f.LatencyMS = *in.LatencyMS
		if f.LatencyMS < 0 || f.LatencyMS > int(MaxLatency.Milliseconds()) {
			p.Add("latency_ms", "latency_ms must be 0..%d, got %d", MaxLatency.Milliseconds(), f.LatencyMS)
		}
	}
	if in.Probability != nil {
		f.Probability = *in.Probability
		if math.IsNaN(f.Probability) || f.Probability < 0 || f.Probability > 1 {
			p.Add("probability", "probability must be between 0 and 1, got %v", f.Probability)
		}
	}
	if in.Times != nil {
		t := *in.Times
		f.Times = &t
		if t < 1 {
			p.Add("times", "times must be a positive integer or null (never expires), got %d", t)
		}
	}
	if in.RetryAfter != nil {
		f.RetryAfter = *in.RetryAfter
		if f.RetryAfter < 0 || f.RetryAfter > MaxRetryAfter {
			p.Add("retry_after", "retry_after must be 0..%d seconds, got %d", MaxRetryAfter, f.RetryAfter)
		}
	}
	return f, p.Err(ErrInvalid)
}

// RateLimitInput is one rule of PUT /sandbox/rate_limits as sent.
type RateLimitInput struct {
	Method    *string `json:"method"`
	Path      *string `json:"path"`
	PerMinute *int    `json:"per_minute"`
}

// NewRateLimits checks the rules of PUT /sandbox/rate_limits; causes name
// rules[i].field.
func NewRateLimits(in []RateLimitInput) ([]RateLimit, error) {
	var p kernel.Problems
	if len(in) > MaxRateLimits {
		p.Add("rules", "at most %d rate limits are allowed, got %d", MaxRateLimits, len(in))
		return nil, p.Err(ErrInvalid)
	}
	out := make([]RateLimit, 0, len(in))
	for i, r := range in {
		var rp kernel.Problems
		l := RateLimit{Method: checkMethod(&rp, r.Method), Path: checkPattern(&rp, r.Path)}
		if r.PerMinute == nil {
			rp.Add("per_minute", "per_minute is required")
		} else if l.PerMinute = *r.PerMinute; l.PerMinute < 1 || l.PerMinute > MaxPerMinute {
			rp.Add("per_minute", "per_minute must be 1..%d, got %d", MaxPerMinute, l.PerMinute)
		}
		if err, ok := rp.Err(ErrInvalid).(*kernel.Error); ok {
			for _, c := range err.Causes {
				p.Add(fmt.Sprintf("rules[%d].%s", i, c.Code), "rules[%d]: %s", i, c.Message)
			}
		}
		out = append(out, l)
	}
	return out, p.Err(ErrInvalid)
}

// checkMethod reads a rule's method: nil (or null) is any method; a method
// is an HTTP token, kept upper-case because the router compares methods so.
func checkMethod(p *kernel.Problems, m *string) *string {
	if m == nil {
		return nil
	}
	v := strings.ToUpper(strings.TrimSpace(*m))
	if v == "" || len(v) > 20 || strings.IndexFunc(v, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		p.Add("method", "method must be an HTTP method such as GET, or null for any, got %q", *m)
		return nil
	}
	return &v
}

// checkPattern reads a rule's path pattern: a path starting with / and
// without a query.
func checkPattern(p *kernel.Problems, path *string) string {
	switch {
	case path == nil || *path == "":
		p.Add("path", "path is required: a path such as /items/*/compatibilities")
		return ""
	case !strings.HasPrefix(*path, "/"):
		p.Add("path", "path must start with /, got %q", *path)
	case strings.ContainsAny(*path, "?# \t\r\n"):
		p.Add("path", "path must be a path without query, fragment or spaces, got %q", *path)
	case len(*path) > MaxPatternLen:
		p.Add("path", "path must be at most %d characters", MaxPatternLen)
	}
	return *path
}

// ParseFilter reads the raw query of GET /sandbox/requests: method and path
// exact, status a number, limit 0..MaxJournalLimit (default
// DefaultJournalLimit).
func ParseFilter(method, path, status, limit string) (Filter, error) {
	f := Filter{Method: method, Path: path, Limit: DefaultJournalLimit}
	if status != "" {
		n, err := strconv.Atoi(status)
		if err != nil || n < 100 || n > 599 {
			return f, ErrBadFilter.Withf("status must be an HTTP status (100..599), got %q", status).
				WithCause("status", "status must be an HTTP status")
		}
		f.Status = n
	}
	if limit != "" {
		n, err := strconv.Atoi(limit)
		if err != nil || n < 0 || n > MaxJournalLimit {
			return f, ErrBadFilter.Withf("limit must be an integer 0..%d, got %q", MaxJournalLimit, limit).
				WithCause("limit", fmt.Sprintf("limit must be 0..%d", MaxJournalLimit))
		}
		f.Limit = n
	}
	return f, nil
}
