package kernel

// Site is one of the marketplace's fixed country sites.
type Site struct {
	ID       string
	Country  string
	Currency string
}

var sites = map[string]Site{
	"MLA": {"MLA", "Argentina", "ARS"},
	"MLB": {"MLB", "Brazil", "BRL"},
	"MLM": {"MLM", "Mexico", "MXN"},
	"MLC": {"MLC", "Chile", "CLP"},
	"MCO": {"MCO", "Colombia", "COP"},
	"MLU": {"MLU", "Uruguay", "UYU"},
	"MPE": {"MPE", "Peru", "PEN"},
	"MEC": {"MEC", "Ecuador", "USD"},
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
