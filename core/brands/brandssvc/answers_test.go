package brandssvc_test

import (
	"context"
	"errors"
	"testing"

	"github.com/feria/feria/core/brands"
	"github.com/feria/feria/core/brands/brandssvc"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
	"github.com/feria/feria/ports/brandsport/brandsporttest"
)

func TestUserBrands(t *testing.T) {
	ctx := context.Background()
	m := brandsporttest.NewMemory()
	s := brandssvc.New(brandssvc.Deps{Store: m, Users: users, Clock: &kerneltest.Clock{At: t0}})
	for _, b := range []brands.Brand{
		{ID: 5001, SiteID: "MLA", Name: "Acme", Users: []int64{123, 789}},
		{ID: 5002, SiteID: "MLA", Name: "Other"},
		{ID: 5003, SiteID: "MLB", Name: "Brasil", Users: []int64{123}},
	} {
		if _, err := s.PutBrand(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	a, err := s.UserBrands(ctx, 123)
	if err != nil || a.Status != brands.Linked || len(a.Brands) != 1 || a.Brands[0].OfficialStoreID != 5001 || a.UserType != "brand" {
		t.Errorf("brands of 123: %+v %v", a, err)
	}
	d, err := s.UserBrand(ctx, 789, 5001)
	if err != nil || len(d.Users) != 2 || d.Users[0].CustID != 123 || d.Users[1].CustID != 789 {
		t.Errorf("brand 5001: %+v %v", d, err)
	}
	if d, err := s.UserBrand(ctx, 123, 5002); err != nil || len(d.Users) != 0 {
		t.Errorf("a brand of the site not bound to the user: %+v %v", d, err)
	}
	tests := []struct {
		name         string
		user, brand  int64
		code, wanted string
	}{
		{"unknown user", 999, 5001, "U00002", "user not found: 999"},
		{"unknown brand", 123, 5009, "B00001", "brand 5009 not found for site MLA"},
		{"brand of another site", 123, 5003, "B00001", "brand 5003 not found for site MLA"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.UserBrand(ctx, tt.user, tt.brand)
			var e *kernel.Error
			if !errors.As(err, &e) || e.Kind != kernel.NotExist || e.Code != tt.code || e.Message != tt.wanted {
				t.Fatalf("err = %v, want %s %q", err, tt.code, tt.wanted)
			}
		})
	}
	if _, err := s.UserBrands(ctx, 999); kernel.KindOf(err) != kernel.NotExist {
		t.Errorf("brands of an unknown user: %v", err)
	}
	if _, err := s.UserBrands(ctx, 500); !errors.Is(err, errDown) {
		t.Errorf("users down: %v", err)
	}
}
