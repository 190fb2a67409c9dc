package compatdb

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/uptrace/bun"

	"github.com/feria/feria/adapters/sqlstore"
	"github.com/feria/feria/core/compat"
	"github.com/feria/feria/ports/compatport"
)

// attrCond is the condition on one product_attributes row (columns
// prefixed with alias) that one selector attribute sets, with its args.
func attrCond(a compat.SelectorAttr, alias string) (string, []any) {
	var parts []string
	var args []any
	if len(a.ValueIDs) > 0 {
		parts = append(parts, alias+"value_id IN (?)")
		args = append(args, bun.In(a.ValueIDs))
	}
	if len(a.ValueNames) > 0 {
		names := make([]string, len(a.ValueNames))
		for i, n := range a.ValueNames {
			names[i] = compat.NormalizeName(n)
		}
		parts = append(parts, alias+"value_name IN (?)")
		args = append(args, bun.In(names))
	}
	if len(parts) == 0 {
		return "1 = 0", nil
	}
	return "(" + strings.Join(parts, " OR ") + ")", args
}

// familyScans is the set of product ids whose attributes match the
// selector, parents included: one index-only scan of the (domain,
// attribute, value, product) covering index per attribute, intersected.
func familyScans(sel compat.Selector) (string, []any) {
	var args []any
	scans := make([]string, 0, len(sel.Attributes))
	for _, a := range sel.Attributes {
		cond, cargs := attrCond(a, "")
		args = append(append(args, sel.DomainID, a.ID), cargs...)
		scans = append(scans, "SELECT product_id FROM product_attributes WHERE domain_id = ? AND attribute_id = ? AND "+cond)
	}
	return strings.Join(scans, " INTERSECT "), args
}

// family builds the FROM of a family selector's child products: the scans
// joined with products, which keeps children only.
func family(sel compat.Selector) (string, []any) {
	scans, args := familyScans(sel)
	return " FROM (" + scans + ") f JOIN products p ON p.id = f.product_id AND p.parent_id IS NOT NULL", args
}

// FamilyProducts returns up to limit child products of a family.
func (s *Store) FamilyProducts(ctx context.Context, sel compat.Selector, limit int) ([]compat.Product, error) {
	if len(sel.Attributes) == 0 {
		return nil, nil
	}
	from, args := family(sel)
	// Hand-written SQL, the fast path: the family is an INTERSECT of one
	// attribute scan per selector, built by family.
	var rs []productRow
	err := s.idb(ctx).NewRaw(`SELECT p.id, p.site_id, p.domain_id, p.name, p.parent_id`+from+` ORDER BY p.id LIMIT ?`,
		append(args, limit)...).Scan(ctx, &rs)
	if err != nil {
		return nil, wrap("family products", err)
	}
	out := make([]compat.Product, len(rs))
	for i, r := range rs {
		out[i] = r.product()
	}
	return out, nil
}

// CountFamily counts the child products of a family: one index-only scan
// per selector attribute of the children's partial covering (domain,
// attribute, value, product) indexes of product_attributes, whose rows
// carry their product's domain and whether it is a child (migration
// 20261125000100), merge-joined on the product (each scan has one row per
// product, so the join has one per match). Joining the matches with
// products to keep children cost a heap lookup per match (16 ms p50 at
// 10,000 matches; docs/performance.md); an EXCEPT of the domain's parents
// or an INTERSECT of the scans, a hashed set of every match.
//
// A count is kept (the count cache) with the version of its domain's
// attribute rows (family_versions, renewed by triggers on every change).
// With a count kept, one prepared statement reads whether the domain
// exists and its version: the count's own statement is new text for each
// selector, parsed and planned at every run, which cost PostgreSQL more
// than the rest of the request. The count is run only when nothing is
// kept or the version moved, in one statement with the version it counted
// at. ErrNotFound when the domain does not exist.
func (s *Store) CountFamily(ctx context.Context, sel compat.Selector) (int, error) {
	_, cacheable := sqlstore.Outside(ctx, s.db)
	key := familyKey(sel)
	var got struct {
		Domain  bool  `bun:"d"`
		Version int64 `bun:"v"`
		N       int   `bun:"n"`
	}
	if cacheable {
		if kept, ok := s.counts.Get(key); ok {
			err := sqlstore.One(ctx, s.db, &got, `SELECT EXISTS (SELECT 1 FROM domains WHERE id = $1) AS d,
				COALESCE((SELECT v FROM family_versions WHERE domain_id = $1), 0) AS v`, sel.DomainID)
			switch {
			case err != nil:
				return 0, wrap("count family", err)
			case !got.Domain:
				return 0, wrap("count family", compatport.ErrNotFound)
			case got.Version != 0 && got.Version == kept.version:
				return kept.n, nil
			}
		}
	}
	count, args := familyCount(sel)
	err := s.idb(ctx).NewRaw(`SELECT EXISTS (SELECT 1 FROM domains WHERE id = ?) AS d,
		COALESCE((SELECT v FROM family_versions WHERE domain_id = ?), 0) AS v, (`+count+`) AS n`,
		append([]any{sel.DomainID, sel.DomainID}, args...)...).Scan(ctx, &got)
	switch {
	case err != nil:
		return 0, wrap("count family", err)
	case !got.Domain:
		return 0, wrap("count family", compatport.ErrNotFound)
	case got.Version != 0 && cacheable && len(key) <= maxCountKey:
		s.counts.Add(key, counted{version: got.Version, n: got.N})
	}
	return got.N, nil
}

// familyCount is the statement counting a family's child products (see
// CountFamily), with its args; a selector without attributes counts none.
func familyCount(sel compat.Selector) (string, []any) {
	if len(sel.Attributes) == 0 {
		return "SELECT 0", nil
	}
	var q strings.Builder
	var args []any
	q.WriteString("SELECT count(*) FROM product_attributes a0")
	for i, a := range sel.Attributes[1:] {
		alias := fmt.Sprintf("a%d.", i+1)
		cond, cargs := attrCond(a, alias)
		fmt.Fprintf(&q, " JOIN product_attributes a%[1]d ON a%[1]d.product_id = a0.product_id AND a%[1]d.domain_id = ? AND a%[1]d.attribute_id = ? AND a%[1]d.child AND %[2]s", i+1, cond)
		args = append(append(args, sel.DomainID, a.ID), cargs...)
	}
	cond, cargs := attrCond(sel.Attributes[0], "a0.")
	q.WriteString(" WHERE a0.domain_id = ? AND a0.attribute_id = ? AND a0.child AND " + cond)
	return q.String(), append(append(args, sel.DomainID, sel.Attributes[0].ID), cargs...)
}

// familyKey is the count cache's key of a selector: every part the count
// reads, each prefixed with its length (ids are the caller's text).
func familyKey(sel compat.Selector) string {
	var b strings.Builder
	part := func(s string) {
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	part(sel.DomainID)
	for _, a := range sel.Attributes {
		part(a.ID)
		b.WriteString(strconv.Itoa(len(a.ValueIDs)))
		for _, v := range a.ValueIDs {
			part(v)
		}
		b.WriteString(strconv.Itoa(len(a.ValueNames)))
		for _, n := range a.ValueNames {
			part(compat.NormalizeName(n))
		}
	}
	return b.String()
}
