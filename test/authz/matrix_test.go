// Package authz holds the authorization matrix: every route of
// the router, classified by who may call it, called by every kind of caller
// through both token carriers.
package authz

// Who may call a route.
const (
	public   = iota // no token needed; a sent token is not checked
	optional        // no token needed; a sent token must be valid (401)
	token           // a valid token of one of may
	own             // its own credentials (OAuth client and refresh token)
)

// The users of the world: the demo world's seller, buyer and brand user, a
// seller of the same site and a user who is neither.
const (
	seller = "seller"
	other  = "other"
	buyer  = "buyer"
	nobody = "nobody"
)

var tokens = map[string]string{seller: "APP_USR-demo-seller", other: "APP_USR-authz-other", buyer: "APP_USR-demo-buyer", nobody: "APP_USR-authz-nobody"}

var everyone = []string{seller, other, buyer, nobody}

// row is one route of the matrix.
type row struct {
	route  string // "METHOD template" as the router has it
	access int
	path   string // with {compat} and {doc} filled in at run time
	body   any    // JSON, a string of JSON with {question} filled in, upload for a multipart PDF, or attach for a message's file
	may    []string
	last   bool // changes what other rows read: runs after them
}

type upload struct{}

// attach is a multipart PNG in the part file, as POST /messages/attachments takes it.
type attach struct{}

// rows is the matrix: one row per route of the public API. Ids of the
// seller's resources appear in paths, queries and bodies; a route that
// takes them from a body or a query is called with them there.
var rows = []row{
	// Platform.
	{route: "GET /health/live", path: "/health/live"},
	{route: "GET /health/ready", path: "/health/ready"},
	{route: "GET /metrics", path: "/metrics"},
	{route: "GET /openapi.yaml", path: "/openapi.yaml"},
	{route: "GET /openapi.json", path: "/openapi.json"},
	{route: "GET /docs", path: "/docs"},
	{route: "POST /oauth/token", access: own, path: "/oauth/token"},
	// The sandbox's stand-in for the marketplace's login: the application's
	// client_id and redirect_uri, then the user's choice.
	{route: "GET /authorization", access: own, path: "/authorization?response_type=code&client_id=1&redirect_uri=https%3A%2F%2Fexample.invalid%2Fcb"},

	// Catalog.
	{route: "GET /items/:item_id", path: "/items/MLA1100"},
	{route: "PUT /items", path: "/items?ids=MLA1100,MLA1101&attributes=status"},
	{route: "GET /items", path: "/items?ids=MLA1100,MLA1101&attributes=id,title"},
	{route: "GET /sites/:site_id/search", path: "/sites/MLA/search?q=amortiguador"},
	{route: "GET /users/:seller_id/items/search", access: token, path: "/users/123/items/search", may: []string{seller}},

	// A. Contacts.
	{route: "GET /items/:item_id/contacts/questions", path: "/items/MLA1100/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"},
	{route: "GET /items/:item_id/contacts/questions/time_window", path: "/items/MLA1100/contacts/questions/time_window?last=7&unit=day&ending=2026-11-22T00:00:00Z"},
	{route: "GET /items/contacts/questions/time_window", path: "/items/contacts/questions/time_window?ids=MLA1100,MLA1101&last=7&unit=day"},
	{route: "GET /items/:item_id/contacts/phone_views", path: "/items/MLA1100/contacts/phone_views?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"},
	{route: "GET /items/:item_id/contacts/phone_views/time_window", path: "/items/MLA1100/contacts/phone_views/time_window?last=7&unit=day"},
	{route: "GET /items/contacts/phone_views/time_window", path: "/items/contacts/phone_views/time_window?ids=MLA1100&last=7&unit=day"},
	{route: "GET /items/:item_id/contacts/msgapp", access: optional, path: "/items/MLA1100/contacts/msgapp?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z", may: everyone},
	{route: "GET /items/:item_id/contacts/msgapp/time_window", access: optional, path: "/items/MLA1100/contacts/msgapp/time_window?last=7&unit=day", may: everyone},
	{route: "GET /items/contacts/msgapp/time_window", access: optional, path: "/items/contacts/msgapp/time_window?ids=MLA1100&last=7&unit=day", may: everyone},
	{route: "GET /users/:user_id/contacts/questions", path: "/users/123/contacts/questions?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"},
	{route: "GET /users/:user_id/contacts/questions/time_window", path: "/users/123/contacts/questions/time_window?last=7&unit=day"},
	{route: "GET /users/:user_id/contacts/phone_views", path: "/users/123/contacts/phone_views?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z"},
	{route: "GET /users/:user_id/contacts/phone_views/time_window", path: "/users/123/contacts/phone_views/time_window?last=7&unit=day"},
	{route: "GET /users/:user_id/contacts/msgapp", access: optional, path: "/users/123/contacts/msgapp?date_from=2026-11-01T00:00:00Z&date_to=2026-11-30T00:00:00Z", may: everyone},
	{route: "GET /users/:user_id/contacts/msgapp/time_window", access: optional, path: "/users/123/contacts/msgapp/time_window?last=7&unit=day", may: everyone},
	{route: "GET /items/visits", access: optional, path: "/items/visits?ids=MLA1100,MLA1101&date_from=2026-11-01&date_to=2026-11-30", may: everyone},
	{route: "GET /items/:item_id/visits/time_window", access: optional, path: "/items/MLA1100/visits/time_window?last=7&unit=day", may: everyone},
	{route: "GET /users/:user_id/items_visits", access: token, path: "/users/123/items_visits?date_from=2026-11-01&date_to=2026-11-30", may: []string{seller}},
	{route: "GET /users/:user_id/items_visits/time_window", access: token, path: "/users/123/items_visits/time_window?last=7&unit=day", may: []string{seller}},
	// Anyone may ask, but not on an item of one's own.
	{route: "POST /questions", access: token, path: "/questions", body: map[string]any{"item_id": "MLA1100", "text": "¿Tiene stock?"}, may: []string{other, buyer, nobody}},
	{route: "GET /questions/search", access: token, path: "/questions/search?seller_id=123&item_id=MLA1100&status=UNANSWERED", may: []string{seller}},
	{route: "GET /users/:user_id/questions/response_time", access: token, path: "/users/123/questions/response_time", may: []string{seller}},

	// B. Compatibilities.
	{route: "GET /catalog/dumps/domains/:site_id/compatibilities", path: "/catalog/dumps/domains/MLA/compatibilities"},
	{route: "GET /catalog_compatibilities/restrictions/values", path: "/catalog_compatibilities/restrictions/values?main_domain_id=MLA-CARS_AND_VANS&secondary_domain_id=MLA-CAR_SHOCK_ABSORBERS"},
	{route: "POST /catalog_compatibilities/products_search/count_family_products", path: "/catalog_compatibilities/products_search/count_family_products",
		body: map[string]any{"domain_id": "MLA-CARS_AND_VANS", "attributes": []any{map[string]any{"id": "BRAND", "value_id": "9909"}}}},
	{route: "GET /items/:item_id/compatibilities", access: token, path: "/items/MLA1100/compatibilities", may: []string{seller}},
	{route: "GET /items/:item_id/compatibilities/:compatibility_id", access: token, path: "/items/MLA1100/compatibilities/{compat}", may: []string{seller}},
	{route: "GET /items/:item_id/compatibilities/:compatibility_id/note", access: token, path: "/items/MLA1100/compatibilities/{compat}/note", may: []string{seller}},
	{route: "GET /items/:item_id/compatibilities/extended/check", access: token, path: "/items/MLA1100/compatibilities/extended/check", may: []string{seller}},
	{route: "GET /items/:item_id/compatibilities/exception", access: token, path: "/items/MLA1101/compatibilities/exception", may: []string{seller}},
	{route: "POST /items/:item_id/compatibilities/exception", access: token, path: "/items/MLA1101/compatibilities/exception", body: map[string]any{"comment": "no vehicle fits"}, may: []string{seller}},
	{route: "POST /items/:item_id/compatibilities", access: token, path: "/items/MLA1100/compatibilities", body: map[string]any{"products": []any{map[string]any{"id": "MLA15197902"}}}, may: []string{seller}},
	{route: "PUT /items/:item_id/compatibilities", access: token, path: "/items/MLA1100/compatibilities", body: map[string]any{"create": map[string]any{"products": []any{map[string]any{"id": "MLA15197903"}}}}, may: []string{seller}},
	{route: "POST /items/compatibilities_summary", access: token, path: "/items/compatibilities_summary", body: map[string]any{"items": []string{"MLA1100", "MLA1101"}}, may: []string{seller}},
	{route: "POST /items/catalog_domains/:domain_id/compatibilities/cards", access: token, path: "/items/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards", body: map[string]any{"item_id": "MLA1102", "filters": []string{"REPUTATION", "SUGGESTED"}}, may: []string{seller}},
	{route: "POST /catalog_domains/:domain_id/compatibilities/cards", access: token, path: "/catalog_domains/MLA-CAR_SHOCK_ABSORBERS/compatibilities/cards", body: map[string]any{"item_id": "MLA1102", "filters": []string{"REPUTATION"}}, may: []string{seller}},
	{route: "GET /compats-snapshots/orders/:order_id", access: token, path: "/compats-snapshots/orders/2000001", may: []string{seller}},
	{route: "DELETE /items/:item_id/compatibilities/:compatibility_id", access: token, path: "/items/MLA1100/compatibilities/{compat}", may: []string{seller}, last: true},
	{route: "DELETE /items/:item_id/compatibilities", access: token, path: "/items/MLA1100/compatibilities", may: []string{seller}, last: true},

	// C. Shipping: public.
	{route: "GET /users/:user_id/shipping_modes", path: "/users/123/shipping_modes?category_id=MLA1747"},
	{route: "GET /categories/:category_id/shipping_preferences", path: "/categories/MLA1747/shipping_preferences"},
	{route: "GET /categories/:category_id/shipping", path: "/categories/MLA1747/shipping"},
	{route: "GET /items/:item_id/shipping_options/free", path: "/items/MLA1100/shipping_options/free"},
	{route: "GET /items/shipping_options/free", path: "/items/shipping_options/free?ids=MLA1100,MLA1101"},
	{route: "GET /users/:user_id/shipping_options/free", path: "/users/123/shipping_options/free?dimensions=10x10x10,500"},

	// D. Official stores: any valid token reads any user's brands.
	{route: "GET /users/:user_id/brands", access: token, path: "/users/789/brands", may: everyone},
	{route: "GET /users/:user_id/brands/:brand_id", access: token, path: "/users/789/brands/5001", may: everyone},

	// E. Local delivery: the subscription's user, the item's or the
	// shipment's seller.
	{route: "GET /shipping/flex/sites/:site_id?/users/:user_id/subscriptions/v1", access: token, path: "/shipping/flex/sites/MLA/users/123/subscriptions/v1", may: []string{seller}},
	{route: "POST /shipping/flex/sites/:site_id?/configuration/v3", access: token, path: "/shipping/flex/sites/MLA/configuration/v3",
		body: map[string]any{"query": "{ configuration(user_id: 123, service_id: 3001) { delivery_window working_days } }"}, may: []string{seller}},
	{route: "PUT /shipping/flex/sites/:site_id?/users/:user_id/services/:service_id/configuration/delivery/custom/v3", access: token,
		path: "/shipping/flex/sites/MLA/users/123/services/3001/configuration/delivery/custom/v3",
		body: map[string]any{"delivery_window": "same_day", "delivery_ranges": map[string]any{"week": []any{map[string]any{"from": 14, "to": 20, "capacity": 50, "cutoff": 13}}}}, may: []string{seller}},
	{route: "PUT /shipping/flex/sites/:site_id?/users/:user_id/services/:service_id/configuration/coverage/zone/v3", access: token,
		path: "/shipping/flex/sites/MLA/users/123/services/3001/configuration/coverage/zone/v3", body: map[string]any{"zones": []any{map[string]any{"id": "Z1"}}}, may: []string{seller}},
	{route: "GET /sites/:site_id?/shipping/selfservice/items/:item_id", access: token, path: "/sites/MLA/shipping/selfservice/items/MLA1100", may: []string{seller}},
	{route: "POST /sites/:site_id?/shipping/selfservice/items/:item_id", access: token, path: "/sites/MLA/shipping/selfservice/items/MLA1100", may: []string{seller}},
	{route: "DELETE /sites/:site_id?/shipping/selfservice/items/:item_id", access: token, path: "/sites/MLA/shipping/selfservice/items/MLA1100", may: []string{seller}, last: true},
	{route: "GET /flex/sites/:site_id?/shipments/:shipment_id/assignment/v1", access: token, path: "/flex/sites/MLA/shipments/40001/assignment/v1", may: []string{seller}},

	// F. Fiscal documents, messages, notifications.
	{route: "POST /packs/:pack_id/fiscal_documents", access: token, path: "/packs/2000001234/fiscal_documents", body: upload{}, may: []string{seller}},
	{route: "GET /packs/:pack_id/fiscal_documents", access: token, path: "/packs/2000001234/fiscal_documents", may: []string{seller, buyer}},
	{route: "GET /packs/:pack_id/fiscal_documents/:fiscal_document_id", access: token, path: "/packs/2000001234/fiscal_documents/{doc}", may: []string{seller, buyer}},
	{route: "POST /packs/:pack_id/fiscal_documents/billing_info", access: token, path: "/packs/2000001234/fiscal_documents/billing_info", body: map[string]any{"text": "¿Me pasás tus datos de facturación?"}, may: []string{seller}},
	{route: "DELETE /packs/:pack_id/fiscal_documents", access: token, path: "/packs/2000001234/fiscal_documents", may: []string{seller}, last: true},
	{route: "DELETE /questions/:question_id", access: token, path: "/questions/{question}", may: []string{seller}, last: true},
	// An empty pack id is nobody's pack.
	{route: "POST /packs//fiscal_documents", access: token, path: "/packs//fiscal_documents", body: upload{}},
	{route: "GET /packs//fiscal_documents", access: token, path: "/packs//fiscal_documents"},
	{route: "GET /packs//fiscal_documents/:fiscal_document_id", access: token, path: "/packs//fiscal_documents/{doc}"},
	{route: "POST /packs//fiscal_documents/billing_info", access: token, path: "/packs//fiscal_documents/billing_info", body: map[string]any{"text": "hola"}},
	{route: "DELETE /packs//fiscal_documents", access: token, path: "/packs//fiscal_documents"},
	{route: "GET /messages/packs/:pack_id", access: token, path: "/messages/packs/2000001234", may: []string{seller, buyer}},
	{route: "GET /messages/packs/:pack_id/sellers/:seller_id", access: token, path: "/messages/packs/2000001234/sellers/123?tag=post_sale", may: []string{seller, buyer}},
	// The buyer may send too, but not as the seller: 400, past authorization.
	{route: "POST /messages/packs/:pack_id/sellers/:seller_id", access: token, path: "/messages/packs/2000001234/sellers/123?tag=post_sale",
		body: map[string]any{"from": map[string]any{"user_id": 123}, "to": map[string]any{"user_id": 456}, "text": "Tu pedido sale hoy"}, may: []string{seller, buyer}},
	{route: "POST /messages/attachments", access: token, path: "/messages/attachments", body: attach{}, may: everyone},
	{route: "GET /messages/attachments/:attachment_id", access: token, path: "/messages/attachments/{attachment}", may: []string{seller, buyer}},
	{route: "GET /my/notifications", access: token, path: "/my/notifications", may: everyone},

	// Notifications to applications: the resources they name, for the users
	// each concerns, and the missed feeds, for the application's owner.
	{route: "GET /orders/:order_id", access: token, path: "/orders/2000001", may: []string{seller, buyer}},
	{route: "GET /orders/search", access: token, path: "/orders/search?seller=123", may: []string{seller}},
	{route: "GET /orders/:order_id/notes", access: token, path: "/orders/2000001/notes", may: []string{seller}},
	{route: "POST /orders/:order_id/notes", access: token, path: "/orders/2000001/notes", body: map[string]any{"note": "Llamar al comprador"}, may: []string{seller}},
	{route: "GET /shipments/:shipment_id", access: token, path: "/shipments/40001", may: []string{seller, buyer}},
	{route: "GET /shipments/:shipment_id/items", access: token, path: "/shipments/40001/items", may: []string{seller, buyer}},
	{route: "GET /questions/:question_id", access: token, path: "/questions/{question}", may: []string{seller, buyer}},
	{route: "POST /answers", access: token, path: "/answers", body: `{"question_id":{question},"text":"Sí, 12 meses."}`, may: []string{seller}},
	{route: "GET /messages/:message_id", access: token, path: "/messages/{message}", may: []string{seller, buyer}},
	{route: "GET /missed_feeds", access: token, path: "/missed_feeds?app_id=7001", may: []string{seller}},
}
