package docsapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// make test lints docs/openapi.yaml with Redocly's CLI at one exact
// version, its failure failing the run: the script pins the version and
// passes lint's status on, and test.sh counts it.
func TestLintIsPinnedAndCounted(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	lint := read("deploy/scripts/lint-openapi.sh")
	if !regexp.MustCompile(`(?m)^REDOCLY_CLI_VERSION=[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(lint) ||
		!strings.Contains(lint, `"@redocly/cli@$REDOCLY_CLI_VERSION" lint`) || !strings.Contains(lint, `exit "${PIPESTATUS[0]}"`) {
		t.Errorf("deploy/scripts/lint-openapi.sh does not run one exact @redocly/cli version and pass its status on:\n%s", lint)
	}
	if !strings.Contains(read("deploy/scripts/test.sh"), "bash deploy/scripts/lint-openapi.sh || status=1") {
		t.Error("deploy/scripts/test.sh does not fail the run when the lint fails")
	}
}
