package shipping

import (
	"net/url"
	"testing"
)

// FuzzReadCostQuery: any query string either is refused or tells exactly
// one form; nothing panics.
func FuzzReadCostQuery(f *testing.F) {
	for _, s := range []string{"dimensions=10x20x30,500", "item_id=MLA1", "category_id=MLA1&currency_id=ARS&listing_type_id=gold_special&condition=new&item_price=100&dimensions=1x1x1,1",
		"", "dimensions=0x1x1,1", "dimensions=10x20x30", "item_price=-1", "verbose=maybe", "item_id=&dimensions=a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		_, _ = ReadCostQuery(q.Get)
		_, _ = ReadVerbose(q.Get("verbose"))
		_, _ = ReadIDs(q.Get("ids"))
	})
}

// FuzzParseDimensions: dimensions that parse are positive and print back
// to what parses to the same package.
func FuzzParseDimensions(f *testing.F) {
	for _, s := range []string{"10x20x30,500", "1x1x1,1", "0x1x1,1", "10x20x30", "10.5x20x30,500", "+1x1x1,1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParseDimensions(raw)
		if err != nil {
			return
		}
		again, err := ParseDimensions(p.String())
		if err != nil || again != p {
			t.Fatalf("ParseDimensions(%q) = %+v; printed %q parses to %+v, %v", raw, p, p.String(), again, err)
		}
	})
}
