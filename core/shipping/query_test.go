package shipping

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/feria/feria/core/kernel"
)

func params(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

func causesOf(err error) []string {
	var e *kernel.Error
	if !errors.As(err, &e) {
		return nil
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, c.Code)
	}
	return out
}

func TestReadCostQuery(t *testing.T) {
	listing := []string{"category_id", "MLA1747", "currency_id", "ARS", "listing_type_id", "gold_special",
		"condition", "new", "item_price", "15000"}
	good := []struct {
		name string
		get  func(string) string
		want CostQuery
	}{
		{"dimensions", params("dimensions", "10x20x30,500"), CostQuery{Form: ByDimensions, Dimensions: "10x20x30,500"}},
		{"item", params("item_id", "MLA1100"), CostQuery{Form: ByItem, ItemID: "MLA1100"}},
		{"item with dimensions", params("item_id", "MLA1100", "dimensions", "1x1x1,1"), CostQuery{Form: ByItem, ItemID: "MLA1100", Dimensions: "1x1x1,1"}},
		{"listing", params(listing...), CostQuery{Form: ByListing, Listing: Listing{"MLA1747", "ARS", "gold_special", "new", "15000"}}},
		{"listing with dimensions", params(append([]string{"dimensions", "1x1x1,1", "verbose", "true"}, listing...)...),
			CostQuery{Form: ByListing, Dimensions: "1x1x1,1", Listing: Listing{"MLA1747", "ARS", "gold_special", "new", "15000"}}},
		{"decimal price", params("category_id", "MLB1", "currency_id", "BRL", "listing_type_id", "free", "condition", "used", "item_price", "99.90"),
			CostQuery{Form: ByListing, Listing: Listing{"MLB1", "BRL", "free", "used", "99.90"}}},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			got, err := ReadCostQuery(c.get)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %+v %v, want %+v", got, err, c.want)
			}
		})
	}
	bad := []struct {
		name   string
		get    func(string) string
		causes []string
	}{
		{"nothing", params(), []string{"dimensions"}},
		{"malformed dimensions", params("dimensions", "10x20x30"), []string{"dimensions"}},
		{"zero dimension", params("dimensions", "0x20x30,500"), []string{"dimensions"}},
		{"negative dimension", params("dimensions", "10x-20x30,500"), []string{"dimensions"}},
		{"malformed item id", params("item_id", "1100"), []string{"item_id"}},
		{"item and a listing field", params("item_id", "MLA1100", "category_id", "MLA1747"), []string{"category_id"}},
		{"item with bad dimensions", params("item_id", "MLA1100", "dimensions", "a"), []string{"dimensions"}},
		{"listing without the rest", params("category_id", "MLA1747"), []string{"currency_id", "listing_type_id", "condition", "item_price"}},
		{"listing, every field bad", params("category_id", "1747", "currency_id", "ars", "listing_type_id", "platinum",
			"condition", "broken", "item_price", "0", "dimensions", "1x1x1,0"),
			[]string{"dimensions", "category_id", "currency_id", "listing_type_id", "condition", "item_price"}},
		{"negative price", params(append(listing[:8:8], "item_price", "-1")...), []string{"item_price"}},
		{"price not a number", params(append(listing[:8:8], "item_price", "abc")...), []string{"item_price"}},
		{"price with exponent", params(append(listing[:8:8], "item_price", "1e3")...), []string{"item_price"}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCostQuery(c.get)
			if !errors.Is(err, ErrBadQuery) || !reflect.DeepEqual(causesOf(err), c.causes) {
				t.Errorf("err %v causes %v, want %v", err, causesOf(err), c.causes)
			}
		})
	}
}

func TestReadVerbose(t *testing.T) {
	for s, want := range map[string]bool{"": false, "false": false, "true": true} {
		if got, err := ReadVerbose(s); err != nil || got != want {
			t.Errorf("ReadVerbose(%q) = %v %v", s, got, err)
		}
	}
	for _, s := range []string{"1", "TRUE", "yes"} {
		if _, err := ReadVerbose(s); !reflect.DeepEqual(causesOf(err), []string{"verbose"}) {
			t.Errorf("ReadVerbose(%q): %v", s, err)
		}
	}
}

func TestReadIDs(t *testing.T) {
	got, err := ReadIDs("MLA1, MLA2,MLA1,MLB3")
	if err != nil || !reflect.DeepEqual(got, []string{"MLA1", "MLA2", "MLB3"}) {
		t.Errorf("ReadIDs = %v %v", got, err)
	}
	fifty := make([]string, MaxItems)
	for i := range fifty {
		fifty[i] = fmt.Sprint("MLA", i+1)
	}
	if got, err := ReadIDs(strings.Join(append(fifty, "MLA1"), ",")); err != nil || len(got) != MaxItems {
		t.Errorf("50 distinct ids and a repeat: %d %v", len(got), err)
	}
	for raw, msg := range map[string]string{
		"":              fmt.Sprintf("ids is required: comma-separated item ids, at most %d", MaxItems),
		"MLA1,,MLA2":    `ids must be item ids (a site id followed by digits); not one: ""`,
		"MLA1,abc,XYZ9": `ids must be item ids (a site id followed by digits); not one: "abc", "XYZ9"`,
		strings.Join(append(fifty, fmt.Sprint("MLA", MaxItems+1)), ","): fmt.Sprintf("ids names %d items; at most %d are allowed", MaxItems+1, MaxItems),
	} {
		_, err := ReadIDs(raw)
		if kernel.MessageOf(err) != msg || !reflect.DeepEqual(causesOf(err), []string{"ids"}) {
			t.Errorf("ReadIDs(%.30q): %v %v, want %q", raw, err, causesOf(err), msg)
		}
	}
	if err := ReadDimensions(""); err != nil {
		t.Errorf("ReadDimensions(\"\"): %v", err)
	}
	if err := ReadDimensions("1x1,1"); !reflect.DeepEqual(causesOf(err), []string{"dimensions"}) {
		t.Errorf("ReadDimensions: %v", err)
	}
}
