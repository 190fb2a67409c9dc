// Package catalogapi serves the catalog module: the public item reads (the
// item resource, the status check and the seller's item search) and the
// sandbox collections of categories, domains, products and items.
package catalogapi

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/catalog"
	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
	"github.com/feria/feria/ports/catalogport"
)

// MaxItemIDs bounds the ids of one multi-get (GET /items?ids=) and of one
// PUT /items status check: 20, as the marketplace's multi-get.
const MaxItemIDs = 20

var errBadQuery = kernel.E(kernel.Invalid, "bad_request", "invalid query")

// Routes mounts the public item reads. Each route carries its own
// middleware: other modules mount other /items/... and /users/... paths.
func Routes(app fiber.Router, svc catalogport.Service, auth httpapi.Auth) {
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	app.Get("/users/:seller_id/items/search", shape, auth.Required(), searchItems(svc))
	app.Get("/sites/:site_id/search", shape, searchSite(svc))
	app.Get("/items", shape, multiGet(svc))
	app.Put("/items", shape, itemsStatus(svc))
	app.Get("/items/:item_id", shape, func(c *fiber.Ctx) error {
		v, err := svc.ItemView(c.UserContext(), httpapi.Param(c, "item_id"))
		if err != nil {
			return err
		}
		return c.JSON(v)
	})
}

// searchAnswer is the search of items by tag.
type searchAnswer struct {
	SellerID string   `json:"seller_id"`
	Results  []string `json:"results"`
	Paging   struct {
		Limit  int `json:"limit"`
		Offset int `json:"offset"`
		Total  int `json:"total"`
	} `json:"paging"`
	Query *string `json:"query"`
}

func searchItems(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		seller, err := httpapi.PositiveID("seller_id", c.Params("seller_id"))
		if err != nil {
			return err
		}
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		q := catalog.ItemQuery{SellerID: seller, Status: httpapi.Query(c, "status")}
		if raw := httpapi.Query(c, "tags"); raw != "" {
			q.Tags = strings.Split(raw, ",")
		}
		a := searchAnswer{SellerID: strconv.FormatInt(seller, 10)}
		scroll := httpapi.Query(c, "scroll_id")
		switch st := httpapi.Query(c, "search_type"); {
		case st == "scan" || (st == "" && scroll != ""):
			// A scan pages by scroll_id; offset is not read.
			res, err := svc.ScanItems(c.UserContext(), q, scroll, page.Limit)
			if err != nil {
				return err
			}
			a.Results = res.IDs
			a.Paging.Limit, a.Paging.Total = res.Limit, res.Total
			next := &res.ScrollID
			if res.ScrollID == "" {
				next = nil
			}
			return c.JSON(scanAnswer{searchAnswer: a, ScrollID: next})
		case st != "":
			msg := fmt.Sprintf("search_type must be scan, got %q", st)
			return errBadQuery.With(msg).WithCause("search_type", msg)
		}
		res, err := svc.SearchItems(c.UserContext(), q, page)
		if err != nil {
			return err
		}
		a.Results = res.IDs
		a.Paging.Limit, a.Paging.Offset, a.Paging.Total = res.Page.Limit, res.Page.Offset, res.Page.Total
		return c.JSON(a)
	}
}

// scanAnswer is the search answer of a scan: the scroll_id of the next
// block, null once a block comes back empty.
type scanAnswer struct {
	searchAnswer
	ScrollID *string `json:"scroll_id"`
}

// siteAnswer is the site search: the marketplace shows q, limit and offset
// and leaves the rest open (docs/decisions.md).
type siteAnswer struct {
	SiteID  string       `json:"site_id"`
	Query   *string      `json:"query"`
	Paging  paging.Page  `json:"paging"`
	Results []siteResult `json:"results"`
}

// siteResult is an item as the site search lists it.
type siteResult struct {
	ID                string       `json:"id"`
	SiteID            string       `json:"site_id"`
	Title             string       `json:"title"`
	Seller            sellerRef    `json:"seller"`
	Price             float64      `json:"price"`
	CurrencyID        string       `json:"currency_id"`
	AvailableQuantity int64        `json:"available_quantity"`
	Condition         string       `json:"condition"`
	ListingTypeID     string       `json:"listing_type_id"`
	CategoryID        string       `json:"category_id"`
	DomainID          string       `json:"domain_id"`
	OfficialStoreID   *int64       `json:"official_store_id"`
	CatalogProductID  *string      `json:"catalog_product_id"`
	Shipping          siteShipping `json:"shipping"`
}

type sellerRef struct {
	ID int64 `json:"id"`
}

type siteShipping struct {
	Mode         string `json:"mode"`
	FreeShipping bool   `json:"free_shipping"`
	LogisticType string `json:"logistic_type"`
}

// searchSite serves GET /sites/{site_id}/search?q=&limit=&offset=, the
// public search of a site's active items by the words of their titles;
// seller_id and category narrow it as on the marketplace.
func searchSite(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		page, err := httpapi.Paging(c)
		if err != nil {
			return err
		}
		q := catalog.SiteQuery{SiteID: httpapi.Param(c, "site_id"), CategoryID: httpapi.Query(c, "category")}
		if raw := c.Query("seller_id"); raw != "" {
			if q.SellerID, err = httpapi.PositiveID("seller_id", raw); err != nil {
				return err
			}
		}
		a := siteAnswer{SiteID: q.SiteID, Results: []siteResult{}}
		if text, ok := c.Queries()["q"]; ok {
			text = strings.Clone(text)
			a.Query = &text
			q.Words = catalog.SearchWords(text)
		}
		res, err := svc.SearchSite(c.UserContext(), q, page)
		if err != nil {
			return err
		}
		a.Paging = res.Page
		for _, it := range res.Items {
			a.Results = append(a.Results, siteResult{ID: it.ID, SiteID: it.SiteID, Title: it.Title,
				Seller: sellerRef{ID: it.SellerID}, Price: it.Price, CurrencyID: it.CurrencyID,
				AvailableQuantity: it.AvailableQuantity, Condition: it.Condition, ListingTypeID: it.ListingTypeID,
				CategoryID: it.CategoryID, DomainID: it.DomainID, OfficialStoreID: it.OfficialStoreID,
				CatalogProductID: it.CatalogProductID,
				Shipping: siteShipping{Mode: it.Shipping.Mode, FreeShipping: it.Shipping.FreeShipping,
					LogisticType: it.Shipping.LogisticType}})
		}
		return c.JSON(a)
	}
}

// itemIDs reads the ids query parameter of the multi-item reads: a comma
// list, blanks dropped (a trailing comma is common), at most MaxItemIDs.
func itemIDs(c *fiber.Ctx) ([]string, error) {
	var ids []string
	for _, id := range strings.Split(httpapi.Query(c, "ids"), ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, errBadQuery.With("ids is required").WithCause("ids", "ids is required: comma-separated item ids")
	}
	if len(ids) > MaxItemIDs {
		return nil, errBadQuery.Withf("at most %d ids per request, got %d", MaxItemIDs, len(ids)).
			WithCause("ids", "too many ids")
	}
	return ids, nil
}

// attributes reads the attributes query parameter: the top-level fields
// to answer (nil: every field).
func attributes(c *fiber.Ctx) []string {
	var attrs []string
	if raw := httpapi.Query(c, "attributes"); raw != "" {
		for _, a := range strings.Split(raw, ",") {
			attrs = append(attrs, strings.TrimSpace(a))
		}
	}
	return attrs
}

// project is the item with only the attributes asked for, and its id
// always, so that a client can tell the answers apart; unknown names are
// ignored.
func project(v catalog.ItemView, attrs []string) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	if attrs == nil {
		return all, nil
	}
	pick := map[string]json.RawMessage{"id": all["id"]}
	for _, a := range attrs {
		if v, ok := all[a]; ok {
			pick[a] = v
		}
	}
	return pick, nil
}

// multiEntry is one answer of a multi-get: the status GET /items/{id}
// would answer and its body.
type multiEntry struct {
	Code int `json:"code"`
	Body any `json:"body"`
}

// multiGet serves GET /items?ids=A,B&attributes=..., the marketplace's
// multi-get: one {code, body} per id, in the order asked, where an unknown
// id is its own 404 and does not fail the others. A failure of the service
// (a 5xx) fails the whole call, so that a client retries it whole.
func multiGet(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ids, err := itemIDs(c)
		if err != nil {
			return err
		}
		attrs := attributes(c)
		out := make([]multiEntry, 0, len(ids))
		for _, id := range ids {
			v, err := svc.ItemView(c.UserContext(), id)
			if k := kernel.KindOf(err); k == kernel.NotExist || k == kernel.Invalid {
				status, body := httpapi.DefaultErrorBody(err)
				out = append(out, multiEntry{Code: status, Body: body})
				continue
			}
			if err != nil {
				return err
			}
			p, err := project(v, attrs)
			if err != nil {
				return err
			}
			out = append(out, multiEntry{Code: fiber.StatusOK, Body: p})
		}
		return c.JSON(out)
	}
}

// itemsStatus answers PUT /items?ids=...&attributes=status, which
// integrations call to check that an item is active: one object per id
// with "id" and the attributes asked for (every field when none is named).
// It changes nothing; an unknown id fails the whole call.
func itemsStatus(svc catalogport.Service) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ids, err := itemIDs(c)
		if err != nil {
			return err
		}
		attrs := attributes(c)
		out := make([]map[string]json.RawMessage, 0, len(ids))
		for _, id := range ids {
			v, err := svc.ItemView(c.UserContext(), id)
			if err != nil {
				return err
			}
			p, err := project(v, attrs)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return c.JSON(out)
	}
}
