package kernel

// Site checks that a site id field names one of the fixed sites and reports
// whether it does, so that checks depending on the site can be skipped.
func (p *Problems) Site(field, site string) bool {
	if _, ok := LookupSite(site); !ok {
		p.Add(field, "%s must be one of MLA, MLB, MLM, MLC, MCO, MLU, MPE, MEC, got %q", field, site)
		return false
	}
	return true
}
