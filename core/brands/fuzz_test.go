package brands

import "testing"

// FuzzParseID: an id that parses came from digits only and is not negative.
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"123", "0", "", "-1", "12a", "99999999999999999999", "１２"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		id, err := ParseID("brand_id", raw)
		if err != nil {
			return
		}
		if id < 0 {
			t.Fatalf("ParseID(%q) = %d", raw, id)
		}
		for _, r := range raw {
			if r < '0' || r > '9' {
				t.Fatalf("ParseID(%q) accepted a non-digit", raw)
			}
		}
	})
}
