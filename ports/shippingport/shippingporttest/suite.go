// Package shippingporttest holds the in-memory fake of the shipping store
// and the contract suite every shippingport.Rates implementation must pass.
package shippingporttest

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/feria/feria/core/shipping"
	"github.com/feria/feria/ports/shippingport"
)

// Table returns a valid, normalized table of a site for tests.
func Table(site, currency string, firstCost shipping.Decimal) shipping.Rates {
	return shipping.Rates{SiteID: site, CurrencyID: currency, VolumetricDivisor: "5000",
		WeightTiers:         []shipping.Tier{{UpTo: 500, Cost: firstCost}, {UpTo: 1000, Cost: "5200.55"}, {UpTo: 30000, Cost: "15000"}},
		ReputationDiscounts: map[string]shipping.Decimal{"green": "0.5", "yellow": "0.125"}}
}

// TestRates runs the contract suite against the store newStore returns,
// which must be empty.
func TestRates(t *testing.T, newStore func(t *testing.T) shippingport.Rates) {
	ctx := context.Background()

	t.Run("empty store", func(t *testing.T) {
		s := newStore(t)
		for _, sites := range [][]string{nil, {}, {"MLA", "MLB"}} {
			got, err := s.RatesOf(ctx, sites)
			if err != nil || got == nil || len(got) != 0 {
				t.Errorf("RatesOf(%v) = %v, %v; want an empty map", sites, got, err)
			}
		}
	})

	t.Run("put, read back, replace", func(t *testing.T) {
		s := newStore(t)
		mla := Table("MLA", "ARS", "4000")
		mlb := Table("MLB", "BRL", "22.9")
		mlb.ReputationDiscounts = map[string]shipping.Decimal{}
		mlb.VolumetricDivisor = "2500.5"
		for _, r := range []shipping.Rates{mla, mlb} {
			if err := s.PutRates(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.RatesOf(ctx, []string{"MLA", "MLB", "MLM"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]shipping.Rates{"MLA": mla, "MLB": mlb}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("RatesOf =\n %+v\nwant\n %+v", got, want)
		}
		if got, _ := s.RatesOf(ctx, []string{"MLB"}); !reflect.DeepEqual(got, map[string]shipping.Rates{"MLB": mlb}) {
			t.Errorf("RatesOf(MLB) = %+v", got)
		}

		// A second put replaces the whole table: fewer tiers, other discounts.
		mla2 := shipping.Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "6000",
			WeightTiers:         []shipping.Tier{{UpTo: 2000, Cost: "0"}},
			ReputationDiscounts: map[string]shipping.Decimal{"red": "1"}}
		if err := s.PutRates(ctx, mla2); err != nil {
			t.Fatal(err)
		}
		got, _ = s.RatesOf(ctx, []string{"MLA", "MLB"})
		if !reflect.DeepEqual(got, map[string]shipping.Rates{"MLA": mla2, "MLB": mlb}) {
			t.Errorf("after replacing MLA:\n %+v", got)
		}
	})

	t.Run("what was put does not change with the caller's copy", func(t *testing.T) {
		s := newStore(t)
		r := Table("MLM", "MXN", "99")
		if err := s.PutRates(ctx, r); err != nil {
			t.Fatal(err)
		}
		r.WeightTiers[0].Cost = "1"
		r.ReputationDiscounts["green"] = "0"
		got, _ := s.RatesOf(ctx, []string{"MLM"})
		if want := Table("MLM", "MXN", "99"); !reflect.DeepEqual(got["MLM"], want) {
			t.Errorf("stored table changed with the caller's: %+v", got["MLM"])
		}
	})

	t.Run("concurrent puts of one site leave one whole table", func(t *testing.T) {
		s := newStore(t)
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- s.PutRates(ctx, Table("MLC", "CLP", shipping.Decimal(fmt.Sprint(3000+i))))
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.RatesOf(ctx, []string{"MLC"})
		if err != nil || len(got) != 1 {
			t.Fatalf("RatesOf: %v %v", got, err)
		}
		first := got["MLC"].WeightTiers[0].Cost
		if want := Table("MLC", "CLP", first); !reflect.DeepEqual(got["MLC"], want) {
			t.Errorf("a mixed table: %+v", got["MLC"])
		}
	})
}
