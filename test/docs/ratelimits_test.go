package docs

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/feria/feria/core/control"
)

// docs/sandbox.md lists the default rate limits, row for row, as
// control.DefaultRateLimits has them.
func TestSandboxGuideListsTheDefaultRateLimits(t *testing.T) {
	text := section(t, readFile(t, "docs/sandbox.md"), "## Faults, rate limits and the request journal")
	re := regexp.MustCompile("^\\| (any|[A-Z]+) \\| `([^`]+)` \\| ([0-9,]+) \\|$")
	var got []string
	for _, line := range strings.Split(text, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			got = append(got, fmt.Sprintf("%s %s %s", m[1], m[2], strings.ReplaceAll(m[3], ",", "")))
		}
	}
	var want []string
	for _, l := range control.DefaultRateLimits() {
		method := "any"
		if l.Method != nil {
			method = *l.Method
		}
		want = append(want, fmt.Sprintf("%s %s %d", method, l.Path, l.PerMinute))
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/sandbox.md's default rate limits:\n  %s\nwant (control.DefaultRateLimits):\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
