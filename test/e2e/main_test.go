package e2e

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// TestMain builds the binary the command-line and worker tests run before
// any test starts (a fixture of the package, so that no test's time is a
// link on a busy machine), and removes it at the end.
//
// The parallel tests here mostly wait (on child processes, jobs, timeouts
// and the schema setup of PostgreSQL), so more of them run at once than
// go test's default of one per core: at least e2eParallel, unless the run
// names its own -parallel.
func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), e2eParallel))) //nolint:errcheck // a valid int
	}
	binary.once.Do(buildBinary) // an error fails each test that needs the binary
	code := m.Run()
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
	os.Exit(code)
}

// e2eParallel bounds the parallel tests running at once: enough that
// TestSoak and the other tests waiting on processes overlap the tests that
// compute, few enough that the Redis databases the tests lease (15, shared
// with the other packages of the run) do not run out.
const e2eParallel = 8
