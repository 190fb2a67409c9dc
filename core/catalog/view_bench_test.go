package catalog_test

import (
	"encoding/json"
	"testing"

	"github.com/feria/feria/core/catalog"
)

// BenchmarkViewJSON writes an item answer as GET /items/{id} does (the
// view through encoding/json), with shipping not free and free.
func BenchmarkViewJSON(b *testing.B) {
	pn, dims := "PN-1", "10x20x30,500"
	it := catalog.Item{ID: "MLA1100", SiteID: "MLA", Title: "Amortiguador", SellerID: 123, CategoryID: "MLA1747",
		Status: "active", Price: 15000.5, CurrencyID: "ARS", AvailableQuantity: 3, Tags: []string{"good_quality_thumbnail"},
		Attributes: []catalog.ItemAttribute{{ID: catalog.AttrPartNumber, Name: "Número de pieza", ValueName: &pn,
			Values: []catalog.AttributeValue{{Name: &pn}}, ValueType: "string"}},
		Shipping: catalog.ItemShipping{Mode: "me2", LogisticType: "drop_off", Dimensions: &dims, Methods: []any{}, Tags: []string{}}}
	for _, free := range []bool{false, true} {
		it.Shipping.FreeShipping = free
		v := catalog.View(it, catalog.Facts{HasCompatibilities: true})
		b.Run(map[bool]string{false: "paid", true: "free"}[free], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
