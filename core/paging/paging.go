// Package paging is area G: the limit/offset window every listed
// answer accepts, and the paging object every such answer carries.
package paging

import (
	"strconv"

	"github.com/feria/feria/core/kernel"
)

const (
	// DefaultLimit and the zero offset are the contract's defaults.
	DefaultLimit = 50
	// MaxLimit bounds one page so that no request can ask for an unbounded
	// answer; the marketplace leaves the maximum open (docs/decisions.md).
	MaxLimit = 200
)

// ErrInvalid is returned for a limit or offset that is not a usable number.
var ErrInvalid = kernel.E(kernel.Invalid, "bad_request", "invalid paging parameters")

// Request is the window a caller asked for.
type Request struct {
	Limit  int
	Offset int
}

// Page is the paging object of an answer.
type Page struct {
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
}

// Default is the window used when the caller names none.
func Default() Request { return Request{Limit: DefaultLimit} }

// Parse reads the raw query values; empty means "not given".
func Parse(limit, offset string) (Request, error) {
	r := Default()
	if limit != "" {
		n, err := strconv.Atoi(limit)
		switch {
		case err != nil:
			return r, ErrInvalid.Withf("limit must be an integer, got %q", limit)
		case n < 0:
			return r, ErrInvalid.Withf("limit must not be negative, got %d", n)
		case n > MaxLimit:
			return r, ErrInvalid.Withf("limit must be at most %d, got %d", MaxLimit, n)
		}
		r.Limit = n
	}
	if offset != "" {
		n, err := strconv.Atoi(offset)
		switch {
		case err != nil:
			return r, ErrInvalid.Withf("offset must be an integer, got %q", offset)
		case n < 0:
			return r, ErrInvalid.Withf("offset must not be negative, got %d", n)
		}
		r.Offset = n
	}
	return r, nil
}

// Of returns the paging object for a window over total results.
func (r Request) Of(total int) Page {
	return Page{Total: total, Offset: r.Offset, Limit: r.Limit}
}

// Slice cuts the window out of an in-memory list.
func Slice[T any](all []T, r Request) []T {
	if r.Offset >= len(all) {
		return []T{}
	}
	end := r.Offset + r.Limit
	if end > len(all) {
		end = len(all)
	}
	return all[r.Offset:end]
}
