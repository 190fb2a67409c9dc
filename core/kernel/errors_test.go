package kernel

import (
	"errors"
	"fmt"
	"testing"
)

// Two sentinels of the same Kind and Code are two errors: errors.Is tells
// them apart, and every copy of a sentinel is still that sentinel.
func TestSentinelsAreDistinct(t *testing.T) {
	productNotFound := E(NotExist, "not_found", "product not found")
	itemNotFound := E(NotExist, "not_found", "item not found")
	if errors.Is(itemNotFound, productNotFound) || errors.Is(productNotFound, itemNotFound) {
		t.Fatal("two sentinels with the same Kind and Code are errors.Is each other")
	}
	var p Problems
	p.Add("id", "id is bad")
	copies := map[string]error{
		"With":            productNotFound.With("product MLA1 not found"),
		"Withf":           productNotFound.Withf("product %s not found", "MLA1"),
		"Wrap":            productNotFound.Wrap(errors.New("no rows")),
		"WithCause":       productNotFound.WithCause("product_id", "unknown"),
		"Problems.Err":    p.Err(productNotFound),
		"a copy's copy":   productNotFound.With("x").WithCause("a", "b").Wrap(errors.New("c")),
		"wrapped with %w": fmt.Errorf("store: %w", productNotFound.With("x")),
	}
	for name, err := range copies {
		if !errors.Is(err, productNotFound) {
			t.Errorf("%s: the copy is not errors.Is its sentinel", name)
		}
		if errors.Is(err, itemNotFound) {
			t.Errorf("%s: the copy is errors.Is another sentinel", name)
		}
	}
	// An Error made by hand (no sentinel) is only itself.
	internal := &Error{Kind: NotExist, Code: "not_found"}
	if errors.Is(internal, productNotFound) || errors.Is(productNotFound, internal) || !errors.Is(internal, internal) {
		t.Error("an Error made by hand matches a sentinel")
	}
}
