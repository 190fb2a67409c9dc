package webhooks

import "github.com/feria/feria/core/kernel"

// Errors of the module.
var (
	ErrInvalid     = kernel.E(kernel.Invalid, "bad_request", "invalid notification request")
	ErrNoCaller    = kernel.E(kernel.Unauthenticated, "unauthorized", "access token required")
	ErrNotTheOwner = kernel.E(kernel.Permission, "forbidden", "only the application's owner may read its missed feeds")
)
