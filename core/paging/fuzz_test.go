package paging

import "testing"

// FuzzParse: any limit and offset either fail or give a page within the
// platform's bounds; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"50", "0"}, {"200", "10"}, {"201", "0"}, {"-1", "5"}, {"0", "-1"}, {"abc", ""},
		{"9223372036854775808", "1"}, {" 10", "1e3"}, {"+5", "0x10"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, limit, offset string) {
		r, err := Parse(limit, offset)
		if err != nil {
			return
		}
		if r.Limit < 0 || r.Limit > MaxLimit || r.Offset < 0 {
			t.Fatalf("Parse(%q, %q) = %+v", limit, offset, r)
		}
	})
}
