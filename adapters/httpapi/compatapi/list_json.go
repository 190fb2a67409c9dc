package compatapi

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/feria/feria/adapters/httpapi"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// appendList writes list(l, extended) byte for byte as encoding/json does
// (TestListJSONIsEncodingJSON holds them together): a list of hundreds of
// entries is the hottest answer of the area, and reflection was a fifth of
// its time under load. Restrictions, nested and rare, go through
// encoding/json. The entries' encoding is kept with a list the store
// keeps (l.Derived), so that a list unchanged since the last read is
// copied out, not written again (its writing was a sixth of the route's
// CPU).
func appendList(b []byte, l compatport.List, extended bool) []byte {
	b = append(b, `{"products":[`...)
	key := encodedEntries{extended: extended}
	if kept, ok := l.Derived.Load(key); ok {
		b = append(b, kept.([]byte)...)
	} else {
		start := len(b)
		for i := range l.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntry(b, &l.Entries[i], extended) // an entry is large: not copied twice
		}
		l.Derived.Store(key, slices.Clone(b[start:]))
	}
	b = append(b, `],"catalog_compatibilities_count":`...)
	b = strconv.AppendInt(b, int64(len(l.Entries)), 10)
	if l.UniversalDomains != nil {
		b = append(b, `,"universal":{"domain_ids":[`...)
		for i, d := range l.UniversalDomains {
			if i > 0 {
				b = append(b, ',')
			}
			b = httpapi.AppendJSONString(b, d)
		}
		b = append(b, "]}"...)
	}
	return append(b, '}')
}

// encodedEntries keys the entries' encoding among a list's derived values.
type encodedEntries struct{ extended bool }

// appendEntry writes entry(e, extended, false): note and restrictions only
// in the extended list, never note_status.
func appendEntry(b []byte, e *compatport.Claimed, extended bool) []byte {
	b = append(b, `{"id":`...)
	b = httpapi.AppendJSONString(b, e.ID)
	b = append(b, `,"domain_id":`...)
	b = httpapi.AppendJSONString(b, e.DomainID)
	b = append(b, `,"catalog_product_id":`...)
	b = httpapi.AppendJSONString(b, e.ProductID)
	b = append(b, `,"catalog_product_name":`...)
	b = httpapi.AppendJSONString(b, e.ProductName)
	b = append(b, `,"source":`...)
	b = httpapi.AppendJSONString(b, e.Source)
	b = append(b, `,"creation_source":`...)
	b = httpapi.AppendJSONString(b, e.CreationSource)
	if extended {
		b = append(b, `,"note":`...)
		b = httpapi.AppendJSONString(b, e.Note)
		b = append(b, `,"restrictions":`...)
		if len(e.Restrictions) == 0 {
			b = append(b, "[]"...)
		} else {
			rs, _ := json.Marshal(e.Restrictions) // plain structs of strings and ints always encode
			b = append(b, rs...)
		}
	}
	r := compat.ReputationOf(e.Claims)
	b = append(b, `,"reputation":{"level":`...)
	b = httpapi.AppendJSONString(b, r.Level)
	b = append(b, `,"total_claims":`...)
	b = strconv.AppendInt(b, int64(r.TotalClaims), 10)
	return append(b, "}}"...)
}
