package kernel

// Site is one of the marketplace's fixed country sites.
type Site struct {
	ID       string
	Country  string
	Currency string
	// Domain is the site's web host without "www.", from which the
	// marketplace builds its public links.
	Domain string
	// Store is the path word of an official store's page on that host.
	Store string
}

var sites = map[string]Site{
	"MLA": {"MLA", "Argentina", "ARS", "mercadolibre.com.ar", "tienda"},
	"MLB": {"MLB", "Brazil", "BRL", "mercadolivre.com.br", "loja"},
	"MLM": {"MLM", "Mexico", "MXN", "mercadolibre.com.mx", "tienda"},
	"MLC": {"MLC", "Chile", "CLP", "mercadolibre.cl", "tienda"},
	"MCO": {"MCO", "Colombia", "COP", "mercadolibre.com.co", "tienda"},
	"MLU": {"MLU", "Uruguay", "UYU", "mercadolibre.com.uy", "tienda"},
	"MPE": {"MPE", "Peru", "PEN", "mercadolibre.com.pe", "tienda"},
	"MEC": {"MEC", "Ecuador", "USD", "mercadolibre.com.ec", "tienda"},
}

// LookupSite returns the site with that id; ok is false for any id outside
// the fixed list.
func LookupSite(id string) (Site, bool) {
	s, ok := sites[id]
	return s, ok
}

// SiteOf returns the site prefix of an id such as MLA1100 ("MLA"), or "" when
// the id does not start with a known site followed by at least one digit.
func SiteOf(id string) string {
	if len(id) < 4 {
		return ""
	}
	if _, ok := sites[id[:3]]; !ok {
		return ""
	}
	for _, r := range id[3:] {
		if r < '0' || r > '9' {
			return ""
		}
	}
	return id[:3]
}
