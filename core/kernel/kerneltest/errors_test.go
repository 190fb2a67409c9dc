package kerneltest

import (
	"errors"
	"testing"

	"github.com/feria/feria/core/kernel"
)

// recorder is a testing.TB that notes a Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Logf(string, ...any)   {}

func TestWantErr(t *testing.T) {
	bad := kernel.E(kernel.Invalid, "bad_request", "bad")
	other := kernel.E(kernel.Invalid, "bad_request", "other")
	err := bad.With("bad x").WithCause("a", "").WithCause("b", "")
	for _, c := range []struct {
		name string
		err  error
		want Want
		ok   bool
	}{
		{"none wanted, none", nil, Want{}, true},
		{"none wanted, one", err, Want{}, false},
		{"a kind alone wants none", nil, Want{Kind: kernel.Invalid}, true},
		{"all matches", err, Want{Is: bad, Kind: kernel.Invalid, Message: "bad x", Causes: []string{"a", "b"}}, true},
		{"wanted, none", nil, Want{Is: bad}, false},
		{"not a kernel error", errors.New("x"), Want{Message: "x"}, false},
		{"another sentinel", err, Want{Is: other}, false},
		{"another kind", err, Want{Is: bad, Kind: kernel.Conflict}, false},
		{"another message", err, Want{Message: "bad"}, false},
		{"a cause short", err, Want{Causes: []string{"a"}}, false},
		{"causes out of order", err, Want{Causes: []string{"b", "a"}}, false},
		{"no causes wanted", bad, Want{Is: bad, Causes: []string{}}, true},
	} {
		r := &recorder{TB: t}
		WantErr(r, c.name, c.err, c.want)
		if r.failed == c.ok {
			t.Errorf("%s: failed %v, want %v", c.name, r.failed, !c.ok)
		}
	}
}
