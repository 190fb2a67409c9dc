package compat

import (
	"fmt"
	"github.com/feria/feria/core/kernel"
)

// Errors of area B. Each is one row (or part of a row) of the
// contract's compatibilities errors; messages are safe to show.
var (
	ErrItemNotFound          = kernel.E(kernel.NotExist, "not_found", "item not found")
	ErrProductNotFound       = kernel.E(kernel.NotExist, "not_found", "product not found")
	ErrDomainNotFound        = kernel.E(kernel.NotExist, "not_found", "domain not found")
	ErrCompatibilityNotFound = kernel.E(kernel.NotExist, "not_found", "compatibility not found")
	ErrNotSeller             = kernel.E(kernel.Permission, "forbidden", "the caller has no permission on the item")
	ErrForbiddenToken        = kernel.E(kernel.Permission, "forbidden", "invalid access token")

	ErrIncomplete      = kernel.E(kernel.Invalid, "bad_request", "required fields are incomplete")
	ErrBadFormat       = kernel.E(kernel.Invalid, "bad_request", "ids are badly formatted")
	ErrTooManyProducts = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("more than %d products found or specified for product domains", MaxProducts))
	ErrTooManyDomains  = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("more than %d product domains", MaxDomains))
	ErrOtherSite       = kernel.E(kernel.Invalid, "bad_request", "products or domains are not of the item's site")
	ErrNotChildren     = kernel.E(kernel.Invalid, "bad_request", "products are not all children")
	ErrDomainMismatch  = kernel.E(kernel.Invalid, "bad_request", "the item's domain is not compatible with the specified domains")
	ErrNoteNotAllowed  = kernel.E(kernel.Invalid, "bad_request", "the item's category does not allow notes")
	ErrRestrNotAllowed = kernel.E(kernel.Invalid, "bad_request", "the item's category does not allow restrictions")
	ErrBadRestriction  = kernel.E(kernel.Invalid, "bad_request", "restrictions are not valid for the domains")
	ErrBadCreation     = kernel.E(kernel.Invalid, "bad_request", "creation_source is not valid")
	ErrNoCategory      = kernel.E(kernel.Invalid, "bad_request", "no compatibility is configured for the item's category")

	ErrInvalidArguments = kernel.E(kernel.Invalid, "bad_request", "Invalid arguments for specific request")
	ErrHasCompat        = kernel.E(kernel.Invalid, "bad_request", "the item has compatibilities that must be removed first")
	ErrIsUniversal      = kernel.E(kernel.Invalid, "bad_request", "the item is universal and must be reset before creating compatibilities")
	ErrNoUniversal      = kernel.E(kernel.Invalid, "bad_request", "no universal compatibility is configured for the item's category")

	ErrItemInactive     = kernel.E(kernel.Invalid, "bad_request", "the item is closed or inactive")
	ErrExceptionCompat  = kernel.E(kernel.Invalid, "bad_request", "the item has compatibilities")
	ErrExceptionNoCat   = kernel.E(kernel.Invalid, "bad_request", "the item's category has no compatibilities")
	ErrExceptionTwice   = kernel.E(kernel.Invalid, "bad_request", "the item already has an exception")
	ErrCommentMissing   = kernel.E(kernel.Invalid, "bad_request", "comment is required")
	ErrCommentTooLong   = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("comment is longer than %d characters", MaxExceptionComment))
	ErrTooManyItems     = kernel.E(kernel.Invalid, "bad_request", fmt.Sprintf("more than %d items", MaxSummaryItems))
	ErrBadFilters       = kernel.E(kernel.Invalid, "bad_request", "filters must be REPUTATION, SUGGESTED or both")
	ErrSnapshotNotFound = kernel.E(kernel.Invalid, "bad_request", "snapshot for the order id not found")
	ErrSnapshotNoClaim  = kernel.E(kernel.Permission, "forbidden", "snapshot only for orders with claims")
	ErrSnapshotSeller   = kernel.E(kernel.Permission, "forbidden", "caller must be the seller of the item")
	ErrSnapshotToken    = kernel.E(kernel.Unauthenticated, "unauthorized", "Invalid access token")
)
