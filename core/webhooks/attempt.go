package webhooks

import (
	"fmt"
	"strings"
	"time"
)

// text makes s valid UTF-8 without NUL characters.
func text(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// Limits of a delivery (docs/decisions.md).
const (
	// MaxResponseBody is how much of a callback's answer is read (and kept
	// for the missed feed): a receiver answering a huge body cannot make a
	// worker read it.
	MaxResponseBody = 16 << 10
	// MaxInFlightPerApp bounds the attempts one worker process runs at once
	// for one application, so that a callback that never answers holds at
	// most that many of the process's delivery workers.
	MaxInFlightPerApp = 16
	// KeepMissed is how long a missed feed is listed after its last
	// attempt, by the service clock.
	KeepMissed = 48 * time.Hour
	// MissedFeedsLimit is the default page of GET /missed_feeds.
	MissedFeedsLimit = 10
)

// Exchange is what one attempt got back.
type Exchange struct {
	// Status is the answer's HTTP status; 0 when nothing answered.
	Status int
	// Duration is the time from sending to the answer's status line (or to
	// the failure).
	Duration time.Duration
	Body     string
	Headers  map[string]string
	// Err says why nothing (or nothing usable) answered; "" when a status
	// came back.
	Err string
}

// Succeeded is the marketplace's rule: the callback answered 200 within the
// acknowledgement time.
func (x Exchange) Succeeded(ack time.Duration) bool {
	return x.Err == "" && x.Status == 200 && x.Duration <= ack
}

// Failure says why an attempt failed, for its delivery's error; "" when it
// succeeded.
func (x Exchange) Failure(ack time.Duration) string {
	switch {
	case x.Err != "":
		return x.Err
	case x.Status != 200:
		return fmt.Sprintf("answered HTTP %d, not 200", x.Status)
	case x.Duration > ack:
		return fmt.Sprintf("answered 200 after %d ms, later than ack_timeout_ms %d", x.Duration.Milliseconds(), ack.Milliseconds())
	}
	return ""
}

// After is what follows attempt (1-based) of a notification with the
// schedule delays: delivered; else retrying after the attempt's delay; else,
// after the last attempt, missed.
func After(attempt int, succeeded bool, delays []time.Duration) (state string, delay time.Duration) {
	switch {
	case succeeded:
		return Delivered, 0
	case attempt >= MaxAttempts || attempt > len(delays):
		return Missed, 0
	}
	return Retrying, delays[attempt-1]
}

// Headers are the only headers a notification is posted with: nothing of
// the caller, no key and no token ever goes to a callback.
func Headers() map[string]string {
	return map[string]string{"Content-Type": "application/json", "User-Agent": "feria-webhooks/1"}
}

// Response is the missed feed's record of an exchange. What the receiver
// sent is kept as valid UTF-8 text without NUL (which JSON columns refuse).
func (x Exchange) Response() Response {
	r := Response{ReqTime: x.Duration.Milliseconds(), Body: text(x.Body), Headers: map[string]string{}}
	for k, v := range x.Headers {
		r.Headers[text(k)] = text(v)
	}
	if x.Status != 0 {
		code := x.Status
		r.HTTPCode = &code
	}
	return r
}

// Listed reports whether a missed feed is still listed at now.
func (n Notification) Listed(now time.Time) bool {
	return n.State == Missed && n.MissedAt != nil && now.Before(n.MissedAt.Add(KeepMissed))
}
