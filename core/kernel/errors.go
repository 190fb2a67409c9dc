// Package kernel holds the vocabulary every module of feria shares: the domain
// error with its Kind, the Caller a request acts for, the Clock that is the
// only source of "now" in core, and the Tx every multi-row write runs in.
package kernel

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the client can do about it. The HTTP
// adapter maps each Kind to one status code; core never speaks in statuses.
type Kind uint8

const (
	Internal        Kind = iota // a fault of ours; details are logged, never shown
	Invalid                     // the request is malformed or breaks a rule
	Unauthenticated             // no valid credentials
	Permission                  // authenticated, but not allowed
	NotExist                    // the addressed resource does not exist
	NotAcceptable               // well-formed but refused by content rules
	Conflict                    // clashes with the current state
	Unavailable                 // a backing service is down; retrying may work
	Exhausted                   // a limit of the instance is reached; freeing room may work
	TooLarge                    // what the request would store does not fit the room left; freeing room may work
)

var kindNames = [...]string{"internal", "invalid", "unauthenticated", "permission", "not_exist", "not_acceptable", "conflict", "unavailable", "exhausted", "too_large"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Cause is one detail of an error, e.g. the field a validation failed on.
type Cause struct {
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
}

// Error is the one error type of core. Code and Message are safe to show to a
// client; Err is the underlying fault, logged but never rendered.
type Error struct {
	Kind    Kind
	Code    string
	Message string
	Causes  []Cause
	Err     error
	// origin is the error E built; copies made with With, Withf, Wrap and
	// WithCause keep it, and errors.Is compares it.
	origin *Error
}

// E builds an Error. Each call makes a distinct sentinel: errors.Is matches
// the sentinel and every copy of it (With, Withf, Wrap, WithCause,
// Problems.Err), never another sentinel of the same Kind and Code.
func E(kind Kind, code, message string) *Error {
	e := &Error{Kind: kind, Code: code, Message: message}
	e.origin = e
	return e
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is e's sentinel or a copy of it.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && e.origin != nil && t.origin == e.origin
}

// With returns a copy of e with a more specific message.
func (e *Error) With(message string) *Error {
	c := *e
	c.Message = message
	return &c
}

// Withf is With with formatting.
func (e *Error) Withf(format string, args ...any) *Error {
	return e.With(fmt.Sprintf(format, args...))
}

// Wrap returns a copy of e that carries err as its hidden cause.
func (e *Error) Wrap(err error) *Error {
	c := *e
	c.Err = err
	return &c
}

// WithCause returns a copy of e with one more client-visible cause.
func (e *Error) WithCause(code, message string) *Error {
	c := *e
	c.Causes = append(append([]Cause(nil), e.Causes...), Cause{Code: code, Message: message})
	return &c
}

// KindOf returns the Kind of the first *Error in err's chain, Internal if none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Invalidf is a shortcut for a validation error with a formatted message.
func Invalidf(code, format string, args ...any) *Error {
	return E(Invalid, code, fmt.Sprintf(format, args...))
}

// NotFoundf is a shortcut for a missing-resource error with a formatted message.
func NotFoundf(code, format string, args ...any) *Error {
	return E(NotExist, code, fmt.Sprintf(format, args...))
}

// MessageOf returns the client-safe message of err's first *Error.
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal server error"
}
