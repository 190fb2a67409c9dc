package kerneltest

import (
	"errors"
	"slices"
	"testing"

	"github.com/feria/feria/core/kernel"
)

// Want is what a test wants of an error. A Want without Is, Message and
// Causes wants no error (so that a table's rows without a message are the
// accepted ones); otherwise the error must be a *kernel.Error and each
// field set is checked.
type Want struct {
	Is      error       // a sentinel errors.Is must match
	Kind    kernel.Kind // its Kind, unless Internal (the zero Kind)
	Message string      // its Message, exactly
	Causes  []string    // the codes of all its causes, in order ([]string{} for none)
}

// WantErr stops the test unless err is what want says; what names the
// case in the failure. It returns after each Fatalf, for a TB that does not
// stop.
func WantErr(t testing.TB, what string, err error, want Want) {
	t.Helper()
	if want.Is == nil && want.Message == "" && want.Causes == nil {
		if err != nil {
			t.Fatalf("%s: error %v, want none", what, err)
		}
		return
	}
	var e *kernel.Error
	if !errors.As(err, &e) {
		t.Fatalf("%s: error %v, want a *kernel.Error %+v", what, err, want)
		return
	}
	if want.Is != nil && !errors.Is(err, want.Is) {
		t.Fatalf("%s: error %v, want %v", what, err, want.Is)
		return
	}
	if want.Kind != kernel.Internal && e.Kind != want.Kind {
		t.Fatalf("%s: error %v of kind %v, want %v", what, err, e.Kind, want.Kind)
		return
	}
	if want.Message != "" && e.Message != want.Message {
		t.Fatalf("%s: message %q, want %q", what, e.Message, want.Message)
		return
	}
	if want.Causes == nil {
		return
	}
	got := []string{}
	for _, c := range e.Causes {
		got = append(got, c.Code)
	}
	if !slices.Equal(got, want.Causes) {
		t.Fatalf("%s: causes %v, want %v", what, got, want.Causes)
	}
}
