package shipping

import "github.com/feria/feria/core/kernel"

// Errors of the module. Their causes name the parameter or field at fault.
var (
	// ErrInvalidRates is a rate table that breaks a rule of docs/sandbox.md.
	ErrInvalidRates = kernel.E(kernel.Invalid, "bad_request", "invalid shipping rates")
	// ErrBadDimensions is a dimensions value that is not HxWxL,weight in
	// positive integers.
	ErrBadDimensions = kernel.E(kernel.Invalid, "bad_request", "invalid dimensions")
	// ErrNoDimensions is a cost with no dimensions anywhere: none given,
	// none on the item, none on the category.
	ErrNoDimensions = kernel.E(kernel.Invalid, "bad_request", "no dimensions")
	// ErrTooHeavy is a package heavier than the last weight tier.
	ErrTooHeavy = kernel.E(kernel.Invalid, "bad_request", "package too heavy")
)
