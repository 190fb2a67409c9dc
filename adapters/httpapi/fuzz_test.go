package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// noNUL reports whether no string of a decoded JSON value holds a NUL.
func noNUL(v any) bool {
	switch x := v.(type) {
	case string:
		return !strings.ContainsRune(x, 0)
	case []any:
		for _, e := range x {
			if !noNUL(e) {
				return false
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.ContainsRune(k, 0) || !noNUL(e) {
				return false
			}
		}
	}
	return true
}

// FuzzDecodeJSON: every JSON body of every route (sandbox bodies and
// fixtures included) goes through DecodeJSON; whatever it accepts holds no
// NUL anywhere, and nothing panics.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"nickname":"SELLER","site_id":"MLA"}`, `{"users":[{"id":1,"nickname":"a\u0000b"}]}`,
		`{"a\u0000":1}`, `{"text":"\\u0000"}`, `[1,"x",{"y":[null,true]}]`, `"\u0000"`, `{`, ``, "\xff", `{"x":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var v any
		if err := DecodeJSON(body, &v); err == nil && !noNUL(v) {
			t.Fatalf("DecodeJSON accepted a NUL: %q", body)
		}
		_ = Text("q", string(body))
	})
}

// AppendJSONString writes every string as encoding/json does.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"MLA1100", "", `a"b\c`, "<&>", "ñandú", "\x00\x1f\x7f", "\xff", "\u2028", "x\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendJSONString([]byte("x"), s); string(got) != "x"+string(want) {
			t.Fatalf("AppendJSONString(%q) = %s, want x%s", s, got, want)
		}
	})
}
