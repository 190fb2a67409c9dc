// Package salesapi serves the sales module: the sandbox collection of
// orders (packs are orders that share a pack_id) and the public read of an
// order.
package salesapi

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/feria/feria/adapters/httpapi/sandboxapi"
	"github.com/feria/feria/core/sales"
	"github.com/feria/feria/ports/salesport"
)

// Collections are the sales module's sandbox collections.
func Collections(svc salesport.Service) []sandboxapi.Collection {
	named := func(o *sales.Order, id int64) { o.ID = id }
	orders := sandboxapi.ByNumber("orders", "orders", "order_id", named, svc.PutOrder, svc.Order)
	orders.LockKey = lockKey
	return []sandboxapi.Collection{orders}
}

// lockKey orders a fixtures load's orders by first item, then id: storing an
// order locks its row, then its first item's compatibility version (its
// snapshot), so two loads writing in this order take the items' locks in
// one order and do not deadlock.
func lockKey(entry []byte) string {
	var o struct {
		ID    json.RawMessage `json:"id"`
		Items []struct {
			ItemID string `json:"item_id"`
		} `json:"items"`
	}
	if json.Unmarshal(entry, &o) != nil {
		return ""
	}
	item := ""
	if len(o.Items) > 0 {
		item = o.Items[0].ItemID
	}
	// Ids of equal length compare as numbers; the NUL keeps an item id that
	// is a prefix of another before it.
	return fmt.Sprintf("%s\x00%020s", item, strings.Trim(string(o.ID), `"`))
}
