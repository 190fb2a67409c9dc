package kernel

import (
	"bytes"
	"encoding/json"
)

// Unchanged reports whether stored and incoming are the same resource once
// ignore has cleared, on copies of both, the fields the service sets itself
// (dates). A sandbox PUT of an unchanged body then keeps last_updated, so the
// same body twice leaves the same state even on the running clock. The two
// are compared as JSON, as a client sees them: a store's reading of nil and
// empty lists or of time zones does not count as a change.
func Unchanged[T any](stored, incoming T, ignore func(*T)) bool {
	ignore(&stored)
	ignore(&incoming)
	a, err1 := json.Marshal(stored)
	b, err2 := json.Marshal(incoming)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}
