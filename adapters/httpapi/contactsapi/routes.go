// Package contactsapi serves area A (contact statistics of items
// and sellers), the buyer's questions, and the sandbox's contact events.
// Every public route answers errors in shape (c) {code, message}.
package contactsapi

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/ports/contactsport"
)

// Routes mounts the contact routes with full paths and per-route
// middleware: other modules share the /items and /users prefixes.
func Routes(app fiber.Router, svc contactsport.Service, auth httpapi.Auth) {
	h := handlers{svc: svc}
	shape := httpapi.UseShape(httpapi.ShapeContacts)
	// The marketplace shows the messaging-app calls with a bearer token and the
	// others without: a token is accepted there and checked when sent, but
	// not required (docs/decisions.md).
	msg := auth.Optional()

	// Multi-item paths first, so that "contacts" is never read as an item id.
	app.Get("/items/contacts/questions/time_window", shape, h.multiWindow(contacts.Question))
	app.Get("/items/contacts/phone_views/time_window", shape, h.multiWindow(contacts.PhoneView))
	app.Get("/items/contacts/msgapp/time_window", shape, msg, h.multiWindow(contacts.MsgApp))

	app.Get("/items/:item_id/contacts/questions/time_window", shape, h.itemWindow(contacts.Question))
	app.Get("/items/:item_id/contacts/phone_views/time_window", shape, h.itemWindow(contacts.PhoneView))
	app.Get("/items/:item_id/contacts/msgapp/time_window", shape, msg, h.itemWindow(contacts.MsgApp))
	app.Get("/items/:item_id/contacts/questions", shape, h.itemTotal(contacts.Question))
	app.Get("/items/:item_id/contacts/phone_views", shape, h.itemTotal(contacts.PhoneView))
	app.Get("/items/:item_id/contacts/msgapp", shape, msg, h.itemTotal(contacts.MsgApp))

	app.Get("/users/:user_id/contacts/questions/time_window", shape, h.userWindow(contacts.Question))
	app.Get("/users/:user_id/contacts/phone_views/time_window", shape, h.userWindow(contacts.PhoneView))
	app.Get("/users/:user_id/contacts/msgapp/time_window", shape, msg, h.userWindow(contacts.MsgApp))
	app.Get("/users/:user_id/contacts/questions", shape, h.userTotal(contacts.Question))
	app.Get("/users/:user_id/contacts/phone_views", shape, h.userTotal(contacts.PhoneView))
	app.Get("/users/:user_id/contacts/msgapp", shape, msg, h.userTotal(contacts.MsgApp))

	app.Post("/questions", shape, auth.Required(), h.ask)
	app.Get("/questions/search", shape, auth.Required(), h.search)
	// A question read is a notified resource: its errors are in shape (a),
	// as every resource a notification names (docs/decisions.md).
	app.Get("/questions/:question_id", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), h.question)
	app.Delete("/questions/:question_id", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), h.remove)
	app.Post("/answers", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), h.answer)
	app.Get("/users/:user_id/questions/response_time", httpapi.UseShape(httpapi.ShapeDefault), auth.Required(), h.responseTime)
}

type handlers struct{ svc contactsport.Service }

// The total answers keep the field order the marketplace shows,
// which differs per kind: questions {date_from, date_to, id, total}, phone
// views {date_from, date_to, total, id}, messaging-app clicks {total,
// date_from, date_to, id}. The shapes the marketplace does not show (a seller's
// questions, an item's phone views) follow their kind's shown sibling.
type questionTotalJSON struct {
	DateFrom string `json:"date_from"`
	DateTo   string `json:"date_to"`
	ItemID   string `json:"item_id,omitempty"`
	UserID   string `json:"user_id,omitempty"`
	Total    int64  `json:"total"`
}

type phoneViewTotalJSON struct {
	DateFrom string `json:"date_from"`
	DateTo   string `json:"date_to"`
	Total    int64  `json:"total"`
	ItemID   string `json:"item_id,omitempty"`
	UserID   string `json:"user_id,omitempty"`
}

type msgAppTotalJSON struct {
	Total    int64  `json:"total"`
	DateFrom string `json:"date_from"`
	DateTo   string `json:"date_to"`
	ItemID   string `json:"item_id,omitempty"`
	UserID   string `json:"user_id,omitempty"`
}

func subjectIDs(s contacts.Subject) (item, user string) {
	if s.Item != "" {
		return s.Item, ""
	}
	return "", strconv.FormatInt(s.User, 10)
}

func totalOut(t contacts.Total) any {
	item, user := subjectIDs(t.Subject)
	from, to := contacts.FormatDate(t.Range.From), contacts.FormatDate(t.Range.To)
	switch t.Kind {
	case contacts.PhoneView:
		return phoneViewTotalJSON{DateFrom: from, DateTo: to, Total: t.Total, ItemID: item, UserID: user}
	case contacts.MsgApp:
		return msgAppTotalJSON{Total: t.Total, DateFrom: from, DateTo: to, ItemID: item, UserID: user}
	}
	return questionTotalJSON{DateFrom: from, DateTo: to, ItemID: item, UserID: user, Total: t.Total}
}

func totalQuery(c *fiber.Ctx, k contacts.Kind) contactsport.TotalQuery {
	return contactsport.TotalQuery{Kind: k, DateFrom: httpapi.Query(c, "date_from"), DateTo: httpapi.Query(c, "date_to")}
}

func windowQuery(c *fiber.Ctx, k contacts.Kind) contactsport.WindowQuery {
	return contactsport.WindowQuery{Kind: k, Last: httpapi.Query(c, "last"), Unit: httpapi.Query(c, "unit"),
		Ending: httpapi.Query(c, "ending"), Order: httpapi.Query(c, "order")}
}

func (h handlers) itemTotal(k contacts.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		t, err := h.svc.ItemTotal(c.UserContext(), httpapi.Param(c, "item_id"), totalQuery(c, k))
		if err != nil {
			return err
		}
		return c.JSON(totalOut(t))
	}
}

func (h handlers) userTotal(k contacts.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		t, err := h.svc.UserTotal(c.UserContext(), httpapi.Param(c, "user_id"), totalQuery(c, k))
		if err != nil {
			return err
		}
		return c.JSON(totalOut(t))
	}
}

func (h handlers) userWindow(k contacts.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		w, err := h.svc.UserWindow(c.UserContext(), httpapi.Param(c, "user_id"), windowQuery(c, k))
		if err != nil {
			return err
		}
		return sendWindows(c, []contacts.Window{w}, true)
	}
}

// itemWindow answers one object, or an array when ids is given: the path's
// item first, then the other ids in the order given.
func (h handlers) itemWindow(k contacts.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ids := []string{httpapi.Param(c, "item_id")}
		raw, multi := queryGiven(c, "ids")
		if multi {
			if _, err := contacts.ParseItemID(ids[0]); err != nil {
				return err
			}
			parsed, err := contacts.ParseIDs(raw)
			if err != nil {
				return err
			}
			for _, id := range parsed {
				if id != ids[0] {
					ids = append(ids, id)
				}
			}
		}
		ws, err := h.svc.ItemWindows(c.UserContext(), ids, windowQuery(c, k))
		if err != nil {
			return err
		}
		return sendWindows(c, ws, !multi)
	}
}

// multiWindow answers an array of windows, one per id of ids; the service
// decodes the ids.
func (h handlers) multiWindow(k contacts.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ids := strings.Split(httpapi.Query(c, "ids"), ",")
		ws, err := h.svc.ItemWindows(c.UserContext(), ids, windowQuery(c, k))
		if err != nil {
			return err
		}
		return sendWindows(c, ws, false)
	}
}

// queryGiven tells an absent parameter from an empty one.
func queryGiven(c *fiber.Ctx, name string) (string, bool) {
	args := c.Context().QueryArgs()
	if !args.Has(name) {
		return "", false
	}
	return strings.Clone(string(args.Peek(name))), true
}
