package kernel_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/feria/feria/core/kernel"
)

type deps struct {
	Clock    kernel.Clock
	Roll     func() float64
	Names    map[string]int
	Defaults []int        // a slice left nil is empty, not missing
	Later    kernel.Clock `wire:"optional"`
	Limit    int
}

func TestMustWire(t *testing.T) {
	clock := kernel.ClockFunc(time.Now)
	full := deps{Clock: clock, Roll: func() float64 { return 0 }, Names: map[string]int{}}
	for _, tc := range []struct {
		name  string
		deps  any
		panic string
	}{
		{"every required field set", full, ""},
		{"an optional field and a slice left nil", deps{Clock: clock, Roll: full.Roll, Names: full.Names}, ""},
		{"an interface left nil", deps{Roll: full.Roll, Names: full.Names}, "kernel_test.deps.Clock is required and nil"},
		{"a function left nil", deps{Clock: clock, Names: full.Names}, "kernel_test.deps.Roll is required and nil"},
		{"a map left nil", deps{Clock: clock, Roll: full.Roll}, "kernel_test.deps.Names is required and nil"},
		{"the first of several named", deps{}, "kernel_test.deps.Clock is required and nil"},
		{"not a struct", &full, "kernel.MustWire: *kernel_test.deps is not a struct"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg = fmt.Sprint(r)
					}
				}()
				kernel.MustWire(tc.deps)
				return ""
			}()
			if got != tc.panic {
				t.Errorf("panic %q, want %q", got, tc.panic)
			}
		})
	}
}
