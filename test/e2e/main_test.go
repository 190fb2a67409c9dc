package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain builds the binary the command-line and worker tests run before
// any test starts (a fixture of the package, so that no test's time is a
// link on a busy machine), and removes it at the end.
func TestMain(m *testing.M) {
	binary.once.Do(buildBinary) // an error fails each test that needs the binary
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}
