// Package apps holds integrators' applications as the sandbox creates them
// (docs/sandbox.md, "Applications and notifications"): the OAuth client a token
// may belong to (its client secret) and what it subscribes to (topics, the
// users who granted it, its callback and its delivery rules). The
// notifications themselves are core/webhooks.
package apps

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/webhooks"
)

// Application is an integrator's application.
type Application struct {
	ID           int64    `json:"id"`
	Name         string   `json:"name"`
	OwnerID      int64    `json:"owner_id"`
	ClientSecret string   `json:"client_secret"`
	CallbackURL  string   `json:"callback_url"`
	Topics       []string `json:"topics"`
	// Users are the users who granted the application, as sent; the owner
	// is granted whether or not it is listed (Granted).
	Users        []int64 `json:"users"`
	AckTimeoutMS int64   `json:"ack_timeout_ms"`
	// RetryDelaysMS nil is the default schedule (webhooks.DefaultDelays);
	// otherwise exactly RetrySteps delays.
	RetryDelaysMS []int64 `json:"retry_delays_ms"`
	// RedirectURIs are the URIs the authorization flow may send a user
	// back to: an authorization request must name one exactly. Shown only
	// when set.
	RedirectURIs []string `json:"redirect_uris,omitempty"`
}

// Limits of an application. The contract fixes the default acknowledgement
// time and the number of delays; the bounds are feria's (docs/decisions.md).
const (
	// DefaultAckTimeoutMS is the marketplace's rule: a callback must answer
	// 200 within 500 ms.
	DefaultAckTimeoutMS = 500
	// MaxAckTimeoutMS bounds how long one attempt may hold a worker.
	MaxAckTimeoutMS = 30_000
	// RetrySteps is the number of delays of a schedule: between 8 attempts.
	RetrySteps = webhooks.MaxAttempts - 1
	// MaxRetryDelayMS is the longest delay a schedule may name: the default
	// schedule spreads all of its attempts over one hour.
	MaxRetryDelayMS = 3_600_000
	// MaxCallbackURL bounds the callback URL's length, and a redirect
	// URI's.
	MaxCallbackURL = 2048
	// MaxRedirectURIs bounds the redirect URIs of an application.
	MaxRedirectURIs = 10
)

// Errors of the module.
var (
	ErrInvalidApplication  = kernel.E(kernel.Invalid, "bad_request", "invalid application")
	ErrApplicationNotFound = kernel.E(kernel.NotExist, "not_found", "application not found")
)

// WithDefaults fills what a PUT body may leave out and drops repeated
// topics and users, keeping their first place.
func (a Application) WithDefaults() Application {
	if a.AckTimeoutMS == 0 {
		a.AckTimeoutMS = DefaultAckTimeoutMS
	}
	a.Topics = unique(a.Topics)
	a.Users = unique(a.Users)
	a.RedirectURIs = unique(a.RedirectURIs)
	if a.Topics == nil {
		a.Topics = []string{}
	}
	if a.Users == nil {
		a.Users = []int64{}
	}
	return a
}

func unique[T comparable](in []T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, 0, len(in))
	for _, v := range in {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// Validate checks the fields of an application the sandbox is about to
// store; whether its users exist is the use case's check.
func (a Application) Validate() error {
	var p kernel.Problems
	if a.ID <= 0 {
		p.Add("app_id", "app_id must be a positive integer")
	}
	if strings.TrimSpace(a.Name) == "" {
		p.Add("name", "name is required")
	}
	if a.OwnerID <= 0 {
		p.Add("owner_id", "owner_id must be a positive integer")
	}
	if a.ClientSecret == "" {
		p.Add("client_secret", "client_secret is required")
	}
	if msg := checkCallback(a.CallbackURL); msg != "" {
		p.Add("callback_url", "%s", msg)
	}
	for i, t := range a.Topics {
		if _, ok := webhooks.LookupTopic(t); !ok {
			p.Add(fmt.Sprintf("topics[%d]", i), "topic %q is not one of %s", t, strings.Join(webhooks.TopicNames(), ", "))
		}
	}
	for i, u := range a.Users {
		if u <= 0 {
			p.Add(fmt.Sprintf("users[%d]", i), "users must be positive user ids, got %d", u)
		}
	}
	if a.AckTimeoutMS < 1 || a.AckTimeoutMS > MaxAckTimeoutMS {
		p.Add("ack_timeout_ms", "ack_timeout_ms must be between 1 and %d, got %d", MaxAckTimeoutMS, a.AckTimeoutMS)
	}
	if a.RetryDelaysMS != nil {
		if len(a.RetryDelaysMS) != RetrySteps {
			p.Add("retry_delays_ms", "retry_delays_ms must be null or a list of exactly %d delays, got %d", RetrySteps, len(a.RetryDelaysMS))
		}
		for i, d := range a.RetryDelaysMS {
			if d < 0 || d > MaxRetryDelayMS {
				p.Add(fmt.Sprintf("retry_delays_ms[%d]", i), "a delay must be between 0 and %d ms, got %d", MaxRetryDelayMS, d)
			}
		}
	}
	if len(a.RedirectURIs) > MaxRedirectURIs {
		p.Add("redirect_uris", "redirect_uris may name at most %d URIs, got %d", MaxRedirectURIs, len(a.RedirectURIs))
	}
	for i, r := range a.RedirectURIs {
		field := fmt.Sprintf("redirect_uris[%d]", i)
		if msg := checkURL(field, r); msg != "" {
			p.Add(field, "%s", msg)
		} else if u, _ := url.Parse(r); u.Fragment != "" || strings.Contains(r, "#") {
			// RFC 6749 §3.1.2: a redirection endpoint has no fragment.
			p.Add(field, "%s must not have a fragment, got %q", field, r)
		}
	}
	return p.Err(ErrInvalidApplication)
}

// checkCallback returns what is wrong with a callback URL, or "".
func checkCallback(raw string) string { return checkURL("callback_url", raw) }

// checkURL returns what is wrong with the http or https URL of field, or "".
func checkURL(field, raw string) string {
	if raw == "" {
		return field + " is required"
	}
	if len(raw) > MaxCallbackURL {
		return fmt.Sprintf("%s must be at most %d characters long", field, MaxCallbackURL)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return fmt.Sprintf("%s must be an http or https URL, got %q", field, raw)
	}
	return ""
}

// Granted reports whether userID granted the application: a listed user or
// the owner.
func (a Application) Granted(userID int64) bool {
	return userID == a.OwnerID || slices.Contains(a.Users, userID)
}

// Grants lists every granted user once: the listed users and the owner.
func (a Application) Grants() []int64 {
	out := append([]int64(nil), a.Users...)
	if !slices.Contains(out, a.OwnerID) {
		out = append(out, a.OwnerID)
	}
	return out
}

// HasTopic reports whether the application chose the topic.
func (a Application) HasTopic(topic string) bool { return slices.Contains(a.Topics, topic) }

// AckTimeout is the time a callback has to answer 200.
func (a Application) AckTimeout() time.Duration {
	return time.Duration(a.AckTimeoutMS) * time.Millisecond
}

// Delays is the application's retry schedule: its own delays, or the
// default one.
func (a Application) Delays() []time.Duration {
	if a.RetryDelaysMS == nil {
		return webhooks.DefaultDelays
	}
	out := make([]time.Duration, len(a.RetryDelaysMS))
	for i, ms := range a.RetryDelaysMS {
		out[i] = time.Duration(ms) * time.Millisecond
	}
	return out
}
