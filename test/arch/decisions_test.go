package arch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// maxDecisionLine bounds a line of docs/decisions.md: one decision, said
// short; its why stays in the comment beside the rule.
const maxDecisionLine = 200

// testRef is one name of a decision's brackets: a test function, with the
// package it is in when the name alone is ambiguous (accountporttest.TestStore)
// and a subtest below it (TestCounters/cluster).
var testRef = regexp.MustCompile(`^(?:([a-z0-9]+)\.)?(Test[A-Za-z0-9_]+)(?:/(.+))?$`)

// goSources are the repository's Go files by directory, and the test
// functions each directory declares.
type goSources struct {
	text  map[string]string          // directory -> the text of its Go files
	tests map[string]map[string]bool // directory -> its func TestX names
}

var testFunc = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]+)\(`)

// readGoSources reads the sources once for every test that asks: the walk
// and its expression over every file cost seconds with the race detector.
func readGoSources(t *testing.T) goSources {
	t.Helper()
	src, err := goSourcesOnce()
	if err != nil {
		t.Fatal(err)
	}
	return src
}

var goSourcesOnce = sync.OnceValues(walkGoSources)

func walkGoSources() (goSources, error) {
	src := goSources{text: map[string]string{}, tests: map[string]map[string]bool{}}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "var" || n == "bin" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		src.text[dir] += string(b)
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			if src.tests[dir] == nil {
				src.tests[dir] = map[string]bool{}
			}
			src.tests[dir][m[1]] = true
		}
		return nil
	})
	return src, err
}

// has reports whether the test named by ref exists: its function in the
// package (any package without one), and each subtest's name as a string
// of that package's Go files (a suite's t.Run), spaces written as
// underscores or not.
func (s goSources) has(ref string) bool {
	m := testRef.FindStringSubmatch(ref)
	if m == nil {
		return false
	}
	pkg, name, sub := m[1], m[2], m[3]
	for dir, tests := range s.tests {
		if !tests[name] || (pkg != "" && filepath.Base(dir) != pkg) {
			continue
		}
		if sub == "" {
			return true
		}
		found := true
		for _, seg := range strings.Split(sub, "/") {
			spaced := strings.ReplaceAll(seg, "_", " ")
			if !strings.Contains(s.anyText(pkg, dir), `"`+seg) && !strings.Contains(s.anyText(pkg, dir), `"`+spaced) {
				found = false
			}
		}
		if found {
			return true
		}
	}
	return false
}

// anyText is the text a subtest's name may be in: the package's own files,
// and (a contract suite run by the test) every port's test suite.
func (s goSources) anyText(pkg, dir string) string {
	text := s.text[dir]
	for d, t := range s.text {
		if strings.HasSuffix(filepath.Base(d), "porttest") {
			text += t
		}
	}
	return text
}

var brackets = regexp.MustCompile(`\[([^\[\]]+)\]$`)

// Every line of docs/decisions.md is at most maxDecisionLine characters,
// and every decision (a line starting "- ") ends with the tests that assert
// it in brackets, each a test function of the repository.
func TestDecisionsAreShortAndTested(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "decisions.md"))
	if err != nil {
		t.Fatal(err)
	}
	src := readGoSources(t)
	decisions := 0
	for i, line := range strings.Split(string(b), "\n") {
		if n := utf8.RuneCountInString(line); n > maxDecisionLine {
			t.Errorf("docs/decisions.md:%d is %d characters, more than %d: one decision per line, said short", i+1, n, maxDecisionLine)
		}
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		decisions++
		m := brackets.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("docs/decisions.md:%d names no test in brackets at its end: %s", i+1, line)
			continue
		}
		for _, ref := range strings.Split(m[1], ", ") {
			if !src.has(ref) {
				t.Errorf("docs/decisions.md:%d names %s, which is no test of the repository", i+1, ref)
			}
		}
	}
	if decisions < 100 {
		t.Fatalf("docs/decisions.md holds %d decisions; the pattern is broken", decisions)
	}
}

// The check refuses a name that is no test and a subtest no test runs.
func TestDecisionRefsAreChecked(t *testing.T) {
	src := readGoSources(t)
	for ref, want := range map[string]bool{
		"TestDecisionsAreShortAndTested":      true,
		"arch.TestDecisionsAreShortAndTested": true,
		"docs.TestDecisionsAreShortAndTested": false,
		"TestNoSuchThing":                     false,
		"not a test":                          false,
		"TestDecisionRefsAreChecked/refuses":  false,
	} {
		if got := src.has(ref); got != want {
			t.Errorf("has(%q) = %v, want %v", ref, got, want)
		}
	}
}
