// Package shippingport declares what the shipping module offers (Service)
// and what it needs: a store of the rate tables the sandbox puts (Rates), and
// the items, categories and sellers it prices, read from the catalog and
// account modules several at a time (Catalog, Users).
package shippingport

import (
	"context"
	"errors"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/shipping"
)

// ErrNotFound is returned by stores for a missing row.
var ErrNotFound = errors.New("not found")

// Service is what HTTP and the sandbox call. Parameters arrive as the
// client wrote them: the service checks them (400 naming the parameter)
// before it reads anything, then what they name (404), then how they fit
// together (400).
type Service interface {
	// Modes are the shipping modes user userID may use in a category.
	Modes(ctx context.Context, userID int64, categoryID string) ([]shipping.Mode, error)
	// Preferences are a category's shipping preferences.
	Preferences(ctx context.Context, categoryID string) (shipping.Preferences, error)
	// UserCost is the free-shipping cost of /users/{user_id}/shipping_options/free
	// in its three forms (shipping.ReadCostQuery); param returns a query
	// parameter, "" when absent.
	UserCost(ctx context.Context, userID int64, param func(name string) string) (shipping.Quote, error)
	// ItemCost is the free-shipping cost of an existing item for its seller;
	// dimensions "" falls back to the item's, then its category's.
	ItemCost(ctx context.Context, itemID, dimensions string) (shipping.Quote, error)
	// ItemsCost prices the items of ids (comma-separated, at most
	// shipping.MaxItems) in a fixed number of reads, in the order of ids.
	ItemsCost(ctx context.Context, ids, dimensions string) ([]ItemQuote, error)
	// PutRates validates and stores a site's rate table (sandbox) and
	// answers it as stored.
	PutRates(ctx context.Context, r shipping.Rates) (shipping.Rates, error)
	// Rates is the table in force for a site: the stored one, else the
	// default.
	Rates(ctx context.Context, siteID string) (shipping.Rates, error)
}

// ItemQuote is the cost of one item of a multi-item call.
type ItemQuote struct {
	ItemID string
	Quote  shipping.Quote
}

// Rates stores the rate tables the sandbox puts. A site without a stored
// table uses its default (shipping.Default), so emptying the store returns
// every site to its default.
type Rates interface {
	// PutRates stores a site's table (already normalized), replacing the
	// one stored before.
	PutRates(ctx context.Context, r shipping.Rates) error
	// RatesOf returns the stored tables of the given sites in one read,
	// keyed by site id; a site without one is absent from the map.
	RatesOf(ctx context.Context, sites []string) (map[string]shipping.Rates, error)
}

// Catalog is what shipping reads of the catalog module: the parcels of
// items and their categories, many in one read each (the multi-item cost
// reads a fixed number of times whatever the number of items).
type Catalog interface {
	// Category returns a category or catalog.ErrCategoryNotFound.
	Category(ctx context.Context, id string) (catalog.Category, error)
	// Categories returns the stored categories among ids, in any order.
	Categories(ctx context.Context, ids []string) ([]catalog.Category, error)
	// Parcels returns the parcels of the stored items among ids, in any
	// order; unknown ids are left out.
	Parcels(ctx context.Context, ids []string) ([]catalog.Parcel, error)
}

// Users is what shipping reads of the account module: sellers and their
// reputation.
type Users interface {
	// User returns a user or account.ErrUserNotFound.
	User(ctx context.Context, id int64) (account.User, error)
	// Users returns the stored users among ids, in any order.
	Users(ctx context.Context, ids []int64) ([]account.User, error)
}
