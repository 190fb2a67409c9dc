package arch

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// elsewhere are the ways a text points at what a clone of the repository
// does not hold: an issue or a defect of one, a work session, a document
// that is not in it, a directory beside it. Each pattern is written so that
// this file does not match it. held is a text every match holds, in lower
// case: a line without it is not run through the pattern, which (with the
// race detector on) would cost most of a minute on every line of the
// repository.
var elsewhere = []struct {
	re   *regexp.Regexp
	held string
	what string
}{
	{regexp.MustCompile(`(?i)\bissues? [0-9]+`), "issue", "an issue number"},
	{regexp.MustCompile(`(?i)\bdefect [0-9]+ of`), "defect", "a defect of an issue"},
	{regexp.MustCompile(`(?i)\b(first|second|third|fourth|fifth|last) session\b`), "session", "a work session"},
	{regexp.MustCompile(`(?i)\bsessions? of 20[0-9]{2}`), "session", "a dated work session"},
	{regexp.MustCompile(`(^|[^/])\bsandbox\.md`), "sandbox" + ".md", "the sandbox guide other than as docs/sandbox.md"},
	{regexp.MustCompile(`(?i)marketplace[-]support[-]api`), "marketplace", "a document outside the repository"},
	{regexp.MustCompile(`\.\./shared`), ".." + "/shared", "a directory outside the repository"},
}

// mayPointOutside reports whether text holds what a pattern's match holds:
// most files hold none, and are not split into lines.
func mayPointOutside(text string) bool {
	lower := strings.ToLower(text)
	for _, p := range elsewhere {
		if strings.Contains(lower, p.held) {
			return true
		}
	}
	return false
}

// The repository speaks only of itself: no file git tracks names an issue,
// a work session, or a document or directory outside the repository (the
// contract is docs/openapi.yaml and docs/sandbox.md). go.sum and binary
// files are not text anyone reads.
func TestNothingPointsOutside(t *testing.T) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if len(files) < 100 {
		t.Fatalf("git ls-files lists %d files; the listing is broken", len(files))
	}
	for _, name := range files {
		if name == "go.sum" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 || !mayPointOutside(string(b)) {
			continue // binary, or nothing to match
		}
		for i, line := range strings.Split(string(b), "\n") {
			lower := strings.ToLower(line)
			for _, p := range elsewhere {
				if !strings.Contains(lower, p.held) {
					continue
				}
				if m := p.re.FindString(line); m != "" {
					t.Errorf("%s:%d names %s (%q): say it in the repository's own words", name, i+1, p.what, strings.TrimSpace(m))
				}
			}
		}
	}
}

// Each pattern finds what it is for, so that the test above can fail.
func TestElsewherePatternsMatch(t *testing.T) {
	samples := []string{
		"as issue" + " 17 asks", "Defect" + " 2 of the list", "in the third" + " session we", "the sessions" + " of 2026-11-27",
		"see sandbox" + ".md", "the marketplace-" + "support-api document", "in .." + "/shared/spec",
	}
	for i, p := range elsewhere {
		if !p.re.MatchString(samples[i]) {
			t.Errorf("the pattern for %s does not match %q", p.what, samples[i])
		}
		if !strings.Contains(strings.ToLower(samples[i]), p.held) {
			t.Errorf("the check passes %q: %q is not in what the pattern for %s matches", samples[i], p.held, p.what)
		}
	}
	for _, fine := range []string{"docs/sandbox.md", "its tokens last 6 hours", "a session lock", "the issue", "sandboxmd"} {
		for _, p := range elsewhere {
			if p.re.MatchString(fine) {
				t.Errorf("the pattern for %s matches %q", p.what, fine)
			}
		}
	}
}
