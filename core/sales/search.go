package sales

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/feria/feria/core/kernel"
	"github.com/feria/feria/core/paging"
)

// SearchLimit is the default and the largest page of GET /orders/search,
// as the marketplace documents its orders search (51).
const SearchLimit = 51

// The sorts of the orders search; SortDateAsc is the marketplace's default.
const (
	SortDateAsc  = "date_asc"
	SortDateDesc = "date_desc"
)

// Sorts are the orders search's sorts with their names, in the order
// available_sorts lists them.
var Sorts = []SortRef{{ID: SortDateAsc, Name: "Date ascending"}, {ID: SortDateDesc, Name: "Date descending"}}

// Errors of the orders search.
var (
	ErrInvalidSearch = kernel.E(kernel.Invalid, "bad_request", "invalid orders search")
	ErrNotYourSearch = kernel.E(kernel.Permission, "forbidden", "the caller may only search its own orders")
)

// OrderQuery is one GET /orders/search: whose orders (Seller or Buyer, one
// of them) and which of them.
type OrderQuery struct {
	Seller, Buyer int64
	Status        string
	From, To      *time.Time
	Q             string
	Sort          string
	Page          paging.Request
}

// SortRef names a sort.
type SortRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Filter is one filter the search applied, as the marketplace lists them.
type Filter struct {
	ID     string        `json:"id"`
	Name   string        `json:"name"`
	Type   string        `json:"type"`
	Values []FilterValue `json:"values"`
}

// FilterValue is the value of an applied filter.
type FilterValue struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// SearchAnswer is the answer of GET /orders/search.
type SearchAnswer struct {
	Query          *string     `json:"query"`
	Results        []OrderView `json:"results"`
	Sort           SortRef     `json:"sort"`
	AvailableSorts []SortRef   `json:"available_sorts"`
	Filters        []Filter    `json:"filters"`
	Paging         paging.Page `json:"paging"`
}

// ParseOrderQuery reads the search's parameters (get returns "" for one not
// given): seller or buyer, one of them, a positive integer; order.status
// one of OrderStatuses; the dates RFC 3339; sort one of Sorts; limit
// 0..SearchLimit.
func ParseOrderQuery(get func(string) string) (OrderQuery, error) {
	q := OrderQuery{Status: get("order.status"), Q: strings.TrimSpace(get("q")), Sort: get("sort"), Page: paging.Request{Limit: SearchLimit}}
	bad := func(field, format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		return ErrInvalidSearch.With(msg).WithCause(field, msg)
	}
	for _, p := range []struct {
		name string
		to   *int64
	}{{"seller", &q.Seller}, {"buyer", &q.Buyer}} {
		if raw := get(p.name); raw != "" {
			n, err := strconv.ParseInt(raw, 10, 64)
			if err != nil || n <= 0 {
				return q, bad(p.name, "%s must be a positive integer, got %q", p.name, raw)
			}
			*p.to = n
		}
	}
	if (q.Seller == 0) == (q.Buyer == 0) {
		return q, bad("seller", "exactly one of seller and buyer is required")
	}
	if q.Status != "" && !slices.Contains(OrderStatuses, q.Status) {
		return q, bad("order.status", "order.status must be one of %s, got %q", strings.Join(OrderStatuses, ", "), q.Status)
	}
	for _, p := range []struct {
		name string
		to   **time.Time
	}{{"order.date_created.from", &q.From}, {"order.date_created.to", &q.To}} {
		if raw := get(p.name); raw != "" {
			t, err := time.Parse(time.RFC3339, raw)
			if err != nil {
				return q, bad(p.name, "%s must be an ISO 8601 date with its offset (2026-11-20T00:00:00.000-03:00), got %q", p.name, raw)
			}
			*p.to = &t
		}
	}
	if q.Sort == "" {
		q.Sort = SortDateAsc
	} else if q.Sort != SortDateAsc && q.Sort != SortDateDesc {
		return q, bad("sort", "sort must be one of %s, %s, got %q", SortDateAsc, SortDateDesc, q.Sort)
	}
	page, err := paging.Parse(get("limit"), get("offset"))
	if err != nil {
		return q, err
	}
	if get("limit") != "" {
		if page.Limit > SearchLimit {
			return q, bad("limit", "limit must be at most %d, got %d", SearchLimit, page.Limit)
		}
		q.Page.Limit = page.Limit
	}
	q.Page.Offset = page.Offset
	return q, nil
}

// Matches reports whether an order of the searched user passes the
// query's filters: status, date_created within [From, To], and q, which is
// the order's id or the id of one of its items.
func (q OrderQuery) Matches(o Order) bool {
	if q.Status != "" && o.Status != q.Status {
		return false
	}
	if q.From != nil && o.DateCreated.Before(*q.From) || q.To != nil && o.DateCreated.After(*q.To) {
		return false
	}
	if q.Q == "" || strconv.FormatInt(o.ID, 10) == q.Q {
		return true
	}
	return slices.ContainsFunc(o.Items, func(l OrderItem) bool { return strings.EqualFold(l.ItemID, q.Q) })
}

// Answer builds the search's answer from the searched user's orders: those
// that match, sorted, the page cut out.
func (q OrderQuery) Answer(orders []Order) SearchAnswer {
	var found []Order
	for _, o := range orders {
		if q.Matches(o) {
			found = append(found, o)
		}
	}
	slices.SortStableFunc(found, func(a, b Order) int {
		c := cmp.Or(a.DateCreated.Compare(b.DateCreated), cmp.Compare(a.ID, b.ID))
		if q.Sort == SortDateDesc {
			return -c
		}
		return c
	})
	a := SearchAnswer{Results: []OrderView{}, Filters: q.filters(), Paging: q.Page.Of(len(found))}
	if q.Q != "" {
		a.Query = &q.Q
	}
	for _, o := range paging.Slice(found, q.Page) {
		a.Results = append(a.Results, o.View())
	}
	for _, s := range Sorts {
		if s.ID == q.Sort {
			a.Sort = s
		} else {
			a.AvailableSorts = append(a.AvailableSorts, s)
		}
	}
	return a
}

// filters lists the filters applied besides whose orders they are.
func (q OrderQuery) filters() []Filter {
	out := []Filter{}
	if q.Status != "" {
		out = append(out, Filter{ID: "order.status", Name: "Order Status", Type: "text", Values: []FilterValue{{ID: q.Status, Name: q.Status}}})
	}
	for _, d := range []struct {
		id, name string
		t        *time.Time
	}{{"order.date_created.from", "Order date created from", q.From}, {"order.date_created.to", "Order date created to", q.To}} {
		if d.t != nil {
			v := d.t.Format(time.RFC3339Nano)
			out = append(out, Filter{ID: d.id, Name: d.name, Type: "date", Values: []FilterValue{{ID: v, Name: v}}})
		}
	}
	return out
}
