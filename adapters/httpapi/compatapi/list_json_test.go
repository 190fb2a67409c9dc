package compatapi

import (
	"encoding/json"
	"testing"

	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// TestListJSONIsEncodingJSON holds appendList to encoding/json's encoding
// of list(): short and extended, empty, universal in no domain and in some,
// names and notes that need escaping, restrictions, reputations; a list
// the store keeps twice in each form, the second time from its kept
// encoding (the short one never answered for the extended one).
func TestListJSONIsEncodingJSON(t *testing.T) {
	e := func(id, name, note string, claims int, rs []compat.Restriction) compatport.Claimed {
		return compatport.Claimed{Compatibility: compat.Compatibility{ID: id, ItemID: "MLA1100", DomainID: "MLA-CARS_AND_VANS",
			ProductID: "MLA" + id, ProductName: name, Source: compat.SourceSeller, CreationSource: compat.CreationManual,
			Note: note, NoteStatus: compat.NotePending, Restrictions: rs}, Claims: claims}
	}
	rs := []compat.Restriction{{AttributeID: "POSITION", AttributeCode: 7, AttributeValues: []compat.RestrictionSet{
		{Values: []compat.RestrictionVal{{ValueID: "1", ValueName: "Delantera <izq> & \"der\"", ValueCode: 3}}}, {}}}}
	entries := []compatport.Claimed{
		e("1", "Ford Ka 2018", "", 0, nil),
		e("2", `Fiat "Uno" <1.4> & más`, "sólo el 1.6\n\t\x01", 9, rs),
		e("3", "", "", 2, []compat.Restriction{}),
	}
	for _, l := range []compatport.List{
		{},
		{Entries: entries},
		{Entries: entries[:1], UniversalDomains: []string{}},
		{Entries: entries, UniversalDomains: []string{"MLA-CARS_AND_VANS", "MLA-MOTORCYCLES"}},
	} {
		for _, derived := range []*compatport.Derived{nil, {}} {
			l.Derived = derived
			for range 2 {
				for _, extended := range []bool{false, true} {
					want, err := json.Marshal(list(l, extended))
					if err != nil {
						t.Fatal(err)
					}
					if got := appendList(nil, l, extended); string(got) != string(want) {
						t.Fatalf("extended=%v, kept %v:\n got %s\nwant %s", extended, derived != nil, got, want)
					}
				}
			}
		}
	}
}
