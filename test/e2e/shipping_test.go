package e2e

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/feria/feria/test/apptest"
)

// TestReadmeShippingLines loads the demo world as `make run` does and checks
// every area C curl line of the README answers what the default rate table
// of docs/shipping.md gives (seller 123 is green: half off; MLA1747's
// standard package of 10x20x30 cm bills 1200 g: 9500 ARS).
func TestReadmeShippingLines(t *testing.T) {
	cost := func(list string) string {
		return `{"coverage":{"all_country":{"list_cost":` + list + `,"currency_id":"ARS"}}}`
	}
	verbose := `{"coverage":{"all_country":{"list_cost":4750,"currency_id":"ARS","billable_weight":1200,` +
		`"discount":{"rate":0.5,"type":"loyal","promoted_amount":4750}}}}`
	rule := `"rules":[{"free_mode":"country","value":null,"default":true,"free_shipping_flag":true}]`
	want := map[string]string{
		"/users/123/shipping_modes?category_id=MLA1747": `[` +
			`{"mode":"me2","shipping_attributes":{"costs":"not_allowed","dimensions":"clear","free":{"methods":"optional","accepted_methods":[73328,73330],` + rule + `}}},` +
			`{"mode":"not_specified","shipping_attributes":{"costs":"not_allowed","dimensions":"not_allowed","free":{"methods":"not_allowed","accepted_methods":[],` + rule + `}}}]`,
		"/categories/MLA1747/shipping_preferences": `{"dimensions":{"height":10,"width":20,"length":30,"weight":500},` +
			`"logistics":[{"types":["drop_off","xd_drop_off","self_service"],"mode":"me2"},{"types":["not_specified"],"mode":"not_specified"}],` +
			`"restricted":false,"source":{"origin":"category","identifier":"MLA1747"},` +
			`"date_created":"2026-11-20T12:00:00Z","last_modified":"2026-11-20T12:00:00Z","category_id":"MLA1747"}`,
		"/users/123/shipping_options/free?dimensions=10x20x30,500&verbose=true": verbose,
		"/users/123/shipping_options/free?item_id=MLA1100":                      cost("4750"),
		"/items/MLA1102/shipping_options/free?verbose=true":                     verbose,
		// MLA1200 falls back to MLA1000's 8x15x20,300: 480 g, 4000, half off.
		"/items/shipping_options/free?ids=MLA1100,MLA1102,MLA1200":                                                                         `{"MLA1100":` + cost("4750") + `,"MLA1102":` + cost("4750") + `,"MLA1200":` + cost("2000") + `}`,
		"/users/123/shipping_options/free?category_id=MLA1747&currency_id=ARS&listing_type_id=gold_special&condition=new&item_price=15000": cost("4750"),
		"/sandbox/shipping_rates/MLA": `{"site_id":"MLA","currency_id":"ARS","volumetric_divisor":5000,"weight_tiers":[{"up_to":500,"cost":4000},` +
			`{"up_to":1000,"cost":5200},{"up_to":5000,"cost":9500},{"up_to":30000,"cost":15000}],"reputation_discounts":{"green":0.5,"yellow":0.4}}`,
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	line := regexp.MustCompile(`(?m)^curl -s (?:-H '[^']*' )?'?localhost:8080(/\S*?shipping_\S*?)'?$`)
	for _, m := range line.FindAllStringSubmatch(string(readme), -1) {
		paths = append(paths, m[1])
	}
	for p := range want {
		if !slices.Contains(paths, p) {
			t.Errorf("the README has no curl line for %s", p)
		}
	}
	for _, p := range paths {
		if _, ok := want[p]; !ok {
			t.Errorf("the README's curl line for %s has no expected answer here", p)
		}
	}

	raw, _ := demo(t)
	apptest.Each(t, func(t *testing.T, be apptest.Backend) {
		a := apptest.New(t, be)
		a.Sandbox("PUT", "/clock", map[string]any{"now": "2026-11-20T12:00:00Z"}).OK(t, 200)
		a.Sandbox("POST", "/fixtures", raw).HasStatus(t, 200)
		for _, p := range paths {
			if rest, ok := strings.CutPrefix(p, "/sandbox"); ok {
				a.Sandbox("GET", rest, nil).Is(t, 200, want[p])
				continue
			}
			a.Do("GET", p, nil).Is(t, 200, want[p])
		}
	})
}
