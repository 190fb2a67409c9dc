package brands_test

import (
	"testing"

	"github.com/feria/feria/core/brands"
)

func TestNormalizeAndValidate(t *testing.T) {
	if got := brands.NormalizeName("  Suspensión   Pérez  Ñandú "); got != "Suspension Perez Nandu" {
		t.Errorf("normalized: %q", got)
	}
	b := brands.Brand{ID: 1, SiteID: "MLA", Name: "A", Status: "active", Type: "normal",
		Pictures: []brands.Picture{{URL: "http://x", Size: "120x120"}}, CategoriesIDs: []string{"MLA1"}}
	if err := b.Validate(); err != nil {
		t.Fatal(err)
	}
	b.Pictures[0].Size = "120"
	b.CategoriesIDs = []string{"MLB1"}
	if err := b.Validate(); err == nil || err.Error() != `pictures[0].size must be <width>x<height>, got "120"` {
		t.Errorf("bad brand: %v", err)
	}
	// The statuses and types the sandbox accepts, each one valid.
	for _, typ := range []string{"normal", "brand", "reseller"} {
		for _, status := range []string{"active", "inactive"} {
			ok := brands.Brand{ID: 1, SiteID: "MLA", Name: "A", Status: status, Type: typ}
			if err := ok.Validate(); err != nil {
				t.Errorf("type %s, status %s: %v", typ, status, err)
			}
		}
	}
	for want, bad := range map[string]brands.Brand{
		`status must be one of active, inactive, got "closed"`:      {ID: 1, SiteID: "MLA", Name: "A", Status: "closed", Type: "normal"},
		`type must be one of normal, brand, reseller, got "outlet"`: {ID: 1, SiteID: "MLA", Name: "A", Status: "active", Type: "outlet"},
	} {
		if err := bad.Validate(); err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	}
}
