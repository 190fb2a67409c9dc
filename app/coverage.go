package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/feria/feria/core/control"
)

// coverageUsage is the coverage command's usage.
const coverageUsage = `usage: feria coverage --base URL --key KEY [--min-operations N]
  prints what the public API of the sandbox at URL (a world's base URL too)
  was asked since its last reset, and the operations never called; exits 1
  when fewer than N operations were called`

// coverage is `feria coverage`: a CI step after an integration's tests. It
// reads GET {base}/sandbox/coverage with the sandbox key and prints the
// summary and the gaps.
func coverage(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("coverage", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	base := fs.String("base", "", "")
	key := fs.String("key", "", "")
	minOps := fs.Int("min-operations", 0, "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *base == "" || *key == "" || *minOps < 0 {
		return errors.New(coverageUsage)
	}
	cov, err := fetchCoverage(ctx, strings.TrimRight(*base, "/"), *key)
	if err != nil {
		return err
	}
	writeCoverage(stdout, *base, cov)
	if cov.Summary.Called < *minOps {
		return fmt.Errorf("coverage: %d operations called, fewer than --min-operations %d", cov.Summary.Called, *minOps)
	}
	return nil
}

func fetchCoverage(ctx context.Context, base, key string) (control.Coverage, error) {
	var cov control.Coverage
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/sandbox/coverage", nil)
	if err != nil {
		return cov, fmt.Errorf("coverage: --base: %w", err)
	}
	req.Header.Set("X-Sandbox-Key", key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return cov, fmt.Errorf("coverage: %w", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return cov, fmt.Errorf("coverage: reading the answer: %w", err)
	}
	if res.StatusCode != http.StatusOK {
		return cov, fmt.Errorf("coverage: GET %s/sandbox/coverage answered %d: %s", base, res.StatusCode, strings.TrimSpace(string(body)))
	}
	if err := json.Unmarshal(body, &cov); err != nil {
		return cov, fmt.Errorf("coverage: the answer is not a coverage: %w", err)
	}
	return cov, nil
}

// writeCoverage prints the summary, then the operations never called and
// those called that never answered an error, each with its area.
func writeCoverage(w io.Writer, base string, cov control.Coverage) {
	s := cov.Summary
	fmt.Fprintf(w, "coverage of %s since %s: %d of %d operations called, %d saw an error\n",
		base, cov.Since.Format(time.RFC3339), s.Called, s.Operations, s.WithErrorSeen)
	uncalled, noError := cov.Gaps()
	list := func(title string, ops []control.OperationCoverage) {
		if len(ops) == 0 {
			return
		}
		fmt.Fprintf(w, "%s (%d):\n", title, len(ops))
		for _, op := range ops {
			fmt.Fprintf(w, "  %-18s %-6s %s\n", op.Area, op.Method, op.Path)
		}
	}
	list("never called", uncalled)
	list("called, never answered an error", noError)
}
