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

// Catalog is what shipping reads of the catalog module: one category or
// item, or many in one read each (the multi-item cost reads a fixed number
// of times whatever the number of items).
type Catalog interface {
	Category(ctx context.Context, id string) (catalog.Category, error)
	Item(ctx context.Context, id string) (catalog.Item, error)
	// Items returns the stored items among ids, in any order; unknown ids
	// are left out.
	Items(ctx context.Context, ids []string) ([]catalog.Item, error)
	// Categories returns the stored categories among ids, in any order.
	Categories(ctx context.Context, ids []string) ([]catalog.Category, error)
}

// Users is what shipping reads of the account module: sellers and their
// reputation.
type Users interface {
	User(ctx context.Context, id int64) (account.User, error)
	// Users returns the stored users among ids, in any order.
	Users(ctx context.Context, ids []int64) ([]account.User, error)
}
