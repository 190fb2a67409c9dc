package catalog_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
)

func TestSearchWords(t *testing.T) {
	for _, c := range []struct {
		text  string
		words []string
		title string
	}{
		{"Amortiguador delantero", []string{"amortiguador", "delantero"}, " amortiguador delantero"},
		{"  BUJÍA  de encendido ", []string{"bujia", "de", "encendido"}, " bujia de encendido"},
		{"Kit 100% (nuevo)-ñandú", []string{"kit", "100", "nuevo", "nandu"}, " kit 100 nuevo nandu"},
		{"%_'\"", []string{}, ""},
		{"", []string{}, ""},
	} {
		if got := catalog.SearchWords(c.text); !reflect.DeepEqual(got, c.words) {
			t.Errorf("SearchWords(%q) = %q, want %q", c.text, got, c.words)
		}
		if got := catalog.TitleWords(c.text); got != c.title {
			t.Errorf("TitleWords(%q) = %q, want %q", c.text, got, c.title)
		}
	}
}

func TestScroll(t *testing.T) {
	q := catalog.ItemQuery{SellerID: 123, Status: "active", Tags: []string{catalog.TagPending}}
	sc := catalog.ScrollAfter(q, "MLA1100")
	if id := sc.ID(); id != "eyJzIjoxMjMsInN0IjoiYWN0aXZlIiwidCI6WyJwZW5kaW5nX2NvbXBhdGliaWxpdGllcyJdLCJhIjoiTUxBMTEwMCJ9" {
		t.Errorf("scroll_id %q", id)
	}
	back, err := catalog.ParseScroll(sc.ID(), 123)
	want := q
	want.After = "MLA1100"
	if err != nil || !reflect.DeepEqual(back.Query(), want) {
		t.Errorf("round trip: %+v %v", back.Query(), err)
	}
	for _, c := range []struct{ id, why string }{
		{"not base64!", "it is not a scroll_id this service issued"},
		{"bm90IGpzb24", "it is not a scroll_id this service issued"},                // "not json"
		{"eyJzIjoxMjN9", "it is not a scroll_id this service issued"},               // {"s":123}: no position
		{"eyJzIjowLCJhIjoiTUxBMSJ9", "it is not a scroll_id this service issued"},   // seller 0
		{"eyJzIjoxMjQsImEiOiJNTEExIn0", "it belongs to the scan of another seller"}, // seller 124
	} {
		_, err := catalog.ParseScroll(c.id, 123)
		if !errors.Is(err, catalog.ErrScrollID) || kernel.MessageOf(err) != "invalid scroll_id: "+c.why {
			t.Errorf("%q: %v, want %q", c.id, err, "invalid scroll_id: "+c.why)
		}
	}
}
