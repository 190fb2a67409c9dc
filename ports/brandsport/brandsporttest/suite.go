// Package brandsporttest is the contract suite every brandsport.Store
// implementation must pass.
package brandsporttest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/ports/brandsport"
)

// Env is a fresh store and a way to create the users brands bind.
type Env struct {
	Store   brandsport.Store
	AddUser func(ctx context.Context, id int64)
}

// Brand returns a valid brand for tests.
func Brand(id int64, users ...int64) brands.Brand {
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	return brands.Brand{ID: id, SiteID: "MLA", Name: "Acme Parts", FantasyName: "Acme", NormalizedName: "Acme Parts",
		Type: "normal", Status: "active", RelevancePosition: 1, Users: users,
		Pictures:      []brands.Picture{{ID: "p1", Name: "logo", URL: "http://example.invalid/l.png", Size: "120x120"}},
		CategoriesIDs: []string{"MLA1747"}, MainCategories: []brands.CategoryRef{{ID: "MLA1747"}}, Tags: []string{},
		DateCreated: t0, LastUpdated: t0}
}

// TestStore runs the contract suite.
func TestStore(t *testing.T, newEnv func(t *testing.T) Env) {
	ctx := context.Background()
	e := newEnv(t)
	for _, u := range []int64{123, 789} {
		e.AddUser(ctx, u)
	}
	if _, err := e.Store.Brand(ctx, 5001); !errors.Is(err, brandsport.ErrNotFound) {
		t.Fatalf("missing brand: %v", err)
	}
	b := Brand(5001, 789, 123)
	if err := e.Store.UpsertBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if err := e.Store.UpsertBrand(ctx, Brand(5002, 789)); err != nil {
		t.Fatal(err)
	}
	got, err := e.Store.Brand(ctx, 5001)
	if err != nil {
		t.Fatal(err)
	}
	got.DateCreated, got.LastUpdated = got.DateCreated.UTC(), got.LastUpdated.UTC()
	if !reflect.DeepEqual(got, b) {
		t.Errorf("brand:\n got %#v\nwant %#v", got, b)
	}
	ids := func(user int64) (out []int64) {
		t.Helper()
		bs, err := e.Store.BrandsOfUser(ctx, user)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bs {
			out = append(out, b.ID)
		}
		return out
	}
	if got := ids(789); !reflect.DeepEqual(got, []int64{5001, 5002}) {
		t.Errorf("brands of 789: %v", got)
	}
	b2 := Brand(5001, 789)
	b2.Name = "Acme 2"
	b2.DateCreated = b.DateCreated.Add(time.Hour)
	if err := e.Store.UpsertBrand(ctx, b2); err != nil {
		t.Fatal(err)
	}
	if got := ids(123); got != nil {
		t.Errorf("brands of 123 after unbinding: %v, want none", got)
	}
	got, _ = e.Store.Brand(ctx, 5001)
	if got.Name != "Acme 2" || !got.DateCreated.Equal(b.DateCreated) {
		t.Errorf("re-upsert: %+v: want the new name and the first date_created", got)
	}
}
