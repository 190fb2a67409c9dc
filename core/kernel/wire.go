package kernel

import (
	"fmt"
	"reflect"
)

// MustWire checks a use case's Deps (a struct, passed by value) as its New
// receives them: it panics naming the first field left nil (an interface,
// pointer, function, map or channel) unless the field is tagged
// `wire:"optional"`, whose comment then says what nil means. A use case
// built without a port it needs is a wiring bug: start-up reports it, not
// the first request that reaches the port.
func MustWire(deps any) {
	v := reflect.ValueOf(deps)
	t := v.Type()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("kernel.MustWire: %s is not a struct", t))
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Tag.Get("wire") == "optional" {
			continue
		}
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Func, reflect.Map, reflect.Chan:
			if fv.IsNil() {
				panic(fmt.Sprintf("%s.%s is required and nil", t, f.Name))
			}
		}
	}
}
