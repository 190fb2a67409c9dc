// Package visitsapi serves the visits of items and sellers, and the
// sandbox's visit events. Errors are in shape (a).
package visitsapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/contacts"
	"github.com/feria/feria/core/visits"
	"github.com/feria/feria/ports/visitsport"
)

// Routes mounts the visits routes. GET /items/visits must come before any
// GET /items/:item_id (app mounts it first); the others lie deeper.
func Routes(app fiber.Router, svc visitsport.Service, auth httpapi.Auth) {
	shape := httpapi.UseShape(httpapi.ShapeDefault)
	// Item visits are public, as item contacts: a token is checked when
	// sent (docs/decisions.md); a user's visits are that user's alone.
	opt := auth.Optional()
	app.Get("/items/visits", shape, opt, func(c *fiber.Ctx) error {
		ts, err := svc.ItemTotals(c.UserContext(), httpapi.Query(c, "ids"), httpapi.Query(c, "date_from"), httpapi.Query(c, "date_to"))
		if err != nil {
			return err
		}
		out := make([]itemTotalJSON, len(ts))
		for i, t := range ts {
			out[i] = itemTotalJSON{ItemID: t.Subject.Item, DateFrom: contacts.FormatDate(t.Range.From),
				DateTo: contacts.FormatDate(t.Range.To), TotalVisits: t.Total, VisitsDetail: detail(t.Total)}
		}
		return c.JSON(out)
	})
	app.Get("/items/:item_id/visits/time_window", shape, opt, func(c *fiber.Ctx) error {
		w, err := svc.ItemWindow(c.UserContext(), httpapi.Param(c, "item_id"), windowQuery(c))
		if err != nil {
			return err
		}
		return c.JSON(windowOut(w))
	})
	app.Get("/users/:user_id/items_visits", shape, auth.Required(), func(c *fiber.Ctx) error {
		t, err := svc.UserTotal(c.UserContext(), httpapi.Param(c, "user_id"), httpapi.Query(c, "date_from"), httpapi.Query(c, "date_to"))
		if err != nil {
			return err
		}
		return c.JSON(userTotalJSON{UserID: t.Subject.User, DateFrom: contacts.FormatDate(t.Range.From),
			DateTo: contacts.FormatDate(t.Range.To), TotalVisits: t.Total, VisitsDetail: detail(t.Total)})
	})
	app.Get("/users/:user_id/items_visits/time_window", shape, auth.Required(), func(c *fiber.Ctx) error {
		w, err := svc.UserWindow(c.UserContext(), httpapi.Param(c, "user_id"), windowQuery(c))
		if err != nil {
			return err
		}
		return c.JSON(windowOut(w))
	})
}

func windowQuery(c *fiber.Ctx) visitsport.WindowQuery {
	return visitsport.WindowQuery{Last: httpapi.Query(c, "last"), Unit: httpapi.Query(c, "unit"), Ending: httpapi.Query(c, "ending")}
}

// detailJSON is one entry of visits_detail: the visits of one company.
type detailJSON struct {
	Company  string `json:"company"`
	Quantity int64  `json:"quantity"`
}

func detail(n int64) []detailJSON { return []detailJSON{{Company: visits.Company, Quantity: n}} }

type itemTotalJSON struct {
	ItemID       string       `json:"item_id"`
	DateFrom     string       `json:"date_from"`
	DateTo       string       `json:"date_to"`
	TotalVisits  int64        `json:"total_visits"`
	VisitsDetail []detailJSON `json:"visits_detail"`
}

type userTotalJSON struct {
	UserID       int64        `json:"user_id"`
	DateFrom     string       `json:"date_from"`
	DateTo       string       `json:"date_to"`
	TotalVisits  int64        `json:"total_visits"`
	VisitsDetail []detailJSON `json:"visits_detail"`
}

type resultJSON struct {
	Date         string       `json:"date"`
	Total        int64        `json:"total"`
	VisitsDetail []detailJSON `json:"visits_detail"`
}

// windowJSON is a time window of an item (item_id) or of a user (user_id).
type windowJSON struct {
	ItemID      string       `json:"item_id,omitempty"`
	UserID      int64        `json:"user_id,omitempty"`
	TotalVisits int64        `json:"total_visits"`
	DateFrom    string       `json:"date_from"`
	DateTo      string       `json:"date_to"`
	Last        int          `json:"last"`
	Unit        string       `json:"unit"`
	Results     []resultJSON `json:"results"`
}

func windowOut(w contacts.Window) windowJSON {
	out := windowJSON{ItemID: w.Subject.Item, UserID: w.Subject.User, TotalVisits: w.Total,
		DateFrom: contacts.FormatDate(w.From), DateTo: contacts.FormatDate(w.To), Last: w.Last, Unit: string(w.Unit),
		Results: make([]resultJSON, w.Len())}
	for i := range out.Results {
		b := w.Result(i)
		out.Results[i] = resultJSON{Date: contacts.FormatDate(b.Start), Total: b.Total, VisitsDetail: detail(b.Total)}
	}
	return out
}
