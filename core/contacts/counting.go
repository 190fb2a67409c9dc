package contacts

import (
	"context"
	"strings"
)

// Counting is what every kind of counters (contacts', visits') does alike
// with its events: it resolves the items' sellers, naming the unknown
// ones, and counts a batch in one call of its counters. Each kind's use
// cases hold one over their own counters; the two interfaces are the
// parts of the counters' and the items' ports that it uses.
type Counting struct {
	Counters interface {
		Add(ctx context.Context, events []Event) (Result, error)
	}
	Owners interface {
		// Sellers returns the seller of each known item; unknown ids are
		// absent from the map.
		Sellers(ctx context.Context, itemIDs []string) (map[string]int64, error)
	}
}

// Sellers resolves the seller of every item, or fails naming the unknown
// ones.
func (c Counting) Sellers(ctx context.Context, ids []string) (map[string]int64, error) {
	found, err := c.Owners.Sellers(ctx, ids)
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, id := range ids {
		if _, ok := found[id]; !ok {
			missing = append(missing, id)
		}
	}
	switch len(missing) {
	case 0:
		return found, nil
	case 1:
		return nil, ErrNotFound.Withf("item %s not found", missing[0])
	}
	return nil, ErrNotFound.Withf("items %s not found", strings.Join(missing, ", "))
}

// Prepare checks one input and resolves its item's seller, without
// counting it (fixtures count every entry once all are valid).
func (c Counting) Prepare(ctx context.Context, in Input) (Event, error) {
	ev, err := in.Check("")
	if err != nil {
		return Event{}, err
	}
	sellers, err := c.Sellers(ctx, []string{ev.ItemID})
	if err != nil {
		return Event{}, err
	}
	ev.SellerID = sellers[ev.ItemID]
	return ev, nil
}

// Ingest checks a whole batch (CheckBatch), resolves every item's seller,
// then counts the batch in one call of the counters: all or none.
func Ingest[T Input](ctx context.Context, c Counting, in []T) (Result, error) {
	events, ids, err := CheckBatch(in)
	if err != nil {
		return Result{}, err
	}
	if len(events) == 0 {
		return Result{Counted: []bool{}}, nil
	}
	sellers, err := c.Sellers(ctx, ids)
	if err != nil {
		return Result{}, err
	}
	for i := range events {
		events[i].SellerID = sellers[events[i].ItemID]
	}
	return c.Counters.Add(ctx, events)
}
