package shipping

import (
	"errors"
	"testing"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/kernel/kerneltest"
)

// mla is docs/sandbox.md's example table, which is also the Argentine default.
var mla = Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "5000",
	WeightTiers:         []Tier{{500, "4000"}, {1000, "5200"}, {5000, "9500"}, {30000, "15000"}},
	ReputationDiscounts: map[string]Decimal{"green": "0.5", "yellow": "0.4"}}

func TestQuote(t *testing.T) {
	odd := Rates{SiteID: "MLB", CurrencyID: "BRL", VolumetricDivisor: "2500.5",
		WeightTiers:         []Tier{{1000, "22.9"}, {2000, "0.15"}, {3000, "0.01"}, {4000, "9500"}},
		ReputationDiscounts: map[string]Decimal{"green": "0.45", "yellow": "0.5", "orange": "0.333", "red": "1"}}
	cases := []struct {
		name  string
		rates Rates
		pkg   Package
		rep   *string
		want  Quote
	}{
		{"real weight above volumetric, green", mla, Package{10, 10, 10, 800}, kerneltest.Ptr("green"),
			Quote{"ARS", 800, 520000, "0.5", 260000, 260000, DiscountLoyal}},
		{"volumetric above real weight, yellow", mla, Package{10, 20, 30, 500}, kerneltest.Ptr("yellow"),
			Quote{"ARS", 1200, 950000, "0.4", 380000, 570000, DiscountLoyal}},
		{"weight exactly on a tier's up_to", mla, Package{5, 5, 5, 500}, kerneltest.Ptr("green"),
			Quote{"ARS", 500, 400000, "0.5", 200000, 200000, DiscountLoyal}},
		{"one gram above a tier's up_to", mla, Package{5, 5, 5, 501}, kerneltest.Ptr("green"),
			Quote{"ARS", 501, 520000, "0.5", 260000, 260000, DiscountLoyal}},
		{"volumetric weight rounds up to the gram", mla, Package{7, 7, 7, 1}, nil,
			Quote{"ARS", 69, 400000, "0", 0, 400000, DiscountNone}},
		{"volumetric weight exactly on up_to", mla, Package{10, 10, 25, 1}, kerneltest.Ptr("red"),
			Quote{"ARS", 500, 400000, "0", 0, 400000, DiscountNone}},
		{"exactly the last tier", mla, Package{1, 1, 1, 30000}, kerneltest.Ptr("orange"),
			Quote{"ARS", 30000, 1500000, "0", 0, 1500000, DiscountNone}},
		{"no reputation, no discount", mla, Package{10, 20, 30, 6000}, nil,
			Quote{"ARS", 6000, 1500000, "0", 0, 1500000, DiscountNone}},
		{"reputation without an entry, no discount", mla, Package{10, 20, 30, 6000}, kerneltest.Ptr("orange"),
			Quote{"ARS", 6000, 1500000, "0", 0, 1500000, DiscountNone}},
		{"decimal divisor: 1e6/2500.5 = 399.92 → 400", odd, Package{10, 10, 10, 1}, nil,
			Quote{"BRL", 400, 2290, "0", 0, 2290, DiscountNone}},
		// 22.90 · 0.45 = 10.305: half away from zero is 10.31 (banker's
		// rounding would give 10.30, float64 arithmetic 10.305000000000001).
		{"half a cent rounds away from zero", odd, Package{1, 1, 1, 1000}, kerneltest.Ptr("green"),
			Quote{"BRL", 1000, 2290, "0.45", 1031, 1259, DiscountLoyal}},
		// 0.15 · 0.5 = 0.075 → 0.08, where float64 gives 0.075 = 0.07499….
		{"0.075 rounds to 0.08", odd, Package{1, 1, 1, 1500}, kerneltest.Ptr("yellow"),
			Quote{"BRL", 1500, 15, "0.5", 8, 7, DiscountLoyal}},
		{"one cent at half", odd, Package{1, 1, 1, 2500}, kerneltest.Ptr("yellow"),
			Quote{"BRL", 2500, 1, "0.5", 1, 0, DiscountLoyal}},
		// 9500 · 0.333 = 3163.5 exactly.
		{"three decimals of rate", odd, Package{1, 1, 1, 4000}, kerneltest.Ptr("orange"),
			Quote{"BRL", 4000, 950000, "0.333", 316350, 633650, DiscountLoyal}},
		{"a full discount", odd, Package{1, 1, 1, 4000}, kerneltest.Ptr("red"),
			Quote{"BRL", 4000, 950000, "1", 950000, 0, DiscountLoyal}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.rates.Quote(c.pkg, c.rep)
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("Quote(%v) =\n %+v, want\n %+v", c.pkg, got, c.want)
			}
		})
	}
}

func TestQuoteTooHeavy(t *testing.T) {
	for _, p := range []Package{{1, 1, 1, 30001}, {100, 100, 100, 1}, {1 << 40, 1 << 40, 1 << 40, 1}} {
		_, err := mla.Quote(p, nil)
		if !errors.Is(err, ErrTooHeavy) {
			t.Fatalf("Quote(%v): %v, want ErrTooHeavy", p, err)
		}
		var e *kernel.Error
		if !errors.As(err, &e) || len(e.Causes) != 1 || e.Causes[0].Code != "dimensions" {
			t.Errorf("Quote(%v): causes %+v, want one naming dimensions", p, e.Causes)
		}
	}
	_, err := mla.Quote(Package{100, 100, 100, 1}, nil)
	if want := "dimensions 100x100x100,1 give a billable weight of 200000 g, heavier than the last weight tier of MLA (30000 g)"; kernel.MessageOf(err) != want {
		t.Errorf("message %q, want %q", kernel.MessageOf(err), want)
	}
}

func TestAmountString(t *testing.T) {
	for cents, want := range map[Amount]string{0: "0", 5: "0.05", 50: "0.5", 250: "2.5", 400000: "4000", 316355: "3163.55", 208050: "2080.5", -105: "-1.05"} {
		if got := cents.String(); got != want {
			t.Errorf("Amount(%d) = %q, want %q", cents, got, want)
		}
		if b, _ := cents.MarshalJSON(); string(b) != want {
			t.Errorf("Amount(%d) JSON = %s, want %s", cents, b, want)
		}
	}
}

// A table that did not go through Normalize is a fault of ours, not a
// client's: an internal error, never a quote.
func TestTableNotNormalized(t *testing.T) {
	for _, r := range []Rates{
		{SiteID: "MLA", VolumetricDivisor: "x", WeightTiers: mla.WeightTiers},
		{SiteID: "MLA", VolumetricDivisor: "0", WeightTiers: mla.WeightTiers},
		{SiteID: "MLA", VolumetricDivisor: "5000"},
		{SiteID: "MLA", VolumetricDivisor: "5000", WeightTiers: []Tier{{500, "4000.555"}}},
		{SiteID: "MLA", VolumetricDivisor: "5000", WeightTiers: mla.WeightTiers, ReputationDiscounts: map[string]Decimal{"green": "half"}},
	} {
		if _, err := r.Quote(Package{1, 1, 1, 1}, nil); kernel.KindOf(err) != kernel.Internal || err == nil {
			t.Errorf("Quote on %+v: %v, want an internal error", r, err)
		}
	}
}
