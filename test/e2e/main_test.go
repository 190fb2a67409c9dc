package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the binary the command-line tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}
