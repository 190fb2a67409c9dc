// Package compatapi serves area B of the spec (compatibilities) except the
// item read, the item status update and the seller item search, which the
// catalog module serves: the domain dump, family counts, cards, restriction
// values, an item's compatibilities (create, PUT, copy, list, read, note,
// delete, exception), the summary and the order snapshot.
package compatapi

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// Routes mounts the routes with full paths and per-route middleware, since
// other modules share the /items prefix.
func Routes(app *fiber.App, svc compatport.Service, auth httpapi.Auth) {
	h := handlers{svc: svc}
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	// The spec answers 403 for a missing or invalid token on compatibilities.
	seller := auth.Required(httpapi.AuthErrors{Missing: compat.ErrForbiddenToken, Invalid: compat.ErrForbiddenToken})
	snapshot := auth.Required(httpapi.AuthErrors{Missing: compat.ErrSnapshotToken, Invalid: compat.ErrSnapshotToken})

	app.Get("/catalog/dumps/domains/:site_id/compatibilities", shape, h.dump)
	app.Post("/catalog_compatibilities/products_search/count_family_products", shape, h.countFamily)
	app.Get("/catalog_compatibilities/restrictions/values", shape, h.restrictionValues)
	// The spec writes the cards path with and without /items: both are served.
	app.Post("/items/catalog_domains/:domain_id/compatibilities/cards", shape, seller, h.cards)
	app.Post("/catalog_domains/:domain_id/compatibilities/cards", shape, seller, h.cards)
	app.Post("/items/compatibilities_summary", shape, seller, h.summary)

	const base = "/items/:item_id/compatibilities"
	app.Post(base, shape, seller, h.create)
	app.Put(base, shape, seller, h.put)
	app.Get(base, shape, seller, h.list)
	app.Delete(base, shape, seller, h.deleteAll)
	// Specific paths before /:compatibility_id.
	app.Get(base+"/extended/check", shape, seller, h.extendedCheck)
	app.Post(base+"/exception", shape, seller, h.reportException)
	app.Get(base+"/exception", shape, seller, h.exception)
	app.Get(base+"/:compatibility_id/note", shape, seller, h.note)
	app.Get(base+"/:compatibility_id", shape, seller, h.get)
	app.Delete(base+"/:compatibility_id", shape, seller, h.deleteOne)

	app.Get("/compats-snapshots/orders/:order_id", shape, snapshot, h.snapshot)
}

type handlers struct{ svc compatport.Service }

// --- request bodies ---

type valueJSON struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type attrJSON struct {
	ID        string      `json:"id"`
	ValueID   *string     `json:"value_id"`
	ValueName *string     `json:"value_name"`
	ValueIDs  []string    `json:"value_ids"`
	Values    []valueJSON `json:"values"`
}

type selectorJSON struct {
	DomainID   string     `json:"domain_id"`
	Attributes []attrJSON `json:"attributes"`
}

func (s selectorJSON) selector() compat.Selector {
	sel := compat.Selector{DomainID: s.DomainID, Attributes: []compat.SelectorAttr{}}
	for _, a := range s.Attributes {
		sa := compat.SelectorAttr{ID: a.ID}
		if a.ValueID != nil && *a.ValueID != "" {
			sa.ValueIDs = append(sa.ValueIDs, *a.ValueID)
		}
		if a.ValueName != nil && *a.ValueName != "" {
			sa.ValueNames = append(sa.ValueNames, *a.ValueName)
		}
		for _, v := range a.ValueIDs {
			if v != "" {
				sa.ValueIDs = append(sa.ValueIDs, v)
			}
		}
		// The delete-by-family form: values of {id, name}.
		for _, v := range a.Values {
			if v.ID != "" {
				sa.ValueIDs = append(sa.ValueIDs, v.ID)
			} else if v.Name != "" {
				sa.ValueNames = append(sa.ValueNames, v.Name)
			}
		}
		sel.Attributes = append(sel.Attributes, sa)
	}
	return sel
}

type productJSON struct {
	ID             string                `json:"id"`
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type groupJSON struct {
	IDs            []string              `json:"ids"`
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type familyJSON struct {
	selectorJSON
	CreationSource string                `json:"creation_source"`
	Note           *string               `json:"note"`
	Restrictions   *[]compat.Restriction `json:"restrictions"`
}

type copyJSON struct {
	ItemID              string `json:"item_id"`
	ExtendedInformation bool   `json:"extended_information"`
}

type nodesJSON struct {
	Products         []productJSON `json:"products"`
	ProductsGroup    []groupJSON   `json:"products_group"`
	ProductsGroups   []groupJSON   `json:"products_groups"` // the spelling of the spec's error detail
	ProductsFamilies []familyJSON  `json:"products_families"`
	Universal        *bool         `json:"universal"`
	ItemToCopy       *copyJSON     `json:"item_to_copy"`
}

func (n nodesJSON) nodes() compat.Nodes {
	out := compat.Nodes{Universal: n.Universal}
	for _, p := range n.Products {
		out.Products = append(out.Products, compat.ProductEntry{ID: p.ID, CreationSource: p.CreationSource, Note: p.Note, Restrictions: p.Restrictions})
	}
	for _, g := range append(append([]groupJSON{}, n.ProductsGroup...), n.ProductsGroups...) {
		out.Groups = append(out.Groups, compat.GroupEntry{IDs: g.IDs, CreationSource: g.CreationSource, Note: g.Note, Restrictions: g.Restrictions})
	}
	for _, f := range n.ProductsFamilies {
		out.Families = append(out.Families, compat.FamilyEntry{Selector: f.selector(), CreationSource: f.CreationSource, Note: f.Note, Restrictions: f.Restrictions})
	}
	return out
}

// --- answers ---

type reputationJSON = compat.Reputation

type entryJSON struct {
	ID                 string                `json:"id"`
	DomainID           string                `json:"domain_id"`
	CatalogProductID   string                `json:"catalog_product_id"`
	CatalogProductName string                `json:"catalog_product_name"`
	Source             string                `json:"source"`
	CreationSource     string                `json:"creation_source"`
	Note               *string               `json:"note,omitempty"`
	NoteStatus         string                `json:"note_status,omitempty"`
	Restrictions       *[]compat.Restriction `json:"restrictions,omitempty"`
	Reputation         reputationJSON        `json:"reputation"`
}

func entry(e compatport.Entry, extended, single bool) entryJSON {
	out := entryJSON{ID: e.ID, DomainID: e.DomainID, CatalogProductID: e.ProductID, CatalogProductName: e.ProductName,
		Source: e.Source, CreationSource: e.CreationSource, Reputation: e.Reputation}
	if extended || single {
		note, rs := e.Note, e.Restrictions
		if rs == nil {
			rs = []compat.Restriction{}
		}
		out.Note, out.Restrictions = &note, &rs
	}
	if single {
		out.NoteStatus = e.NoteStatus
	}
	return out
}

type universalJSON struct {
	DomainIDs []string `json:"domain_ids"`
}

type listJSON struct {
	Products []entryJSON    `json:"products"`
	Count    int            `json:"catalog_compatibilities_count"`
	Univ     *universalJSON `json:"universal,omitempty"`
}

func list(l compatport.List, extended bool) listJSON {
	out := listJSON{Products: make([]entryJSON, 0, len(l.Entries)), Count: len(l.Entries)}
	for _, e := range l.Entries {
		out.Products = append(out.Products, entry(e, extended, false))
	}
	if l.UniversalDomains != nil {
		out.Univ = &universalJSON{DomainIDs: l.UniversalDomains}
	}
	return out
}

// --- handlers ---

type dumpEntry struct {
	DomainID        string          `json:"domain_id"`
	Main            bool            `json:"main"`
	Compatibilities json.RawMessage `json:"compatibilities"`
}

func (h handlers) dump(c *fiber.Ctx) error {
	ds, err := h.svc.Dump(c.UserContext(), httpapi.Param(c, "site_id"))
	if err != nil {
		return err
	}
	out := make([]dumpEntry, len(ds))
	for i, d := range ds {
		out[i] = dumpEntry{DomainID: d.ID, Main: d.Main, Compatibilities: dumpLinks(d.Raw)}
	}
	return c.JSON(out)
}

// dumpLinks is a stored compatibilities array as the dump shows it: always
// an array, without restriction_values, the sandbox's feed of the
// restriction values endpoint that the spec's dump entry does not list.
func dumpLinks(raw []byte) json.RawMessage {
	var links []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &links); err != nil || links == nil {
		return json.RawMessage("[]")
	}
	for _, l := range links {
		delete(l, "restriction_values")
	}
	b, err := json.Marshal(links)
	if err != nil {
		return json.RawMessage("[]")
	}
	return b
}

func (h handlers) countFamily(c *fiber.Ctx) error {
	var b selectorJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	n, err := h.svc.CountFamily(c.UserContext(), b.selector())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"count": n})
}

func (h handlers) restrictionValues(c *fiber.Ctx) error {
	vs, err := h.svc.RestrictionValues(c.UserContext(), httpapi.Query(c, "main_domain_id"), httpapi.Query(c, "secondary_domain_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"attributes_values": vs})
}

type cardsJSON struct {
	ItemID    string   `json:"item_id"`
	ProductID string   `json:"product_id"`
	Filters   []string `json:"filters"`
}

func (h handlers) cards(c *fiber.Ctx) error {
	var b cardsJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	cards, err := h.svc.Cards(c.UserContext(), httpapi.Param(c, "domain_id"), b.ItemID, b.ProductID, b.Filters)
	if err != nil {
		return err
	}
	return c.JSON(cards)
}

type summaryJSON struct {
	DomainID string   `json:"domain_id"`
	Items    []string `json:"items"`
}

func (h handlers) summary(c *fiber.Ctx) error {
	var b summaryJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	s, err := h.svc.Summary(c.UserContext(), b.DomainID, b.Items)
	if err != nil {
		return err
	}
	return c.JSON(s)
}

func (h handlers) create(c *fiber.Ctx) error {
	var b nodesJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	item := httpapi.Param(c, "item_id")
	if b.ItemToCopy != nil {
		if err := h.svc.CopyLater(c.UserContext(), item, compat.CopyRequest{ItemID: b.ItemToCopy.ItemID,
			ExtendedInformation: b.ItemToCopy.ExtendedInformation}); err != nil {
			return err
		}
		c.Status(fiber.StatusOK) // "200 with no body"
		return nil
	}
	n, err := h.svc.Create(c.UserContext(), item, b.nodes())
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"created_compatibilities_count": n})
}

type putJSON struct {
	Create    *nodesJSON `json:"create"`
	Update    *nodesJSON `json:"update"`
	Delete    *nodesJSON `json:"delete"`
	Universal *bool      `json:"universal"`
}

type putEcho struct {
	Create json.RawMessage `json:"create,omitempty"`
	Update json.RawMessage `json:"update,omitempty"`
	Delete json.RawMessage `json:"delete,omitempty"`
}

type putAnswer struct {
	putEcho
	Universal bool     `json:"universal"`
	Created   int      `json:"created_compatibilities_count"`
	Updated   int      `json:"updated_compatibilities_count"`
	Deleted   []string `json:"deleted_compatibilities"`
}

func (h handlers) put(c *fiber.Ctx) error {
	var b putJSON
	if err := httpapi.BindJSON(c, &b); err != nil {
		return err
	}
	var echo putEcho
	_ = json.Unmarshal(c.Body(), &echo) // same bytes decoded above
	req := compat.PutRequest{Universal: b.Universal}
	if b.Create != nil && b.Create.ItemToCopy != nil {
		req.CopyFrom = &compat.CopyRequest{ItemID: b.Create.ItemToCopy.ItemID, ExtendedInformation: b.Create.ItemToCopy.ExtendedInformation}
	}
	for _, n := range []struct {
		from *nodesJSON
		to   **compat.Nodes
	}{{b.Create, &req.Create}, {b.Update, &req.Update}, {b.Delete, &req.Delete}} {
		if n.from != nil {
			nodes := n.from.nodes()
			*n.to = &nodes
		}
	}
	res, err := h.svc.Put(c.UserContext(), httpapi.Param(c, "item_id"), req)
	if err != nil {
		return err
	}
	if res.Copied != nil {
		return c.JSON(list(*res.Copied, true))
	}
	deleted := res.Deleted
	if deleted == nil {
		deleted = []string{}
	}
	return c.JSON(putAnswer{putEcho: echo, Universal: res.Universal, Created: res.Created, Updated: res.Updated, Deleted: deleted})
}

func (h handlers) list(c *fiber.Ctx) error {
	l, err := h.svc.List(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	return c.JSON(list(l, strings.EqualFold(c.Query("extended"), "true")))
}

func (h handlers) get(c *fiber.Ctx) error {
	e, err := h.svc.Get(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(entry(e, true, true))
}

func (h handlers) extendedCheck(c *fiber.Ctx) error {
	note, restr, err := h.svc.ExtendedCheck(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"note": strconv.FormatBool(note), "restrictions": strconv.FormatBool(restr)})
}

func (h handlers) note(c *fiber.Ctx) error {
	n, err := h.svc.Note(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"note": n})
}

func (h handlers) deleteOne(c *fiber.Ctx) error {
	ids, err := h.svc.DeleteOne(c.UserContext(), httpapi.Param(c, "item_id"), httpapi.Param(c, "compatibility_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted_compatibilities": ids})
}

type deleteJSON struct {
	ProductsFamilies []selectorJSON `json:"products_families"`
}

func (h handlers) deleteAll(c *fiber.Ctx) error {
	var b deleteJSON
	if len(strings.TrimSpace(string(c.Body()))) > 0 {
		if err := httpapi.DecodeJSON(c.Body(), &b); err != nil {
			return err
		}
	}
	fams := make([]compat.Selector, 0, len(b.ProductsFamilies))
	for _, f := range b.ProductsFamilies {
		fams = append(fams, f.selector())
	}
	ids, err := h.svc.Delete(c.UserContext(), httpapi.Param(c, "item_id"), fams)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"deleted_compatibilities": ids})
}

type exceptionJSON struct {
	Comment *string `json:"comment"`
}

func (h handlers) reportException(c *fiber.Ctx) error {
	var b exceptionJSON
	if len(strings.TrimSpace(string(c.Body()))) > 0 {
		if err := httpapi.DecodeJSON(c.Body(), &b); err != nil {
			return err
		}
	}
	if err := h.svc.ReportException(c.UserContext(), httpapi.Param(c, "item_id"), b.Comment); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"has_exception": true})
}

func (h handlers) exception(c *fiber.Ctx) error {
	has, err := h.svc.Exception(c.UserContext(), httpapi.Param(c, "item_id"))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"has_exception": has})
}

type snapshotJSON struct {
	ItemID               string         `json:"item_id"`
	SellerID             string         `json:"seller_id"`
	ProductID            string         `json:"product_id,omitempty"`
	UserSelection        *selectionJSON `json:"user_selection,omitempty"`
	CompatibilityStatus  statusJSON     `json:"compatibility_status"`
	CompatibilityDeleted bool           `json:"compatibility_deleted"`
	DateCreated          string         `json:"date_created"`
	DateUpdated          string         `json:"date_updated"`
}

type selectionJSON struct {
	LabelValues json.RawMessage `json:"label_values"`
}

type statusJSON struct {
	Compatibility   string                `json:"compatibility"`
	CompatibilityID string                `json:"compatibility_id,omitempty"`
	Note            *string               `json:"note,omitempty"`
	Restrictions    *[]compat.Restriction `json:"restrictions,omitempty"`
}

func (h handlers) snapshot(c *fiber.Ctx) error {
	id, err := strconv.ParseInt(c.Params("order_id"), 10, 64)
	if err != nil || id <= 0 {
		return compat.ErrSnapshotNotFound.WithCause("order_id", "order id must be a positive integer")
	}
	s, err := h.svc.Snapshot(c.UserContext(), id)
	if err != nil {
		return err
	}
	out := snapshotJSON{ItemID: s.ItemID, SellerID: strconv.FormatInt(s.SellerID, 10), ProductID: s.ProductID,
		CompatibilityStatus:  statusJSON{Compatibility: s.Status, CompatibilityID: s.CompatibilityID},
		CompatibilityDeleted: s.CompatibilityDeleted,
		DateCreated:          s.DateCreated.UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		DateUpdated:          s.DateUpdated.UTC().Format("2006-01-02T15:04:05.000Z07:00")}
	// Only product_id is "absent when none": user_selection is always an
	// object, with empty label_values when the buyer chose no vehicle.
	out.UserSelection = &selectionJSON{LabelValues: json.RawMessage("[]")}
	if len(s.UserSelection) > 0 {
		out.UserSelection.LabelValues = json.RawMessage(s.UserSelection)
	}
	// The spec lists compatibility_id for CONFIRMED and note/restrictions
	// for NO_USER_SELECTION only; the other statuses do not carry them.
	if s.Status != compat.Confirmed {
		out.CompatibilityStatus.CompatibilityID = ""
	}
	if s.Status == compat.NoUserSelection {
		note, rs := s.Note, s.Restrictions
		if rs == nil {
			rs = []compat.Restriction{}
		}
		out.CompatibilityStatus.Note, out.CompatibilityStatus.Restrictions = &note, &rs
	}
	return c.JSON(out)
}
