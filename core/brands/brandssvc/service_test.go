package brandssvc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/feria/feria/core/account"
	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/brands/brandssvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/accountport/accountporttest"
	"github.com/feria/feria/ports/brandsport/brandsporttest"
	"github.com/google/go-cmp/cmp"
)

// users knows 123 and 789; 500 fails as a broken backend would.
var (
	errDown = errors.New("users down")
	users   = accountporttest.Users{
		Known: map[int64]account.User{123: {ID: 123, SiteID: "MLA", UserType: "brand"}, 789: {ID: 789, SiteID: "MLA", UserType: "brand"}},
		Down:  map[int64]error{500: errDown},
	}
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func TestPutBrand(t *testing.T) {
	ctx := context.Background()
	body := func() brands.Brand {
		return brands.Brand{ID: 5001, SiteID: "MLA", Name: "Ácme  Parts", Users: []int64{123}, CategoriesIDs: []string{"MLA1747"}}
	}
	tests := []struct {
		name    string
		edit    func(*brands.Brand)
		field   string
		message string
		is      error
	}{
		{name: "unknown user", edit: func(b *brands.Brand) { b.Users = []int64{123, 999} }, field: "users[1]", message: "user 999 does not exist"},
		{name: "unknown site", edit: func(b *brands.Brand) { b.SiteID = "XXX" }, field: "site_id", message: `site_id must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got "XXX"`},
		{name: "bad status", edit: func(b *brands.Brand) { b.Status = "closed" }, field: "status", message: `status must be one of active, inactive, got "closed"`},
		{name: "repeated user", edit: func(b *brands.Brand) { b.Users = []int64{123, 123} }, field: "users[1]", message: "users must be distinct positive user ids"},
		{name: "category of another site", edit: func(b *brands.Brand) { b.CategoriesIDs = []string{"MLB1"} }, field: "categories_ids[0]",
			message: `categories_ids[0] must be a category id of site MLA, got "MLB1"`},
		{name: "users backend down", edit: func(b *brands.Brand) { b.Users = []int64{500} }, is: errDown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := brandsporttest.NewMemory()
			s := brandssvc.New(brandssvc.Deps{Store: m, Users: users, Clock: &kerneltest.Clock{At: t0}})
			b := body()
			tt.edit(&b)
			_, err := s.PutBrand(ctx, b)
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Fatalf("err = %v, want %v", err, tt.is)
				}
			} else {
				var e *kernel.Error
				if !errors.As(err, &e) || e.Kind != kernel.Invalid || e.Message != tt.message || len(e.Causes) == 0 || e.Causes[0].Code != tt.field {
					t.Fatalf("err = %#v, want invalid %q naming %s", err, tt.message, tt.field)
				}
			}
			if _, err := m.Brand(ctx, 5001); err == nil {
				t.Errorf("a rejected brand was stored")
			}
		})
	}

	t.Run("defaults, normalized name, dates, idempotent", func(t *testing.T) {
		m := brandsporttest.NewMemory()
		c := &kerneltest.Clock{At: t0}
		s := brandssvc.New(brandssvc.Deps{Store: m, Users: users, Clock: c})
		got, err := s.PutBrand(ctx, body())
		if err != nil {
			t.Fatal(err)
		}
		want := brands.Brand{ID: 5001, SiteID: "MLA", Name: "Ácme  Parts", FantasyName: "Ácme  Parts", NormalizedName: brands.NormalizeName("Ácme  Parts"),
			Type: "normal", Status: "active", Users: []int64{123}, Pictures: []brands.Picture{}, CategoriesIDs: []string{"MLA1747"},
			MainCategories: []brands.CategoryRef{{ID: "MLA1747"}}, Tags: []string{}, DateCreated: t0, LastUpdated: t0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("brand (-want +got):\n%s", diff)
		}
		c.At = t0.Add(time.Hour)
		again, err := s.PutBrand(ctx, body())
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, again); diff != "" {
			t.Errorf("same body again changed the brand (-want +got):\n%s", diff)
		}
		changed := body()
		changed.RelevancePosition = 2
		got, err = s.PutBrand(ctx, changed)
		if err != nil || !got.DateCreated.Equal(t0) || !got.LastUpdated.Equal(c.At) {
			t.Errorf("changed: %v %v %v, want date_created kept, last_updated moved", got.DateCreated, got.LastUpdated, err)
		}
		list, err := s.BrandsOfUser(ctx, 123)
		if err != nil || len(list) != 1 || list[0].ID != 5001 {
			t.Errorf("brands of 123: %+v %v", list, err)
		}
		if _, err := s.Brand(ctx, 5002); !errors.Is(err, brands.ErrBrandNotFound) {
			t.Errorf("missing brand: %v", err)
		}
	})
}

func TestNormalizedName(t *testing.T) {
	if got := brands.NormalizeName("Ácme  Parts"); got != "Acme Parts" {
		t.Errorf("NormalizeName = %q", got)
	}
}
