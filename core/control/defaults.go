package control

// The marketplace documents 100 requests per minute per application on the
// family product count and on compatibility writes, and 1,000 per minute on
// local-delivery calls; every limit counts per caller.
const (
	CompatPerMinute = 100
	FlexPerMinute   = 1000
)

// DefaultRateLimits are the limits in force until PUT /sandbox/rate_limits
// replaces them (and again after DELETE /sandbox): one rule per route, each
// with its own count; the local-delivery item option's three methods share
// one rule (method null) because they are one resource. docs/sandbox.md
// lists them; RATE_LIMITS replaces them.
func DefaultRateLimits() []RateLimit {
	m := func(s string) *string { return &s }
	return []RateLimit{
		{Method: m("POST"), Path: "/catalog_compatibilities/products_search/count_family_products", PerMinute: CompatPerMinute},
		{Method: m("POST"), Path: "/items/*/compatibilities", PerMinute: CompatPerMinute},
		{Method: m("PUT"), Path: "/items/*/compatibilities", PerMinute: CompatPerMinute},
		{Method: m("DELETE"), Path: "/items/*/compatibilities", PerMinute: CompatPerMinute},
		{Method: m("DELETE"), Path: "/items/*/compatibilities/*", PerMinute: CompatPerMinute},
		{Method: m("POST"), Path: "/items/*/compatibilities/exception", PerMinute: CompatPerMinute},
		{Method: m("GET"), Path: "/shipping/flex/sites/*/users/*/subscriptions/v1", PerMinute: FlexPerMinute},
		{Method: m("POST"), Path: "/shipping/flex/sites/*/configuration/v3", PerMinute: FlexPerMinute},
		{Method: m("PUT"), Path: "/shipping/flex/sites/*/users/*/services/*/configuration/delivery/custom/v3", PerMinute: FlexPerMinute},
		{Method: m("PUT"), Path: "/shipping/flex/sites/*/users/*/services/*/configuration/coverage/zone/v3", PerMinute: FlexPerMinute},
		{Method: nil, Path: "/sites/*/shipping/selfservice/items/*", PerMinute: FlexPerMinute},
		{Method: m("GET"), Path: "/flex/sites/*/shipments/*/assignment/v1", PerMinute: FlexPerMinute},
	}
}

// FirstLimit returns the index of the first rule that counts the request,
// or -1: one rule counts a request, so that a request refused by one rule
// is counted by none (refused requests do not count).
func FirstLimit(limits []RateLimit, method, path string) int {
	for i, l := range limits {
		if l.Matches(method, path) {
			return i
		}
	}
	return -1
}
