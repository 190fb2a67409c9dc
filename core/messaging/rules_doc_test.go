package messaging

import (
	"os"
	"strings"
	"testing"
)

// TestRulesDocumented keeps docs/messaging-rules.md in step with the rule
// data: every rule, in order, with its message, hosts and words.
func TestRulesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/messaging-rules.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	last := -1
	for _, s := range specs {
		row := strings.Index(doc, "| `"+s.name+"` | "+s.message+" |")
		if row < 0 {
			t.Fatalf("rule %s (%q) is not documented", s.name, s.message)
		}
		if row < last {
			t.Errorf("rule %s is documented out of order", s.name)
		}
		last = row
		line := doc[row:]
		line = line[:strings.IndexByte(line, '\n')]
		for _, x := range append(append([]string{}, s.hosts...), s.words...) {
			if !strings.Contains(line, "`"+x+"`") {
				t.Errorf("rule %s: %q is not documented", s.name, x)
			}
		}
	}
}
