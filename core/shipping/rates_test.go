package shipping

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/feria/feria/core/kernel"
	"github.com/google/go-cmp/cmp"
)

func TestNormalize(t *testing.T) {
	t.Run("canonical numbers", func(t *testing.T) {
		in := Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "5e3",
			WeightTiers:         []Tier{{500, "4000.00"}, {1000, "52e2"}, {30000, "0.10"}},
			ReputationDiscounts: map[string]Decimal{"green": "0.50", "yellow": "4E-1", "red": "0"}}
		got, err := Normalize(in)
		if err != nil {
			t.Fatal(err)
		}
		want := Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "5000",
			WeightTiers:         []Tier{{500, "4000"}, {1000, "5200"}, {30000, "0.1"}},
			ReputationDiscounts: map[string]Decimal{"green": "0.5", "yellow": "0.4", "red": "0"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Normalize (-want +got):\n%s", diff)
		}
		again, err := Normalize(got)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Normalize is not idempotent: %+v %v", again, err)
		}
	})
	t.Run("no discounts is an empty map", func(t *testing.T) {
		got, err := Normalize(Rates{SiteID: "MEC", CurrencyID: "USD", VolumetricDivisor: "6000", WeightTiers: []Tier{{1, "0"}}})
		if err != nil || got.ReputationDiscounts == nil || len(got.ReputationDiscounts) != 0 {
			t.Errorf("got %+v %v", got, err)
		}
	})
	valid := func(edit func(r *Rates)) Rates {
		r := Rates{SiteID: "MLA", CurrencyID: "ARS", VolumetricDivisor: "5000",
			WeightTiers:         []Tier{{500, "4000"}, {1000, "5200"}},
			ReputationDiscounts: map[string]Decimal{"green": "0.5"}}
		edit(&r)
		return r
	}
	bad := []struct {
		name   string
		rates  Rates
		causes []string
	}{
		{"unknown site", valid(func(r *Rates) { r.SiteID = "MLX" }), []string{"site_id"}},
		{"currency of another site", valid(func(r *Rates) { r.CurrencyID = "BRL" }), []string{"currency_id"}},
		{"no currency", valid(func(r *Rates) { r.CurrencyID = "" }), []string{"currency_id"}},
		{"divisor zero", valid(func(r *Rates) { r.VolumetricDivisor = "0" }), []string{"volumetric_divisor"}},
		{"divisor negative", valid(func(r *Rates) { r.VolumetricDivisor = "-5000" }), []string{"volumetric_divisor"}},
		{"divisor missing", valid(func(r *Rates) { r.VolumetricDivisor = "" }), []string{"volumetric_divisor"}},
		{"divisor huge exponent", valid(func(r *Rates) { r.VolumetricDivisor = "1e999999999" }), []string{"volumetric_divisor"}},
		{"no tiers", valid(func(r *Rates) { r.WeightTiers = nil }), []string{"weight_tiers"}},
		{"up_to zero", valid(func(r *Rates) { r.WeightTiers[0].UpTo = 0 }), []string{"weight_tiers[0].up_to"}},
		{"up_to equal to the previous", valid(func(r *Rates) { r.WeightTiers[1].UpTo = 500 }), []string{"weight_tiers[1].up_to"}},
		{"up_to decreasing", valid(func(r *Rates) { r.WeightTiers[1].UpTo = 400 }), []string{"weight_tiers[1].up_to"}},
		{"negative cost", valid(func(r *Rates) { r.WeightTiers[1].Cost = "-1" }), []string{"weight_tiers[1].cost"}},
		{"cost with three decimals", valid(func(r *Rates) { r.WeightTiers[0].Cost = "4000.555" }), []string{"weight_tiers[0].cost"}},
		{"cost missing", valid(func(r *Rates) { r.WeightTiers[0].Cost = "" }), []string{"weight_tiers[0].cost"}},
		{"rate above 1", valid(func(r *Rates) { r.ReputationDiscounts["green"] = "1.01" }), []string{"reputation_discounts.green"}},
		{"rate below 0", valid(func(r *Rates) { r.ReputationDiscounts["green"] = "-0.1" }), []string{"reputation_discounts.green"}},
		{"unknown reputation", valid(func(r *Rates) { r.ReputationDiscounts["platinum"] = "0.1" }), []string{"reputation_discounts.platinum"}},
		{"every problem at once", valid(func(r *Rates) {
			r.CurrencyID, r.VolumetricDivisor = "USD", "0"
			r.WeightTiers[1].UpTo, r.WeightTiers[1].Cost = 1, "-2"
			r.ReputationDiscounts["yellow"] = "2"
		}), []string{"currency_id", "volumetric_divisor", "weight_tiers[1].up_to", "weight_tiers[1].cost", "reputation_discounts.yellow"}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := Normalize(c.rates)
			if !errors.Is(err, ErrInvalidRates) {
				t.Fatalf("Normalize: %v, want ErrInvalidRates", err)
			}
			var e *kernel.Error
			errors.As(err, &e)
			var got []string
			for _, cause := range e.Causes {
				got = append(got, cause.Code)
			}
			if !reflect.DeepEqual(got, c.causes) {
				t.Errorf("causes %v, want %v (%s)", got, c.causes, e.Message)
			}
		})
	}
}

func TestDecimalJSON(t *testing.T) {
	var r struct {
		D Decimal `json:"d"`
	}
	if err := json.Unmarshal([]byte(`{"d": 0.50}`), &r); err != nil || r.D != "0.50" {
		t.Fatalf("number: %q %v", r.D, err)
	}
	for _, bad := range []string{`"0.5"`, `true`, `null`, `[1]`, `{}`} {
		var r struct {
			D Decimal `json:"d"`
		}
		err := json.Unmarshal([]byte(`{"d": `+bad+`}`), &r)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) || te.Field != "d" {
			t.Errorf("%s: %v, want a type error naming d", bad, err)
		}
	}
	if b, _ := json.Marshal(struct{ D Decimal }{"0.5"}); string(b) != `{"D":0.5}` {
		t.Errorf("marshal: %s", b)
	}
	if b, _ := json.Marshal(struct{ D Decimal }{}); string(b) != `{"D":0}` {
		t.Errorf("marshal zero: %s", b)
	}
}

// Every site has a default table that is valid and already canonical.
func TestDefaults(t *testing.T) {
	for _, site := range []string{"MLA", "MLB", "MLM", "MLC", "MCO", "MLU", "MPE", "MEC"} {
		d, ok := Default(site)
		if !ok {
			t.Fatalf("no default table for %s", site)
		}
		n, err := Normalize(d)
		if err != nil {
			t.Fatalf("%s: %v", site, err)
		}
		if !reflect.DeepEqual(n, d) {
			t.Errorf("%s default is not canonical:\n %+v\n %+v", site, d, n)
		}
	}
	if _, ok := Default("MLX"); ok {
		t.Error("a default table for an unknown site")
	}
	if d, _ := Default("MLA"); !reflect.DeepEqual(d, mla) {
		t.Errorf("MLA default is not docs/sandbox.md's example: %+v", d)
	}
}

// TestDefaultsDocumented keeps docs/shipping.md in step with the default
// tables: one row per site with its currency, divisor, costs and discounts.
func TestDefaultsDocumented(t *testing.T) {
	b, err := readDoc()
	if err != nil {
		t.Fatal(err)
	}
	for _, site := range []string{"MLA", "MLB", "MLM", "MLC", "MCO", "MLU", "MPE", "MEC"} {
		d, _ := Default(site)
		cells := []string{"`" + site + "`", d.CurrencyID, string(d.VolumetricDivisor)}
		for _, tier := range d.WeightTiers {
			cells = append(cells, string(tier.Cost))
		}
		cells = append(cells, string(d.ReputationDiscounts["green"]), string(d.ReputationDiscounts["yellow"]))
		row := "| " + strings.Join(cells, " | ") + " |"
		if !strings.Contains(b, row) {
			t.Errorf("docs/shipping.md lacks the row %s", row)
		}
	}
	head := "| site | currency | volumetric_divisor | up to 500 g | up to 1000 g | up to 5000 g | up to 30000 g | green | yellow |"
	if !strings.Contains(b, head) || defaultTiers != [4]int64{500, 1000, 5000, 30000} {
		t.Errorf("docs/shipping.md lacks the header %s", head)
	}
}
